"""OpenCode (V1, 1.18): AGENTS.md, skills from three roots, Markdown subagents (harnesses.md 3)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from uze import mcp_dialects
from uze.harnesses.base import (
    AgentFormat,
    Capability,
    Harness,
    McpTarget,
    cap,
    hook_events,
)
from uze.harnesses.claude_code import config_dir as claude_dir
from uze.location import Location
from uze.paths import Paths


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


CAPABILITIES: Final[dict[tuple[str, str], Capability]] = {
    ("instructions", "base"): cap("native", "", "harnesses.md 3.1"),
    ("skill", "base"): cap("native", "", "harnesses.md 3.2"),
    ("skill", "invoke.user_only"): cap(
        "degraded", "OpenCode has no switch that stops the model from invoking a skill: the "
        "model can still run this user-only skill", "harnesses.md 3.3"),
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
        "adapted", "Claude-protocol PreToolUse hooks run by uze's translating wrapper from the "
        "generated plugin uze-<package>.js (a block throws in tool.execute.before); its other "
        "events only observe, so Claude-protocol groups on them are unsupported",
        "adr/0034, tests/conformance/test_claude_hooks.py (per group: uze/hooks/claude.py)"),
}
HOOK_EVENTS: Final = hook_events(
    # OpenCode has no shell hooks: the generated plugin uze-<package>.js maps
    # tool.execute.before/after and the session.created/session.idle bus events; throwing in
    # tool.execute.before blocks (harnesses.md 3.6). All four fire in `opencode run` with the
    # real 1.18.33 (tests/conformance/test_opencode_hook_bridge.py).
    {"PreToolUse": "tool.execute.before", "PostToolUse": "tool.execute.after",
     "Stop": "session.idle", "SessionStart": "session.created"},
    {"PreToolUse"}, ("plugin",),
)


HARNESS = Harness(
    id="opencode",
    binary="opencode",
    markers=(".opencode", "opencode.json", "opencode.jsonc"),
    home=config_dir,
    instructions_file=lambda loc: loc.pick("AGENTS.md", config_dir(loc.paths) / "AGENTS.md"),
    skill_roots=_skill_roots,
    # Seen with the real opencode 1.18.33 (`opencode debug skill`): a name present in
    # .opencode/skills, .claude/skills and .agents/skills is listed once.
    dedupes_skills=True,
    # opencode.json is parsed as JSONC: OpenCode accepts comments and trailing commas there.
    mcp=McpTarget(
        lambda loc: loc.pick("opencode.json", config_dir(loc.paths) / "opencode.json"),
        "jsonc", lambda _loc, name: ("mcp", name), mcp_dialects.opencode,
    ),
    agents=AgentFormat(
        folder=lambda loc: loc.pick(".opencode/agents", config_dir(loc.paths) / "agents"),
        name_key=False,
        fixed={"mode": "subagent"},
        allowed=frozenset({
            "model", "temperature", "top_p", "maxSteps", "tools", "permission", "disable",
            "hidden", "color",
        }),
    ),
    capabilities=CAPABILITIES,
    hook_events=HOOK_EVENTS,
)
