"""Antigravity (agy): AGENTS.md, `.agents/skills` (harnesses.md 5; third-party, unverified)."""

from __future__ import annotations

from pathlib import Path

from uze.paths import Paths
from uze.harnesses.base import Harness


def config_dir(paths: Paths) -> Path:
    """~/.gemini/config, the CLI's global customization root (harnesses.md 5.2)."""
    return paths.home / ".gemini" / "config"


HARNESS = Harness(
    id="antigravity",
    binary="agy",
    markers=(".antigravitycli",),
    home=lambda paths: paths.home / ".gemini" / "antigravity-cli",
    instructions_file=lambda loc: loc.pick("AGENTS.md", loc.paths.home / ".gemini" / "GEMINI.md"),
    skill_roots=lambda loc: (loc.pick(".agents/skills", config_dir(loc.paths) / "skills"),),
)
