"""Gemini CLI: GEMINI.md, `.gemini/skills` or `.agents/skills`, Markdown agents (harnesses.md 4)."""

from __future__ import annotations

from pathlib import Path

from uze import mcp_dialects
from uze.harnesses.base import AgentFormat, Harness, McpTarget
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
)
