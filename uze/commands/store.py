"""`uze store verify | gc`: re-hash every object; collect what no receipt references."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

import msgspec

from uze import fs
from uze.errors import UzeError
from uze.paths import Paths
from uze.state.context import registered_projects
from uze.state.receipts import list_receipts
from uze.store import GcReport, Store, VerifyReport

# A tree digest as a receipt's JSON names it: what a receipt gc cannot parse still keeps alive.
_NAMED_TREE: Final = re.compile(rb'"tree"\s*:\s*"([0-9a-f]{64})"')


class GcResult(msgspec.Struct, frozen=True):
    """What gc removed, the receipts it kept alive, and the projects it skipped."""

    report: GcReport
    live_trees: int
    projects: tuple[str, ...]
    skipped: tuple[str, ...] = ()  # "<project>: <why>", one per project whose receipts failed

    @property
    def notes(self) -> tuple[str, ...]:
        """What the command line prints on stderr: each skipped project and why."""
        return tuple(f"skipped project {line}; the trees its receipts name are kept"
                     for line in self.skipped)


def verify(paths: Paths) -> VerifyReport:
    """Re-hash every object and tree of the store (read-only)."""
    return Store(paths.store).verify()


def _named_trees(folder: Path, store: Store) -> set[str]:
    """Every tree of `store` the receipt files in `folder` name, read as bytes (for a project
    whose receipts cannot be parsed: its objects stay; a file that cannot be read names none)."""
    found: set[str] = set()
    try:
        files = [p for p in folder.iterdir() if p.name.endswith(".json")]
    except OSError:
        return found
    for path in files:
        try:
            found.update(m.decode() for m in _NAMED_TREE.findall(path.read_bytes()))
        except OSError:
            continue
    return {digest for digest in found if store.has_tree(digest)}


def live_trees(paths: Paths) -> tuple[set[str], tuple[str, ...], tuple[str, ...]]:
    """Tree digests referenced by any receipt (user scope and every registered project), the
    projects, and the projects skipped ("<project>: <why>"): a project whose receipts cannot
    be read is skipped, not fatal, and the trees its receipt files name stay live. Raises
    UzeError when a user-scope receipt (this user's own, under $UZE_HOME) cannot be read."""
    projects = registered_projects(paths)
    trees = {receipt.tree for receipt in list_receipts(paths.user_receipts)}
    skipped = []
    for project in projects:
        folder = project / ".uze" / "receipts"
        try:
            trees |= {receipt.tree for receipt in list_receipts(folder)}
        except (UzeError, OSError) as exc:
            why = exc.message if isinstance(exc, UzeError) else f"cannot read {folder}: {exc}"
            skipped.append(f"{project} ({why})")
            trees |= _named_trees(folder, Store(paths.store))
    return trees, tuple(str(p) for p in projects), tuple(skipped)


def gc(paths: Paths) -> GcResult:
    """Delete every store object no receipt references, under the store lock.

    Installs take the store lock for their whole run, so a concurrent install either finished
    (its receipt is a root) or has not ingested yet.
    """
    with fs.file_lock(paths.uze_home / "locks" / "store.lock", paths.lock_timeout):
        trees, projects, skipped = live_trees(paths)
        report = Store(paths.store).gc(trees)
    return GcResult(report, len(trees), projects, skipped)
