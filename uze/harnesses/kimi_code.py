"""Kimi Code (the Node rewrite): AGENTS.md, skills and Markdown agents (harnesses.md 6.1)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final

from uze.harnesses import mcp
from uze.harnesses.base import (
    AS_SKILL,
    CLAUDE_TOOLS,
    NO_OFFLINE_BINARY,
    SAME_EVENTS,
    AgentFormat,
    Capability,
    DoctorFacts,
    Harness,
    HookProtocol,
    HookTarget,
    Instructions,
    McpTarget,
    SkillDialect,
    Skills,
    cap,
    hook_events,
    unclaimed_events,
)
from uze.location import Location
from uze.paths import Paths

if TYPE_CHECKING:
    from uze.package import InvokePolicy, McpServer


def kimi_home(paths: Paths) -> Path:
    """`$KIMI_CODE_HOME`, else ~/.kimi-code."""
    return paths.env_dir("KIMI_CODE_HOME", paths.home / ".kimi-code")


def _skill_roots(loc: Location) -> tuple[Path, ...]:
    return (
        loc.pick(".agents/skills", loc.paths.home / ".agents" / "skills"),
        loc.pick(".kimi-code/skills", kimi_home(loc.paths) / "skills"),
    )


def _skill_dialect(policy: InvokePolicy) -> SkillDialect:
    return SkillDialect(frontmatter={} if policy.model else {"disableModelInvocation": True})


def mcp_dialect(server: McpServer) -> mcp.Translated:
    """`mcpServers` in mcp.json; SSE as `transport: "sse"`; `enabled` flag (6.1)."""
    if server.url:
        value: dict[str, object] = {"url": server.url, **mcp.headers_of(server)}
        if mcp.remote_kind(server) == "sse":
            value["transport"] = "sse"
    else:
        value = {"command": server.command, "args": list(server.args)}
        if server.env:
            value["env"] = dict(server.env)
        if server.cwd:
            value["cwd"] = server.cwd
    if not server.enabled:
        value["enabled"] = False
    return mcp.unverified_refs(server, "Kimi Code", mcp.Translated(value))


CAPABILITIES: Final[dict[tuple[str, str], Capability]] = {
    ("instructions", "base"): cap("native", "", "harnesses.md 6.1"),
    ("skill", "base"): cap("native", "", "harnesses.md 6.1"),
    ("skill", "invoke.user_only"): cap(
        "adapted", "user-only policy written as Kimi Code's disableModelInvocation: true",
        "harnesses.md 6.1"),
    ("skill", "invoke.model_only"): cap(
        "degraded", "Kimi Code has no model-only switch: users can still invoke this skill",
        "harnesses.md 6.1"),
    ("agent", "base"): cap("native", "", "harnesses.md 6.1"),
    ("mcp", "base"): cap("native", "", "harnesses.md 6.1"),
    ("hook", "base"): cap("native", "", "harnesses.md 6.1 (user config only)"),
    ("command", "base"): cap(
        "adapted", AS_SKILL.format(harness="Kimi Code"), "harnesses.md 6.1 (not yet verified)"),
    ("hook", "protocol.claude"): cap(
        "unsupported", "Claude-protocol hook; no translation to kimi_code", "adr/0034"),
}
HOOK_EVENTS: Final = hook_events(SAME_EVENTS, {"PreToolUse", "Stop"}, ("command",),
                          why_not=unclaimed_events("kimi_code", NO_OFFLINE_BINARY))

# Kimi Code reads [[hooks]] from its user config.toml only (harnesses.md 6.1).
HOOKS: Final = HookTarget(
    file=lambda loc: None if loc.scope == "project" else kimi_home(loc.paths) / "config.toml",
    role="kimi config", fmt="toml", effects=frozenset({"observe", "deny"}), layout="flat",
)
# Claude's names per the reference, plus kimi-cli's own names (unverified there).
TOOLS: Final = {
    **CLAUDE_TOOLS,
    "Shell": ("shell",),
    "ReadFile": ("file.read",),
    "WriteFile": ("file.write",),
    "StrReplaceFile": ("file.edit",),
    "SearchWeb": ("search.web",),
    "FetchURL": ("search.web",),
}


HARNESS = Harness(
    id="kimi_code",
    binary="kimi",
    markers=(".kimi-code",),
    home=kimi_home,
    instructions=Instructions(
        lambda loc: loc.pick("AGENTS.md", kimi_home(loc.paths) / "AGENTS.md")),
    skills=Skills(_skill_roots, dialect=_skill_dialect),
    mcp=McpTarget(
        lambda loc: loc.pick(".kimi-code/mcp.json", kimi_home(loc.paths) / "mcp.json"),
        "json", lambda _loc, name: ("mcpServers", name), mcp_dialect,
    ),
    agents=AgentFormat(
        folder=lambda loc: loc.pick(".kimi-code/agents", kimi_home(loc.paths) / "agents"),
        allowed=frozenset({"whenToUse", "override", "tools", "disallowedTools", "subagents"}),
        allow="list", deny="list", claude_tool_names=True,
    ),
    capabilities=CAPABILITIES,
    hooks=HOOKS,
    hook_protocol=HookProtocol(events=HOOK_EVENTS, tools=TOOLS, answer="exit2"),
    doctor=DoctorFacts(not_runnable=NO_OFFLINE_BINARY),
    column="kimi",
)
