"""Codex CLI: AGENTS.md, `.agents/skills/<name>/`, policy in agents/openai.yaml (harnesses.md 2)."""

from __future__ import annotations

from pathlib import Path

import yaml

from uze.harnesses.base import Harness, Location, SkillDialect, on_path
from uze.package import InvokePolicy

OPENAI_YAML = "agents/openai.yaml"


def _codex_home(loc: Location) -> Path:
    return loc.paths.env_dir("CODEX_HOME", loc.paths.home / ".codex")


def _detect(loc: Location) -> bool:
    return (
        (loc.project / ".codex").is_dir()
        or _codex_home(loc).is_dir()
        or on_path(loc.paths, "codex")
    )


def _instructions_file(loc: Location) -> Path:
    if loc.scope == "user":
        return _codex_home(loc) / "AGENTS.md"
    return loc.project / "AGENTS.md"


def _skill_root(loc: Location) -> Path:
    # $CODEX_HOME/skills is deprecated; ~/.agents/skills is the current user root (2.2).
    if loc.scope == "user":
        return loc.paths.home / ".agents" / "skills"
    return loc.project / ".agents" / "skills"


def _openai_yaml(existing: bytes | None) -> bytes:
    """The skill's openai.yaml with policy.allow_implicit_invocation set to false."""
    data = yaml.safe_load(existing) if existing else None
    data = data if isinstance(data, dict) else {}
    policy = data.get("policy")
    data["policy"] = {**(policy if isinstance(policy, dict) else {}), "allow_implicit_invocation": False}
    return yaml.safe_dump(data, sort_keys=False).encode()


def _skill_dialect(policy: InvokePolicy) -> SkillDialect:
    if not policy.model:
        return SkillDialect(extra_files={OPENAI_YAML: _openai_yaml})
    return SkillDialect()


HARNESS = Harness(
    id="codex",
    detect=_detect,
    instructions_file=_instructions_file,
    skill_root=_skill_root,
    skill_dialect=_skill_dialect,
)
