"""Antigravity (agy): AGENTS.md, `.agents/skills` (harnesses.md 5; third-party, unverified)."""

from __future__ import annotations

from pathlib import Path

from uze import mcp_dialects
from uze.harnesses.base import Harness, McpTarget
from uze.location import Location
from uze.paths import Paths


def config_dir(paths: Paths) -> Path:
    """~/.gemini/config, the CLI's global customization root (harnesses.md 5.2)."""
    return paths.home / ".gemini" / "config"


def hooks_file(loc: Location) -> Path:
    """Named hooks: `.agents/hooks.json` or `~/.gemini/config/hooks.json` (harnesses.md 5.5)."""
    return loc.pick(".agents/hooks.json", config_dir(loc.paths) / "hooks.json")


HARNESS = Harness(
    id="antigravity",
    binary="agy",
    markers=(".antigravitycli",),
    home=lambda paths: paths.home / ".gemini" / "antigravity-cli",
    instructions_file=lambda loc: loc.pick("AGENTS.md", loc.paths.home / ".gemini" / "GEMINI.md"),
    skill_roots=lambda loc: (loc.pick(".agents/skills", config_dir(loc.paths) / "skills"),),
    mcp=McpTarget(
        lambda loc: loc.pick(".agents/mcp_config.json", config_dir(loc.paths) / "mcp_config.json"),
        "json", lambda _loc, name: ("mcpServers", name), mcp_dialects.antigravity,
    ),
)
