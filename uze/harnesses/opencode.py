"""OpenCode (V1, 1.18): AGENTS.md, skills from three roots, Markdown subagents (harnesses.md 3)."""

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
from uze.harnesses.claude_code import config_dir as claude_dir
from uze.harnesses.skill_switches import SkillSwitch
from uze.location import Location
from uze.paths import Paths
from uze.patterns import compile_later

if TYPE_CHECKING:
    from uze.package import Command, McpServer
    from uze.vocabulary import Route


def config_dir(paths: Paths) -> Path:
    """$XDG_CONFIG_HOME/opencode (default ~/.config/opencode)."""
    return paths.xdg_config / "opencode"


def plugins_dir(loc: Location) -> Path:
    """Where OpenCode 1.x auto-loads plugin modules (probes 5.1): `.opencode/plugins/` or
    `~/.config/opencode/plugins/`. OPENCODE_CONFIG_DIR only adds a folder: with it set, the real
    opencode 1.18.33 still lists the plugin here in `debug config` (one copy, no duplicate)."""
    return loc.pick(".opencode/plugins", config_dir(loc.paths) / "plugins")


def _skill_roots(loc: Location) -> tuple[Path, ...]:
    home = loc.paths.home
    return (
        loc.pick(".opencode/skills", config_dir(loc.paths) / "skills"),
        loc.pick(".claude/skills", claude_dir(loc.paths) / "skills"),
        loc.pick(".agents/skills", home / ".agents" / "skills"),
    )


def _env_refs(text: str) -> str:
    return mcp.REF.sub(lambda m: "{env:" + m.group(1) + "}", text)


_OPENCODE_REF: Final = compile_later(r"\{env:([A-Za-z_][A-Za-z0-9_]*)\}")


def _from_env_refs(value: object) -> object:
    """`{env:NAME}` (OpenCode's reference) as `${NAME}` (the portable one), in every string."""
    if isinstance(value, str):
        return _OPENCODE_REF.sub(lambda m: "${" + m.group(1) + "}", value)
    if isinstance(value, list):
        return [_from_env_refs(item) for item in value]
    if isinstance(value, dict):
        return {key: _from_env_refs(item) for key, item in value.items()}
    return value


def portable_server(body: dict[str, object], notes: list[str]) -> dict[str, object]:
    """An `mcp.<name>` entry of opencode.json in portable keys (the inverse of `mcp_dialect`,
    for `uze export`): a local `command` array as command + args, `environment` as env,
    `{env:NAME}` as `${NAME}`; `type` local/remote is implied by command or url."""
    out = {key: value for key, value in body.items()
           if key not in ("type", "command", "environment")}
    command = body.get("command")
    if isinstance(command, list) and command:
        out["command"], out["args"] = command[0], command[1:]
    elif command is not None:
        out["command"] = command
    if "environment" in body:
        out["env"] = body["environment"]
    if body.get("type") not in ("local", "remote", None):
        notes.append(f"type {body.get('type')!r}: not OpenCode's local or remote; ignored")
    found = _from_env_refs(out)
    assert isinstance(found, dict)  # a dict stays a dict
    return found


def _config_file(loc: Location) -> Path:
    """opencode.json of the scope: the project's, or the user's config folder's."""
    return loc.pick("opencode.json", config_dir(loc.paths) / "opencode.json")


def mcp_dialect(server: McpServer) -> mcp.Translated:
    """`mcp.<name>` in opencode.json: `type` local/remote, command as one array (3.5)."""
    if server.url:
        headers = {k: _env_refs(v) for k, v in server.headers.items()}
        url = _env_refs(server.url)  # OpenCode substitutes {env:NAME} anywhere in its config
        value: dict[str, object] = {"type": "remote", "url": url, "enabled": server.enabled}
        return mcp.Translated(value | ({"headers": headers} if headers else {}))
    value = {"type": "local", "command": [server.command, *server.args], "enabled": server.enabled}
    if server.env:
        value["environment"] = {k: _env_refs(v) for k, v in server.env.items()}
    return mcp.drop_cwd(server, "OpenCode", mcp.Translated(value))


