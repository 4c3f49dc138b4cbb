"""Claude Code: CLAUDE.md, `.claude/skills/<name>/`, policy as frontmatter keys (harnesses.md 1)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final

from uze.harnesses import mcp
from uze.harnesses.base import (
    CLAUDE_TOOLS,
    INLINE_SHELL,
    MORE_EVENTS,
    SAME_EVENTS,
    AgentFormat,
    Capability,
    ClaudePlugins,
    CommandSurface,
    DoctorFacts,
    Harness,
    HookProtocol,
    HookTarget,
    Instructions,
    McpTarget,
    Power,
    ProjectForms,
    SkillDialect,
    Skills,
    TrustFacts,
    cap,
    hook_events,
)
from uze.location import Location
from uze.paths import Paths

if TYPE_CHECKING:
    from uze.package import Command, InvokePolicy, McpServer
    from uze.vocabulary import Route


def config_dir(paths: Paths) -> Path:
    """`$CLAUDE_CONFIG_DIR`, else ~/.claude (probes 2.1: it moves skills, agents, CLAUDE.md)."""
    return paths.env_dir("CLAUDE_CONFIG_DIR", paths.home / ".claude")


def _mcp_file(loc: Location) -> Path:
    # user scope: ~/.claude.json, or $CLAUDE_CONFIG_DIR/.claude.json (probes 2.1)
    if "CLAUDE_CONFIG_DIR" in loc.paths.env:
        return loc.pick(".mcp.json", config_dir(loc.paths) / ".claude.json")
    return loc.pick(".mcp.json", loc.paths.home / ".claude.json")


def plugins_root(loc: Location) -> Path:
    """Where Claude Code auto-loads plugins as `<name>@skills-dir`: a folder of its skill root
    holding `.claude-plugin/plugin.json` (2.1.197, `claude plugin init`; ADR 0041). Project
    scope: `.claude/skills`, loaded once the workspace is trusted; user scope: the config dir's
    `skills`."""
    return loc.pick(".claude/skills", config_dir(loc.paths) / "skills")


# Measured with the real binary (ADR 0041, 0048); the `<package>:<name>` labels of a plugin's
# resources are computed in uze/plan/labels.py.
def settings_file(loc: Location) -> Path:
    """Claude Code's settings file per scope: hooks and `enabledPlugins` live there."""
    return loc.pick(".claude/settings.json", config_dir(loc.paths) / "settings.json")


# `enabledPlugins."<package>@skills-dir": false` lists the plugin `disabled` (claude 2.1.197,
# `claude plugin list`, both scopes; ADR 0087).
PLUGINS: Final = ClaudePlugins(
    plugins_root, "Claude Code loads a project's plugins once its workspace is trusted",
    switch=settings_file)


def skill_dialect(policy: InvokePolicy) -> SkillDialect:
    """Claude's own keys (also read by DeepSeek Harness)."""
    keys: dict[str, object] = {}
    if not policy.model:
        keys["disable-model-invocation"] = True
    if not policy.user:
        keys["user-invocable"] = False
    return SkillDialect(frontmatter=keys)


def mcp_dialect(server: McpServer) -> mcp.Translated:
    """`.mcp.json` / `~/.claude.json` `mcpServers` (harnesses.md 1.5)."""
    if (skipped := mcp.disabled(server, "Claude Code")) is not None:
        return skipped
    if server.url:
        return mcp.Translated({"type": mcp.remote_kind(server), "url": server.url,
                               **mcp.headers_of(server)})
    value: dict[str, object] = {"command": server.command, "args": list(server.args)}
    if server.env:
        value["env"] = dict(server.env)
    return mcp.drop_cwd(server, "Claude Code", mcp.Translated(value))


