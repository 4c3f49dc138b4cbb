"""Where one scope keeps its receipts, journal, lock and the folders uze created there."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import blake3

from uze import fs
from uze.harnesses import Location
from uze.harnesses.base import Scope
from uze.paths import Paths, resolve_project
from uze.receipts import Receipt, list_receipts, load_receipt, receipt_path
from uze.transaction import Transaction, recover

DIRS_SCHEMA: Final = 1


@dataclass(frozen=True, slots=True)
class ScopeContext:
    """Every location one scope needs, derived from Paths once."""

    paths: Paths
    location: Location
    receipts_dir: Path
    dirs_file: Path
    journal_root: Path
    lock_path: Path

    @property
    def scope(self) -> Scope:
        """`project` or `user`."""
        return self.location.scope

    def receipt_file(self, name: str) -> Path:
        """Where package `name`'s receipt lives in this scope."""
        return receipt_path(self.receipts_dir, name)

    def receipt(self, name: str) -> Receipt | None:
        """The receipt of `name` in this scope, if any."""
        path = self.receipt_file(name)
        return load_receipt(path) if path.exists() else None

    def receipts(self) -> list[Receipt]:
        """Every receipt in this scope."""
        return list_receipts(self.receipts_dir)


def open_scope(paths: Paths, scope: Scope, project: Path | None, cwd: Path) -> ScopeContext:
    """The ScopeContext for `scope`; the project is resolved even for user scope (detection)."""
    root = resolve_project(project, cwd)
    loc = Location(scope, root, paths)
    if scope == "user":
        return ScopeContext(
            paths, loc, paths.user_receipts, paths.uze_home / "user-created-dirs.json",
            paths.uze_home / "journal" / "user", paths.uze_home / "locks" / "user.lock",
        )
    key = "project-" + blake3.blake3(str(root).encode()).hexdigest()[:16]
    return ScopeContext(
        paths, loc, root / ".uze" / "receipts", root / ".uze" / "created-dirs.json",
        paths.uze_home / "journal" / key, paths.uze_home / "locks" / f"{key}.lock",
    )


@contextlib.contextmanager
def locked(ctx: ScopeContext, *, store: bool) -> Iterator[None]:
    """Take the store lock (if asked) then this scope's lock, in that fixed order.

    Once held, a transaction a crashed command left behind is rolled back first.
    """
    with contextlib.ExitStack() as stack:
        if store:
            lock = ctx.paths.uze_home / "locks" / "store.lock"
            stack.enter_context(fs.file_lock(lock, ctx.paths.lock_timeout))
        stack.enter_context(fs.file_lock(ctx.lock_path, ctx.paths.lock_timeout))
        recover(ctx.journal_root)
        yield


def load_created_dirs(ctx: ScopeContext) -> list[str]:
    """Folders uze created in this scope (relative to the project or absolute)."""
    if not ctx.dirs_file.exists():
        return []
    data = json.loads(ctx.dirs_file.read_bytes())
    return list(data.get("dirs", []))


def save_created_dirs(tx: Transaction, ctx: ScopeContext, dirs: list[str]) -> None:
    """Record the folders uze created; forget the file when there are none."""
    if not dirs:
        tx.remove(ctx.dirs_file)
        return
    body = {"schema_version": DIRS_SCHEMA, "dirs": sorted(set(dirs))}
    tx.write(ctx.dirs_file, (json.dumps(body, indent=2, sort_keys=True) + "\n").encode())


def register_project(tx: Transaction, paths: Paths, project: Path, present: bool) -> None:
    """Keep $UZE_HOME/projects.json (the projects holding receipts: GC roots) up to date."""
    registry = paths.projects_registry
    known = set(json.loads(registry.read_bytes())["projects"]) if registry.exists() else set()
    updated = (known | {str(project)}) if present else (known - {str(project)})
    if updated != known:
        body = {"projects": sorted(updated), "schema_version": 1}
        tx.write(registry, (json.dumps(body, indent=2, sort_keys=True) + "\n").encode())
