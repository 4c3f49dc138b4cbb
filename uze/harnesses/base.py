"""What a harness module provides: where things go in that harness and how to dialect them."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from uze.package import InvokePolicy
from uze.paths import Paths

Scope = Literal["project", "user"]


@dataclass(frozen=True, slots=True)
class Location:
    """Where a scope's artifacts live: the project root, or None for user scope."""

    scope: Scope
    project: Path
    paths: Paths

    def display(self, path: Path) -> str:
        """A target as users read it: project-relative, `~/`-relative, or absolute."""
        if self.scope == "project" and path.is_relative_to(self.project):
            return path.relative_to(self.project).as_posix()
        if path.is_relative_to(self.paths.home):
            return "~/" + path.relative_to(self.paths.home).as_posix()
        return path.as_posix()

    def resolve(self, target: str) -> Path:
        """The inverse of display: a receipt's target back to an absolute path."""
        if target.startswith("~/"):
            return self.paths.home / target[2:]
        candidate = Path(target)
        return candidate if candidate.is_absolute() else self.project / candidate


@dataclass(frozen=True, slots=True)
class SkillDialect:
    """Harness-specific additions to a skill: frontmatter keys and extra generated files."""

    frontmatter: Mapping[str, object] = field(default_factory=dict)
    extra_files: Mapping[str, Callable[[bytes | None], bytes]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Harness:
    """One harness: detection, locations and dialect. A new harness is one module + one line."""

    id: str
    detect: Callable[[Location], bool]
    instructions_file: Callable[[Location], Path]
    skill_root: Callable[[Location], Path]
    skill_dialect: Callable[[InvokePolicy], SkillDialect]


def on_path(paths: Paths, binary: str) -> bool:
    """Whether `binary` is on the PATH uze was started with."""
    return shutil.which(binary, path=paths.env.get("PATH", "")) is not None


def invoke_feature(policy: InvokePolicy) -> str:
    """The capability feature an invocation policy needs."""
    if not policy.model:
        return "invoke.user_only"
    if not policy.user:
        return "invoke.model_only"
    return "base"
