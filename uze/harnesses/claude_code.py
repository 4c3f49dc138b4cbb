"""Claude Code: CLAUDE.md, `.claude/skills/<name>/`, policy as frontmatter keys (harnesses.md 1)."""

from __future__ import annotations

from pathlib import Path

from uze.harnesses.base import Harness, Location, SkillDialect, on_path
from uze.package import InvokePolicy


def _config_dir(loc: Location) -> Path:
    return loc.paths.env_dir("CLAUDE_CONFIG_DIR", loc.paths.home / ".claude")


def _detect(loc: Location) -> bool:
    project = loc.project
    return (
        (project / ".claude").is_dir()
        or (project / "CLAUDE.md").is_file()
        or _config_dir(loc).is_dir()
        or on_path(loc.paths, "claude")
    )


def _instructions_file(loc: Location) -> Path:
    if loc.scope == "user":
        return _config_dir(loc) / "CLAUDE.md"
    return loc.project / "CLAUDE.md"


def _skill_root(loc: Location) -> Path:
    if loc.scope == "user":
        return _config_dir(loc) / "skills"
    return loc.project / ".claude" / "skills"


def _skill_dialect(policy: InvokePolicy) -> SkillDialect:
    keys: dict[str, object] = {}
    if not policy.model:
        keys["disable-model-invocation"] = True
    if not policy.user:
        keys["user-invocable"] = False
    return SkillDialect(frontmatter=keys)


HARNESS = Harness(
    id="claude_code",
    detect=_detect,
    instructions_file=_instructions_file,
    skill_root=_skill_root,
    skill_dialect=_skill_dialect,
)
