"""`uze store verify | gc`: re-hash every object; collect what no receipt references."""

from __future__ import annotations

import msgspec

from uze import fs
from uze.paths import Paths
from uze.state.context import registered_projects
from uze.state.receipts import list_receipts
from uze.store import GcReport, Store, VerifyReport


class GcResult(msgspec.Struct, frozen=True):
    """What gc removed, and the receipts it kept alive."""

    report: GcReport
    live_trees: int
    projects: tuple[str, ...]


def verify(paths: Paths) -> VerifyReport:
    """Re-hash every object and tree of the store (read-only)."""
    return Store(paths.store).verify()


def live_trees(paths: Paths) -> tuple[set[str], tuple[str, ...]]:
    """Tree digests referenced by any receipt: user scope and every registered project."""
    projects = registered_projects(paths)
    folders = [paths.user_receipts, *(p / ".uze" / "receipts" for p in projects)]
    trees = {receipt.tree for folder in folders for receipt in list_receipts(folder)}
    return trees, tuple(str(p) for p in projects)


def gc(paths: Paths) -> GcResult:
    """Delete every store object no receipt references, under the store lock.

    Installs take the store lock for their whole run, so a concurrent install either finished
    (its receipt is a root) or has not ingested yet.
    """
    with fs.file_lock(paths.uze_home / "locks" / "store.lock", paths.lock_timeout):
        trees, projects = live_trees(paths)
        report = Store(paths.store).gc(trees)
    return GcResult(report, len(trees), projects)