CAPABILITIES: Final[dict[tuple[str, str], Capability]] = {
    ("instructions", "base"): cap(
        "adapted", "Claude Code reads CLAUDE.md, not AGENTS.md: the text is copied into a "
        "CLAUDE.md region", "harnesses.md 1.1"),
    ("skill", "base"): cap("native", "", "harnesses.md 1.2"),
    ("skill", "invoke.user_only"): cap("native", "", "harnesses.md 1.3"),
    ("skill", "invoke.model_only"): cap("native", "", "harnesses.md 1.3"),
    ("agent", "base"): cap("native", "", "harnesses.md 1.4"),
    ("mcp", "base"): cap("native", "", "harnesses.md 1.5, probes 2.1"),
    ("hook", "base"): cap("native", "", "harnesses.md 1.6 (per group: uze/hooks)"),
    ("hook", "protocol.claude"): cap(
        "native", "", "harnesses.md 1.6 (groups verbatim; uze/hooks/claude.py), "
        "tests/conformance/test_claude_hooks.py"),
    ("command", "base"): cap(
        "native", "", "harnesses.md 1, tests/conformance (claude -p /context slash_commands)"),
}
# Every event is Claude Code's own (adr/0089). Prompt and agent handlers run only where a
# conversation is present: 2.1.197 throws "prompt-type hooks are not supported for <Event>
# events (no conversation context is available)" elsewhere (its binary; the evidence ids
# hook.event.* and hook.handler.prompt: tests/conformance/test_portable_events.py).
MODEL_HANDLED: Final = ("PreToolUse", "PostToolUse", "Stop", "UserPromptSubmit", "SubagentStop")
HOOK_EVENTS: Final = hook_events(
    {**SAME_EVENTS, **{event: event for event in MORE_EVENTS}},
    {"PreToolUse", "Stop", "UserPromptSubmit", "SubagentStop"}, ("command",),
    typed={event: ("command", "prompt", "agent") for event in MODEL_HANDLED})
MODEL_ONLY_WHERE: Final = (
    "Claude Code 2.1.197 runs {kind} hook handlers only on " + ", ".join(MODEL_HANDLED)
    + " (elsewhere no conversation is present: 'prompt-type hooks are not supported for "
    "<Event> events')")

HOOKS: Final = HookTarget(
    file=settings_file, role="claude settings", fmt="json",
    effects=frozenset({"observe", "allow", "ask", "deny", "transform"}),
    transform_note="Claude applies a rewritten input only with a decision: the user approves it",
)


POWERS: Final = (
    Power("agent", "hooks", "runs", "harnesses.md 1.4"),
    Power("agent", "mcpServers", "runs", "harnesses.md 1.4"),
    Power("agent", "permissionMode", "grants", "harnesses.md 1.4"),
    Power("skill", "hooks", "runs", "harnesses.md 1.2"),
    Power("skill", "allowed-tools", "grants", "harnesses.md 1.2"),
    Power("skill body", INLINE_SHELL, "runs", "harnesses.md 1.2"),
)


def _render_command(_command: Command, original: bytes) -> tuple[bytes, Route, str]:
    return original, "native", ""  # the file as written


COMMANDS: Final = CommandSurface(
    lambda loc: loc.pick(".claude/commands", config_dir(loc.paths) / "commands"), ".md",
    _render_command,
)


# Project scope (adr/0039, measured with claude 2.1.197 in tests/conformance/test_teammate.py):
# `claude mcp list` connects a `./`-relative .mcp.json command (claude starts servers in the
# folder it was started in) but not `${CLAUDE_PROJECT_DIR}/...` ("Missing environment
# variables: CLAUDE_PROJECT_DIR"); hook commands see $CLAUDE_PROJECT_DIR, the project root.
PROJECT_FORMS = ProjectForms(mcp=".", hook="${CLAUDE_PROJECT_DIR}",
                             source="adr/0039, tests/conformance/test_teammate.py")


HARNESS = Harness(
    id="claude_code",
    binary="claude",
    project_forms=PROJECT_FORMS,
    markers=(".claude", "CLAUDE.md"),
    home=config_dir,
    instructions=Instructions(
        lambda loc: loc.pick("CLAUDE.md", config_dir(loc.paths) / "CLAUDE.md")),
    skills=Skills(lambda loc: (plugins_root(loc),), dialect=skill_dialect),
    mcp=McpTarget(_mcp_file, "json", lambda _loc, name: ("mcpServers", name), mcp_dialect,
                  expands_defaults=True),
    agents=AgentFormat(
        folder=lambda loc: loc.pick(".claude/agents", config_dir(loc.paths) / "agents"),
        allowed=frozenset({
            "tools", "disallowedTools", "model", "permissionMode", "maxTurns", "skills",
            "mcpServers", "hooks", "memory", "background", "effort", "isolation", "color",
            "initialPrompt",
        }),
        claude_keys=True,
    ),
    capabilities=CAPABILITIES,
    hooks=HOOKS,
    hook_protocol=HookProtocol(events=HOOK_EVENTS, tools=CLAUDE_TOOLS, answer="claude",
                               claude_verbatim=True, handler_why={
                                   kind: MODEL_ONLY_WHERE.format(kind=kind)
                                   for kind in ("prompt", "agent")}),
    commands=COMMANDS,
    trust=TrustFacts(powers=POWERS),
    doctor=DoctorFacts(probes=("claude -p /context", "claude mcp list")),
    column="claude",
    claude_plugins=PLUGINS,
)
