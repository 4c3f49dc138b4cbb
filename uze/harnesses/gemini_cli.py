"""Gemini CLI: GEMINI.md, `.gemini/skills` or `.agents/skills`, Markdown agents (harnesses.md 4)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from uze import mcp_dialects
from uze.harnesses.base import (
    AS_SKILL,
    AgentFormat,
    Capability,
    Harness,
    McpTarget,
    cap,
    hook_events,
)
from uze.location import Location
from uze.paths import Paths


def gemini_dir(paths: Paths) -> Path:
    """`$GEMINI_CLI_HOME/.gemini`, else ~/.gemini (probes 4.1)."""
    return paths.env_dir("GEMINI_CLI_HOME", paths.home) / ".gemini"


def _skill_roots(loc: Location) -> tuple[Path, ...]:
    return (
        loc.pick(".agents/skills", loc.paths.home / ".agents" / "skills"),
        loc.pick(".gemini/skills", gemini_dir(loc.paths) / "skills"),
    )


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
        "UserPromptSubmit",
        "adr/0034, tests/conformance/test_claude_hooks.py (per group: uze/hooks/claude.py)"),
    ("mcp", "project"): cap(
        "adapted", "written to .gemini/settings.json, which Gemini CLI reads only in a trusted "
        "folder", "probes 4.1"),
    ("command", "base"): cap(
        "adapted", AS_SKILL.format(harness="Gemini CLI"),
        "harnesses.md 4.2, tests/conformance (gemini skills list)"),
}
HOOK_EVENTS: Final = hook_events(
    {"PreToolUse": "BeforeTool", "PostToolUse": "AfterTool", "Stop": "AfterAgent",
     "SessionStart": "SessionStart"},
    {"PreToolUse", "Stop"}, ("command",),
)


HARNESS = Harness(
    id="gemini_cli",
    binary="gemini",
    markers=(".gemini", "GEMINI.md"),
    home=gemini_dir,
    instructions_file=lambda loc: loc.pick("GEMINI.md", gemini_dir(loc.paths) / "GEMINI.md"),
    skill_roots=_skill_roots,
    mcp=McpTarget(
        lambda loc: loc.pick(".gemini/settings.json", gemini_dir(loc.paths) / "settings.json"),
        "jsonc", lambda _loc, name: ("mcpServers", name), mcp_dialects.gemini,
    ),
    agents=AgentFormat(
        folder=lambda loc: loc.pick(".gemini/agents", gemini_dir(loc.paths) / "agents"),
        allowed=frozenset({
            "kind", "tools", "mcpServers", "model", "temperature", "max_turns", "timeout_mins",
        }),
    ),
    capabilities=CAPABILITIES,
    hook_events=HOOK_EVENTS,
)