CAPABILITIES: Final[dict[tuple[str, str], Capability]] = {
    ("instructions", "base"): cap("native", "", "harnesses.md 3.1"),
    ("skill", "base"): cap("native", "", "harnesses.md 3.2"),
    ("skill", "invoke.user_only"): cap(
        "adapted", "OpenCode reads no invocation key of a skill (metadata and "
        "disable-model-invocation are ignored): uze keeps it from the model with "
        "permission.skill.<name> = \"deny\" in opencode.json; /<name> still runs it",
        "adr/0084, tests/conformance/test_opencode_invocation.py"),
    ("skill", "invoke.model_only"): cap(
        "degraded", "every OpenCode skill is also a /command: users can still invoke this "
        "model-only skill", "harnesses.md 3.3"),
    ("mcp", "base"): cap("native", "", "harnesses.md 3.5, probes 5.1"),
    ("agent", "base"): cap(
        "native", "", "harnesses.md 3.4 (mode: subagent)"),
    ("hook", "base"): cap(
        "adapted", "OpenCode has no command hooks: a generated plugin uze-<package>.js runs the "
        "hook wrappers (block = throw in tool.execute.before; no ask, no allow)",
        "harnesses.md 3.6, probes 5.4, tests/conformance (per group: uze/hooks)"),
    ("command", "base"): cap(
        "adapted", "an OpenCode command (.opencode/commands)",
        "harnesses.md 3, tests/conformance (opencode debug config: command)"),
    ("hook", "protocol.claude"): cap(
        "adapted", "Claude-protocol PreToolUse and PostToolUse hooks run by uze's translating "
        "wrapper from the generated plugin uze-<package>.js (a block throws in "
        "tool.execute.before; tool.execute.after appends the context to the tool's output, "
        "`continue: false` aborts the session); its other events only observe, so "
        "Claude-protocol groups on them are unsupported",
        "adr/0034, adr/0050, tests/conformance/test_claude_hooks.py, test_claude_hook_events.py "
        "(per group: uze/hooks/claude.py)"),
}
HOOK_EVENTS: Final = hook_events(
    # OpenCode has no shell hooks: the generated plugin uze-<package>.js maps
    # tool.execute.before/after and the session.created/session.idle bus events; throwing in
    # tool.execute.before blocks (harnesses.md 3.6). All four fire in `opencode run` with the
    # real 1.18.33 (tests/conformance/test_opencode_hook_bridge.py).
    {"PreToolUse": "tool.execute.before", "PostToolUse": "tool.execute.after",
     "Stop": "session.idle", "SessionStart": "session.created"},
    {"PreToolUse"}, ("command",),
    why_not={  # what opencode 1.18.33 offers instead, and why the bridge does not carry it
        "UserPromptSubmit": (
            "uze's generated OpenCode plugin bridges no prompt event (OpenCode 1.18.33's "
            "chat.message plugin hook is not bridged)"),
        "SubagentStop": (
            "OpenCode 1.18.33 has no event for a subagent's end that uze's plugin can bridge "
            "(a subagent is a child session; its session.idle is not told apart)"),
        "SessionEnd": (
            "OpenCode has no event for a session's end (1.18.33: session.created, "
            "session.idle at the end of each turn, session.compacted, session.deleted when a "
            "session is removed)"),
        "PreCompact": (
            "OpenCode 1.18.33 has a compaction plugin hook (experimental.session.compacting) "
            "and bus events (session.compaction.started), but uze's generated plugin does not "
            "bridge them"),
        "Notification": (
            "OpenCode has no notification hook (1.18.33; the nearest is the permission.asked "
            "bus event, which uze's plugin does not bridge)"),
    },
)

HOOKS: Final = HookTarget(
    file=plugins_dir, role="opencode plugin", fmt="json",
    effects=frozenset({"observe", "deny", "transform"}), layout="plugin",
    effect_why={
        "ask": "an OpenCode plugin cannot ask the user: tool.execute.before can only throw "
        "(block) or change the arguments, and the permission.ask hook is reported not to fire "
        "(harnesses.md 3.6)",
        "allow": "an OpenCode plugin cannot approve a call past OpenCode's own permission rules "
        "(tool.execute.before can only block or change the arguments)",
    },
    note="run by the generated OpenCode plugin {plugin} (OpenCode has no command hooks)",
)
# The tool ids of the real opencode 1.18.33 (probes 5.3 and its binary: `apply_patch` takes
# `patchText`).
TOOLS: Final = {
    "bash": ("shell",),
    "read": ("file.read",),
    "write": ("file.write",),
    "edit": ("file.edit",),
    "apply_patch": ("file.edit", "file.write"),
    "glob": ("search.files",),
    "grep": ("search.files",),
    "webfetch": ("search.web",),
    "websearch": ("search.web",),
    "task": ("agent.spawn",),
}
CLAUDE_TOOL_NAMES: Final = {
    "bash": "Bash",
    "read": "Read",
    "write": "Write",
    "edit": "Edit",
    "apply_patch": "Edit",
    "glob": "Glob",
    "grep": "Grep",
    "list": "LS",
    "webfetch": "WebFetch",
    "websearch": "WebSearch",
    "task": "Task",
    "todowrite": "TodoWrite",
}
_OBSERVED: Final = (
    "Claude-protocol hook on {event}: OpenCode's plugin bridge only observes {native}, so the "
    "handler's answer (block, context, stop) would be lost"
)


