"""DeepSeek Harness (dsh): AGENTS.md, `.dsh/skills` or `.agents/skills`, Claude's policy keys."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from uze.harnesses.base import (
    AS_SKILL,
    CLAUDE_TOOLS,
    NO_OFFLINE_BINARY,
    SAME_EVENTS,
    Capability,
    DoctorFacts,
    Harness,
    HookProtocol,
    Instructions,
    Skills,
    cap,
    hook_events,
    unclaimed_events,
)
from uze.harnesses.claude_code import skill_dialect
from uze.location import Location
from uze.paths import Paths


def dsh_home(paths: Paths) -> Path:
    """`$DSH_HOME`, else ~/.dsh (harnesses.md 7)."""
    return paths.env_dir("DSH_HOME", paths.home / ".dsh")


def _skill_roots(loc: Location) -> tuple[Path, ...]:
    agents_home = loc.paths.env_dir("DSH_AGENTS_HOME", loc.paths.home / ".agents")
    return (
        loc.pick(".agents/skills", agents_home / "skills"),
        loc.pick(".dsh/skills", dsh_home(loc.paths) / "skills"),
    )


CAPABILITIES: Final[dict[tuple[str, str], Capability]] = {
    ("instructions", "base"): cap("native", "", "harnesses.md 7"),
    ("skill", "base"): cap("native", "", "harnesses.md 7"),
    ("skill", "invoke.user_only"): cap("native", "", "harnesses.md 7"),
    ("skill", "invoke.model_only"): cap("native", "", "harnesses.md 7"),
    ("command", "base"): cap(
        "adapted", AS_SKILL.format(harness="DeepSeek Harness"), "harnesses.md 7"),
}
UNSUPPORTED: Final[dict[str, str]] = {
    "hook": "DeepSeek Harness runs hooks only through its dsh-hooks-claude-code bridge "
    "plugin, which takes ONE configPath per process in a profile's cordis.patch.yml: uze would "
    "have to edit the user's profile and could not give two packages each their own hooks file "
    "(adr/0010)",
    "mcp": "DeepSeek Harness takes MCP servers as dsh-mcp-client rows "
    "in a profile's cordis.patch.yml, which uze does not edit yet",
    "agent": "DeepSeek Harness has no Markdown agents, only Cordis agent "
    "presets (agent.cordis.yml), which uze does not generate",
}
HOOK_EVENTS: Final = hook_events(  # through its dsh-hooks-claude-code bridge: uze does
    SAME_EVENTS, {"PreToolUse", "Stop"}, ("command",),  # not deliver there (adr/0010)
    why_not=unclaimed_events("deepseek_harness", NO_OFFLINE_BINARY))


HARNESS = Harness(
    id="deepseek_harness",
    binary="dsh",
    markers=(".dsh",),
    home=dsh_home,
    instructions=Instructions(
        lambda loc: loc.pick("AGENTS.md", dsh_home(loc.paths) / "AGENTS.md"),
        # DSH loads both AGENTS.md and CLAUDE.md in a project (harnesses.md 7).
        also_reads=lambda loc: (loc.project / "CLAUDE.md",) if loc.scope == "project" else (),
    ),
    skills=Skills(_skill_roots, dialect=skill_dialect),
    capabilities=CAPABILITIES,
    unsupported=UNSUPPORTED,
    # Runs Claude-format hooks through its bridge plugin.
    hook_protocol=HookProtocol(events=HOOK_EVENTS, tools=CLAUDE_TOOLS, answer="claude"),
    doctor=DoctorFacts(not_runnable=NO_OFFLINE_BINARY),
    column="deepseek",
)
