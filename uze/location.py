"""Location: where one scope's artifacts live, and how targets are shown and resolved.

Kept outside `uze.harnesses` so read-only commands (status, list) do not import every harness.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from uze.errors import UsageError
from uze.paths import Paths
from uze.vocabulary import Scope


def checked_scope(value: str, allowed: tuple[str, ...]) -> Any:
    """`value` if it is one of the `allowed` --scope values; else a UsageError naming them."""
    if value not in allowed:
        raise UsageError(f"invalid --scope {value!r}", hint=f"use one of: {', '.join(allowed)}")
    return value


_RESOLVED: dict[tuple[Path, Path, str], Path] = {}
_RESOLVED_MAX = 65_536  # about 10 MB of paths at most


class Location(msgspec.Struct, frozen=True):
    """Where a scope's artifacts live: the project root (resolved even for user scope)."""

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
        """The inverse of display: a receipt's target back to an absolute path. Remembered
        per project, HOME and target: status resolves the targets of 200 packages, most of
        them in the same few settings files, and a Path join costs more than the lookup."""
        key = (self.project, self.paths.home, target)
        found = _RESOLVED.get(key)
        if found is None:
            if len(_RESOLVED) >= _RESOLVED_MAX:
                _RESOLVED.clear()
            # an absolute target replaces the project (pathlib joins)
            found = _RESOLVED[key] = self.paths.home / target[2:] if target.startswith("~/") \
                else self.project / target
        return found

    def pick(self, project: str, user: Path) -> Path:
        """`project` (relative to the project root) in project scope, else `user`."""
        return self.project / project if self.scope == "project" else user