POWERS: Final = (
    Power("agent", "permission", "grants", "harnesses.md 3.4"),
    Power("agent", "permissions", "grants", "harnesses.md 3.4 (V2)"),
)


_CLAUDE_ONLY: Final = ("allowed-tools", "argument-hint", "model", "disable-model-invocation")


def _render_command(command: Command, _original: bytes) -> tuple[bytes, Route, str]:
    """A Markdown command: its templates read `$ARGUMENTS`, `$1`, `@file` and `` !`cmd` `` as
    Claude's do; Claude-only keys are left out (adapted)."""
    import yaml  # here: the registry imports this module, and only a command needs YAML

    front = yaml.safe_dump({"description": command.description}, sort_keys=False,
                           allow_unicode=True)
    found = [key for key in _CLAUDE_ONLY if key in command.frontmatter]
    why = f"Claude-only keys left out for OpenCode: {', '.join(found)}" if found else ""
    reason = "; ".join(filter(None, ["an OpenCode command (.opencode/commands)", why]))
    return f"---\n{front}---\n{command.body}".encode(), "adapted", reason


COMMANDS: Final = CommandSurface(
    lambda loc: loc.pick(".opencode/commands", config_dir(loc.paths) / "commands"), ".md",
    _render_command,
)


# A package's own OpenCode plugin modules (probes 5.1). uze does not load them (ADR 0045).
ENVELOPE: Final = Envelope(
    "uze does not run a package's own OpenCode plugin",
    folders=(".opencode/plugins/", ".opencode/plugin/"), suffixes=(".js", ".mjs", ".ts"),
    label="OpenCode plugin module", verb="loaded")


# Project scope (adr/0039, measured with opencode 1.18.33 in tests/conformance/test_teammate.py):
# `opencode mcp list` connects a `./`-relative command (servers start in the folder opencode
# was started in); the hook plugin in .opencode/plugins finds its wrappers relative to its own
# file (import.meta.url), two folders below the project root.
PROJECT_FORMS = ProjectForms(mcp=".", hook="../..",
                             source="adr/0039, tests/conformance/test_teammate.py")


HOOK_PROTOCOL: Final = HookProtocol(
    events=HOOK_EVENTS,
    tools=TOOLS,
    answer="throw",
    # The generated plugin (uze/hooks/opencode_plugin.py) acts on an answer in
    # tool.execute.before and tool.execute.after; its other events only observe.
    claude_events={"PreToolUse": "tool.execute.before", "PostToolUse": "tool.execute.after"},
    claude_refused={
        event: _OBSERVED.format(event=event, native=native)
        for event, native in (("Stop", "session.idle"), ("SessionStart", "session.created"))
    } | {
        event: f"Claude-protocol hook on {event}: {HOOK_EVENTS[event].why_not}"
        for event in ("PreCompact", "SessionEnd", "Notification")
    },
    claude_tools=CLAUDE_TOOL_NAMES,
    handler_why={kind: f"uze's generated OpenCode plugin runs command handlers only: no {kind} "
                 "handler" for kind in ("prompt", "agent")},
)


HARNESS = Harness(
    id="opencode",
    binary="opencode",
    project_forms=PROJECT_FORMS,
    envelope=ENVELOPE,
    markers=(".opencode", "opencode.json", "opencode.jsonc"),
    home=config_dir,
    instructions=Instructions(
        lambda loc: loc.pick("AGENTS.md", config_dir(loc.paths) / "AGENTS.md")),
    # Seen with the real opencode 1.18.33 (`opencode debug skill`): a name present in
    # .opencode/skills, .claude/skills and .agents/skills is listed once.
    skills=Skills(_skill_roots, dedupes=True, user_only=SkillSwitch(
        _config_file, "jsonc", lambda name: ("permission", "skill", name), "deny")),
    # opencode.json is parsed as JSONC: OpenCode accepts comments and trailing commas there.
    mcp=McpTarget(
        _config_file, "jsonc", lambda _loc, name: ("mcp", name), mcp_dialect,
        portable=portable_server,
    ),
    agents=AgentFormat(
        folder=lambda loc: loc.pick(".opencode/agents", config_dir(loc.paths) / "agents"),
        name_key=False,
        fixed={"mode": "subagent"},
        allowed=frozenset({
            "model", "temperature", "top_p", "maxSteps", "tools", "permission", "disable",
            "hidden", "color",
        }),
        allow="map", deny="map",
    ),
    capabilities=CAPABILITIES,
    hooks=HOOKS,
    hook_protocol=HOOK_PROTOCOL,
    commands=COMMANDS,
    trust=TrustFacts(powers=POWERS),
    doctor=DoctorFacts(
        probes=("opencode debug skill", "opencode agent list", "opencode mcp list")),
)
