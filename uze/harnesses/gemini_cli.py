"""Gemini CLI: GEMINI.md, `.gemini/skills` or `.agents/skills`, Markdown agents (harnesses.md 4)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final

from uze.harnesses import mcp
from uze.harnesses.base import (
    AgentFormat,
    Capability,
    CommandSurface,
    DoctorFacts,
    Envelope,
    Harness,
    HookProtocol,
    HookTarget,
    Instructions,
    McpTarget,
    Power,
    ProjectForms,
    Skills,
    TrustFacts,
    cap,
    hook_events,
)
from uze.harnesses.skill_switches import SkillOff
from uze.location import Location
from uze.paths import Paths

if TYPE_CHECKING:
    from uze.package import Command, McpServer
    from uze.vocabulary import Route


def gemini_dir(paths: Paths) -> Path:
    """`$GEMINI_CLI_HOME/.gemini`, else ~/.gemini (probes 4.1)."""
    return paths.env_dir("GEMINI_CLI_HOME", paths.home) / ".gemini"


def _skill_roots(loc: Location) -> tuple[Path, ...]:
    return (
        loc.pick(".agents/skills", loc.paths.home / ".agents" / "skills"),
        loc.pick(".gemini/skills", gemini_dir(loc.paths) / "skills"),
    )


def mcp_dialect(server: McpServer) -> mcp.Translated:
    """`mcpServers` in settings.json: `httpUrl` for HTTP, `url` for SSE (4.5)."""
    if (skipped := mcp.disabled(server, "Gemini CLI")) is not None:
        return skipped
    if server.url:
        key = "url" if mcp.remote_kind(server) == "sse" else "httpUrl"
        return mcp.Translated({key: server.url, **mcp.headers_of(server)})
    value: dict[str, object] = {"command": server.command, "args": list(server.args)}
    if server.env:
        value["env"] = dict(server.env)
    if server.cwd:
        value["cwd"] = server.cwd
    return mcp.Translated(value)


CAPABILITIES: Final[dict[tuple[str, str], Capability]] = {
    ("instructions", "base"): cap(
        "adapted", "Gemini CLI reads GEMINI.md, not AGENTS.md: the text is copied into a "
        "GEMINI.md region", "harnesses.md 4.1"),
    ("skill", "base"): cap("native", "", "harnesses.md 4.2"),
    ("skill", "invoke.user_only"): cap(
        "degraded", "Gemini CLI has no invocation switch: the model can still activate this "
        "user-only skill (after a consent prompt)", "harnesses.md 4.3"),
    ("skill", "invoke.model_only"): cap(
        "native", "", "harnesses.md 4.2 (skills are activated by the model)"),
    ("agent", "base"): cap("native", "", "harnesses.md 4.4"),
    ("mcp", "base"): cap("native", "", "harnesses.md 4.5, probes 4.1"),
    ("hook", "base"): cap("native", "", "harnesses.md 4.6 (renamed events)"),
    ("hook", "protocol.claude"): cap(
        "adapted", "Claude-protocol hooks run by uze's translating wrapper (Claude hook JSON in, "
        "the answer as Gemini CLI's decision) on PreToolUse, PostToolUse, Stop, SessionStart, "
        "UserPromptSubmit; no SubagentStop (Gemini CLI has no subagent event)",
        "adr/0034, adr/0050, tests/conformance/test_claude_hooks.py, test_claude_hook_events.py "
        "(per group: uze/hooks/claude.py)"),
    ("mcp", "project"): cap(
        "adapted", "written to .gemini/settings.json, which Gemini CLI reads only in a trusted "
        "folder", "probes 4.1"),
    ("command", "base"): cap(
        "adapted", "a Gemini CLI command (.gemini/commands/<label>.toml): $ARGUMENTS as "
        "{{args}}, !`cmd` as !{cmd}",
        "adr/0068, tests/conformance/test_published_formats.py (gemini -p /<label>)"),
}
# What gemini 0.61.0 was seen doing with the capability map's other events (adr/0089;
# tests/conformance/test_claude_session_events.py, test_portable_events.py), shared by
# portable and Claude-protocol groups.
NO_SUBAGENT_END: Final = ("Gemini CLI has no event for a subagent's end (0.61.0: none of its "
                          "eleven hook events is a subagent's)")
NOTIFICATION_UNSEEN: Final = (
    "Gemini CLI 0.61.0 fires Notification only when it asks the user to confirm a tool call; "
    "`gemini -p` with --approval-mode default does not offer the model a tool that needs "
    "confirmation, so uze has not seen it run a wrapper")
COMPRESS_EACH_REQUEST: Final = (
    "Gemini CLI fires PreCompress (trigger auto) before each of the agent's model requests, "
    "whether or not it then compresses the history: the handler runs each time, not only "
    "before a compaction")
MODEL_HANDLERS: Final = ("Gemini CLI 0.61.0 runs command hooks only (its hook types are "
                         "command and runtime): no {kind} handler")
HOOK_EVENTS: Final = hook_events(
    {"PreToolUse": "BeforeTool", "PostToolUse": "AfterTool", "Stop": "AfterAgent",
     "SessionStart": "SessionStart", "UserPromptSubmit": "BeforeAgent",
     "SessionEnd": "SessionEnd", "PreCompact": "PreCompress"},
    {"PreToolUse", "Stop", "UserPromptSubmit"}, ("command",),
    why_not={"SubagentStop": NO_SUBAGENT_END, "Notification": NOTIFICATION_UNSEEN},
    limits={"PreCompact": COMPRESS_EACH_REQUEST},
)

HOOKS: Final = HookTarget(
    file=lambda loc: loc.pick(".gemini/settings.json", gemini_dir(loc.paths) / "settings.json"),
    role="gemini settings", fmt="jsonc", effects=frozenset({"observe", "deny", "transform"}),
    timeout_unit=1000, names_handler=True,
)
TOOLS: Final = {
    "run_shell_command": ("shell",),
    "read_file": ("file.read",),
    "read_many_files": ("file.read",),
    "write_file": ("file.write",),
    "replace": ("file.edit",),
    "glob": ("search.files",),
    "search_file_content": ("search.files",),
    "grep": ("search.files",),
    "google_web_search": ("search.web",),
    "web_fetch": ("search.web",),
}
CLAUDE_TOOL_NAMES: Final = {
    "run_shell_command": "Bash",
    "read_file": "Read",
    "read_many_files": "Read",
    "write_file": "Write",
    "replace": "Edit",
    "glob": "Glob",
    "search_file_content": "Grep",
    "grep": "Grep",
    "list_directory": "LS",
    "google_web_search": "WebSearch",
    "web_fetch": "WebFetch",
}


POWERS: Final = (Power("agent", "mcpServers", "runs", "harnesses.md 4.4"),)


# A package's own Gemini CLI extension (probes 4.2). uze does not link it (ADR 0044): what it
# carries beyond the resources uze reads is reported, never delivered in silence.
ENVELOPE: Final = Envelope(
    "uze delivers the package to Gemini CLI resource by resource, not as an extension",
    manifest="gemini-extension.json", keys=("mcpServers", "excludeTools", "settings"),
    contexts=True, folders=("commands/",), suffixes=(".toml",), nested=True,
    label="Gemini CLI command")


# Project scope (adr/0039, measured with gemini 0.61.0 in tests/conformance/test_teammate.py):
# `gemini mcp list` connects a `./`-relative command (servers start in the folder gemini was
# started in); `$GEMINI_PROJECT_DIR` is not expanded in settings.json (it is not in gemini's
# own environment) but hook commands see it.
PROJECT_FORMS = ProjectForms(mcp=".", hook="${GEMINI_PROJECT_DIR}",
                             source="adr/0039, tests/conformance/test_teammate.py")


def _render_command(command: Command, original: bytes) -> tuple[bytes, Route, str]:
    """A TOML command (`prompt`, `description`) in .gemini/commands: a Gemini CLI command as
    its extension wrote it (native), a Claude command translated (adapted; what it loses
    named, degraded). Seen with gemini 0.61.0: `/<label> ARGS` sends the prompt with
    `{{args}}` replaced (tests/conformance/test_published_formats.py)."""
    if command.converted:
        return original, "native", ""
    import tomlkit  # here: the registry imports this module, and only a command needs TOML

    from uze.package.gemini import gemini_prompt

    prompt, lost, notes = gemini_prompt(command)
    document = tomlkit.document()
    document.add("description", command.description)
    document.add("prompt", tomlkit.string(prompt, multiline="\n" in prompt))
    reason = "; ".join([CAPABILITIES[("command", "base")].reason, *lost, *notes])
    return tomlkit.dumps(document).encode(), "degraded" if lost else "adapted", reason


COMMANDS: Final = CommandSurface(
    lambda loc: loc.pick(".gemini/commands", gemini_dir(loc.paths) / "commands"), ".toml",
    _render_command,
)


HOOK_PROTOCOL: Final = HookProtocol(
    events=HOOK_EVENTS,
    tools=TOOLS,
    answer="gemini",
    claude_events={"PreToolUse": "BeforeTool", "PostToolUse": "AfterTool",
                   "Stop": "AfterAgent", "SessionStart": "SessionStart",
                   "UserPromptSubmit": "BeforeAgent", "SessionEnd": "SessionEnd",
                   "PreCompact": "PreCompress"},
    claude_refused={
        "SubagentStop": f"Claude-protocol hook on SubagentStop: {NO_SUBAGENT_END}",
        "Notification": f"Claude-protocol hook on Notification: {NOTIFICATION_UNSEEN}"},
    # Seen with the real gemini 0.61.0 (tests/conformance/test_claude_session_events.py).
    claude_limits={"PreCompact": COMPRESS_EACH_REQUEST},
    claude_tools=CLAUDE_TOOL_NAMES,
    handler_why={kind: MODEL_HANDLERS.format(kind=kind) for kind in ("prompt", "agent")},
)


HARNESS = Harness(
    id="gemini_cli",
    binary="gemini",
    project_forms=PROJECT_FORMS,
    envelope=ENVELOPE,
    markers=(".gemini", "GEMINI.md"),
    home=gemini_dir,
    instructions=Instructions(
        lambda loc: loc.pick("GEMINI.md", gemini_dir(loc.paths) / "GEMINI.md")),
    # gemini 0.61.0 lists a skill named in `skills.disabled` (user or project settings.json)
    # `[Disabled]` and offers it to no model request (tests/conformance/test_switches.py)
    skills=Skills(_skill_roots, off=SkillOff(
        lambda loc: loc.pick(".gemini/settings.json", gemini_dir(loc.paths) / "settings.json"),
        "jsonc", ("skills", "disabled"), lambda name: name)),
    commands=COMMANDS,
    mcp=McpTarget(
        lambda loc: loc.pick(".gemini/settings.json", gemini_dir(loc.paths) / "settings.json"),
        "jsonc", lambda _loc, name: ("mcpServers", name), mcp_dialect,
    ),
    agents=AgentFormat(
        folder=lambda loc: loc.pick(".gemini/agents", gemini_dir(loc.paths) / "agents"),
        allowed=frozenset({
            "kind", "tools", "mcpServers", "model", "temperature", "max_turns", "timeout_mins",
        }),
        allow="list",
    ),
    capabilities=CAPABILITIES,
    hooks=HOOKS,
    hook_protocol=HOOK_PROTOCOL,
    trust=TrustFacts(powers=POWERS),
    doctor=DoctorFacts(probes=("gemini skills list", "gemini mcp list")),
    column="gemini",
)
