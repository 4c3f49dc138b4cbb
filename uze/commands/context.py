"""Where one scope keeps its receipts, journal, lock and the folders uze created there."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Final

import blake3
import msgspec

from uze import fs
from uze.location import Location
from uze.paths import Paths, resolve_project
from uze.statcache import DigestCache, cache_file
from uze.transaction import Transaction, recover
from uze.vocabulary import Scope

if TYPE_CHECKING:  # the receipt models (msgspec) load only once there is a receipt (ADR 0015)
    from uze.receipts import Receipt

CREATED_SCHEMA: Final = 1


class ScopeContext(msgspec.Struct, frozen=True):
    """Every location one scope needs, derived from Paths once."""

    paths: Paths
    location: Location
    receipts_dir: Path
    created_file: Path
    journal_root: Path
    lock_path: Path
    hashes: DigestCache  # digests of delivered files by stat (ADR 0011); only status saves it

    @property
    def scope(self) -> Scope:
        """`project` or `user`."""
        return self.location.scope

    @property
    def key(self) -> str:
        """`user`, or `project-<16 hex of the root>`: names this scope's journal, lock and
        caches."""
        return self.journal_root.name

    def receipt_file(self, name: str) -> Path:
        """Where package `name`'s receipt lives in this scope."""
        from uze.receipts import receipt_path

        return receipt_path(self.receipts_dir, name)

    def stamp_file(self, name: str) -> Path:
        """Where the re-install stamp of package `name` lives (a cache, ADR 0016)."""
        return self.paths.uze_home / "cache" / f"installs-{self.key}" / f"{name}.json"

    def forget_stamp(self, name: str) -> None:
        """Drop the re-install stamp of `name` (uninstall), and its folder once empty."""
        path = self.stamp_file(name)
        fs.remove_file(path)
        fs.remove_dir_if_empty(path.parent)

    @property
    def consent_project(self) -> str:
        """The project a consent in this scope is for: its root, or "" in user scope."""
        return str(self.location.project) if self.scope == "project" else ""

    def consent_file(self, name: str) -> Path:
        """Where this user's consent for package `name` in this scope lives (ADR 0021)."""
        from uze.consent import consent_file

        return consent_file(self.paths.uze_home, self.key, name)

    def forget_consent(self, name: str) -> None:
        """Drop the consent for `name` (uninstall), and its folder once empty."""
        path = self.consent_file(name)
        fs.remove_file(path)
        fs.remove_dir_if_empty(path.parent)

    def receipt(self, name: str) -> Receipt | None:
        """The receipt of `name` in this scope, if any."""
        from uze.receipts import load_receipt

        path = self.receipt_file(name)
        return load_receipt(path) if path.exists() else None

    def receipts(self) -> list[Receipt]:
        """Every receipt in this scope."""
        if not self.receipts_dir.is_dir():  # as list_receipts, without importing it
            return []
        from uze.receipts import list_receipts

        return list_receipts(self.receipts_dir)


def open_scope(paths: Paths, scope: Scope, project: Path | None, cwd: Path) -> ScopeContext:
    """The ScopeContext for `scope`; the project is resolved even for user scope (detection)."""
    root = resolve_project(project, cwd)
    loc = Location(scope, root, paths)
    if scope == "user":
        return ScopeContext(
            paths, loc, paths.user_receipts, paths.uze_home / "user-created.json",
            paths.uze_home / "journal" / "user", paths.uze_home / "locks" / "user.lock",
            DigestCache(cache_file(paths.uze_home, "user")),
        )
    key = "project-" + blake3.blake3(str(root).encode()).hexdigest()[:16]
    return ScopeContext(
        paths, loc, root / ".uze" / "receipts", root / ".uze" / "created.json",
        paths.uze_home / "journal" / key, paths.uze_home / "locks" / f"{key}.lock",
        DigestCache(cache_file(paths.uze_home, key)),
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


class Created(msgspec.Struct):
    """Folders and shared files uze created in a scope, as targets (ADR 0001).

    Kept per scope, not per receipt: the package that created `.claude/skills` or AGENTS.md
    may be uninstalled before the others that use it.
    """

    dirs: set[str] = msgspec.field(default_factory=set)
    files: set[str] = msgspec.field(default_factory=set)


def load_created(ctx: ScopeContext) -> Created:
    """What uze created in this scope."""
    if not ctx.created_file.exists():
        return Created()
    data = json.loads(ctx.created_file.read_bytes())
    return Created(set(data.get("dirs", [])), set(data.get("files", [])))


def save_created(tx: Transaction, ctx: ScopeContext, created: Created) -> None:
    """Record what uze created (only if it changed); forget the record when it is empty."""
    if created == load_created(ctx):
        return
    if not created.dirs and not created.files:
        tx.remove(ctx.created_file)
        return
    body = {"schema_version": CREATED_SCHEMA, "dirs": sorted(created.dirs),
            "files": sorted(created.files)}
    tx.write(ctx.created_file, (json.dumps(body, indent=2, sort_keys=True) + "\n").encode())


def register_project(tx: Transaction, paths: Paths, project: Path, present: bool) -> None:
    """Keep $UZE_HOME/projects.json (the projects holding receipts: GC roots) up to date."""
    registry = paths.projects_registry
    known = set(json.loads(registry.read_bytes())["projects"]) if registry.exists() else set()
    updated = (known | {str(project)}) if present else (known - {str(project)})
    if updated != known:
        body = {"projects": sorted(updated), "schema_version": 1}
        tx.write(registry, (json.dumps(body, indent=2, sort_keys=True) + "\n").encode())
