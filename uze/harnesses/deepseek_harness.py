"""DeepSeek Harness (dsh): AGENTS.md, `.dsh/skills` or `.agents/skills`, Claude's policy keys."""

from __future__ import annotations

from pathlib import Path

from uze.harnesses.base import Harness
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


HARNESS = Harness(
    id="deepseek_harness",
    binary="dsh",
    markers=(".dsh",),
    home=dsh_home,
    instructions_file=lambda loc: loc.pick("AGENTS.md", dsh_home(loc.paths) / "AGENTS.md"),
    skill_roots=_skill_roots,
    skill_dialect=skill_dialect,
    # DSH loads both AGENTS.md and CLAUDE.md in a project (harnesses.md 7).
    also_reads=lambda loc: (loc.project / "CLAUDE.md",) if loc.scope == "project" else (),
)
