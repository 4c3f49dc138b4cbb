"""Antigravity (agy): AGENTS.md, `.agents/skills` (harnesses.md 5; third-party, unverified)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final

from uze.harnesses import mcp
from uze.harnesses.base import (
    AS_SKILL,
    NO_OFFLINE_BINARY,
    SAME_EVENTS,
    Capability,
    DoctorFacts,
    Harness,
    HookProtocol,
    HookTarget,
    Instructions,
    McpTarget,
    Skills,
    cap,
    hook_events,
    unclaimed_events,
)
from uze.location import Location
from uze.paths import Paths

if TYPE_CHECKING:
    from uze.package import McpServer


def config_dir(paths: Paths) -> Path:
    """~/.gemini/config, the CLI's global customization root (harnesses.md 5.2)."""
    return paths.home / ".gemini" / "config"


def hooks_file(loc: Location) -> Path:
    """Named hooks: `.agents/hooks.json` or `~/.gemini/config/hooks.json` (harnesses.md 5.5)."""
    return loc.pick(".agents/hooks.json", config_dir(loc.paths) / "hooks.json")


def mcp_dialect(server: McpServer) -> mcp.Translated:
    """`mcpServers` in mcp_config.json; `serverUrl` for remote, `disabled` flag (5.4)."""
    if server.url and mcp.remote_kind(server) == "sse":
        return mcp.skip("Antigravity's SSE support is undocumented; uze writes only "
                        "streamable HTTP")
    if server.url:
        value: dict[str, object] = {"serverUrl": server.url, **mcp.headers_of(server)}
    else:
        value = {"command": server.command, "args": list(server.args)}
        if server.env:
            value["env"] = dict(server.env)
    if not server.enabled:
        value["disabled"] = True
    out = mcp.unverified_refs(server, "Antigravity", mcp.Translated(value))
    return mcp.drop_cwd(server, "Antigravity", out)


CAPABILITIES: Final[dict[tuple[str, str], Capability]] = {
    ("instructions", "base"): cap(
        "native", "", "harnesses.md 5.1 (unverified: third-party)"),
    ("skill", "base"): cap("native", "", "harnesses.md 5.2 (unverified)"),
    ("skill", "invoke.user_only"): cap(
        "degraded", "Antigravity documents no invocation policy: the model can still run this "
        "user-only skill", "harnesses.md 5.2"),
    ("skill", "invoke.model_only"): cap(
        "degraded", "Antigravity documents no invocation policy: users can still run this "
        "model-only skill", "harnesses.md 5.2"),
    ("mcp", "base"): cap("native", "", "harnesses.md 5.4 (unverified)"),
    ("hook", "base"): cap(
        "adapted", "named entries in hooks.json; the format is unverified third-party "
        "documentation (agy drops the whole file on any schema error)",
        "harnesses.md 5.5 (unverified; per group: uze/hooks)"),
    ("command", "base"): cap(
        "adapted", AS_SKILL.format(harness="Antigravity"), "harnesses.md 5.2 (unverified)"),
    ("hook", "protocol.claude"): cap(
        "unsupported", "Claude-protocol hook; no translation to antigravity", "adr/0034"),
}
UNSUPPORTED: Final[dict[str, str]] = {
    "agent": "Antigravity loads custom agents only from a plugin's agents/ "
    "folder (format unverified); uze does not generate Antigravity plugins",
}
HOOK_EVENTS: Final = hook_events(  # named hooks in hooks.json (harnesses.md 5.5, unverified)
    SAME_EVENTS, {"PreToolUse"}, ("command",),
    why_not=unclaimed_events("antigravity", NO_OFFLINE_BINARY))

HOOKS: Final = HookTarget(
    file=hooks_file, role="antigravity hooks", fmt="json",
    effects=frozenset({"observe", "deny", "ask"}), layout="named",
    effect_why={
        "allow": "Antigravity's allow decision did not skip its review in agy 1.1.2 "
        "(harnesses.md 5.5): the call would not be approved",
        "transform": "Antigravity documents no way for a hook to rewrite a tool's input "
        "(harnesses.md 5.5)",
    },
    note="Antigravity's hook format is unverified third-party documentation (harnesses.md 5.5): "
    "agy drops the whole hooks.json on any schema error; the wrapper answers every PreToolUse "
    "call (a missing decision fails closed)",
)
# Third-party reports (harnesses.md 5.5, unverified).
TOOLS: Final = {
    "run_command": ("shell",),
    "view_file": ("file.read",),
    "write_to_file": ("file.write",),
    "replace_file_content": ("file.edit",),
    "multi_replace_file_content": ("file.edit",),
    "search_web": ("search.web",),
    "read_url_content": ("search.web",),
}


HARNESS = Harness(
    id="antigravity",
    binary="agy",
    markers=(".antigravitycli",),
    home=lambda paths: paths.home / ".gemini" / "antigravity-cli",
    instructions=Instructions(
        lambda loc: loc.pick("AGENTS.md", loc.paths.home / ".gemini" / "GEMINI.md")),
    skills=Skills(lambda loc: (loc.pick(".agents/skills", config_dir(loc.paths) / "skills"),)),
    mcp=McpTarget(
        lambda loc: loc.pick(".agents/mcp_config.json", config_dir(loc.paths) / "mcp_config.json"),
        "json", lambda _loc, name: ("mcpServers", name), mcp_dialect,
    ),
    capabilities=CAPABILITIES,
    unsupported=UNSUPPORTED,
    hooks=HOOKS,
    hook_protocol=HookProtocol(events=HOOK_EVENTS, tools=TOOLS, answer="decision",
                               input="tool_call"),
    doctor=DoctorFacts(not_runnable=NO_OFFLINE_BINARY),
    column="agy",
)
