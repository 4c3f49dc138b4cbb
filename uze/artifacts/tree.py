"""The folder kind (a skill, a hook wrapper folder, a plugin root): created whole, inspected
file by file, merged file by file when the user edited it, removed only if unedited."""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING, Final

from uze.artifacts import beside
from uze.artifacts.kind import ADOPTABLE, Action
from uze.errors import Blocked, ForeignFile
from uze.projections import tree
from uze.state.receipts import TreeArtifact
from uze.vocabulary import LiveState

if TYPE_CHECKING:
    from uze.plan.model import PlannedTree
    from uze.state.context import Created, ScopeContext
    from uze.transaction import Transaction


class TreeKind:
    """`Kind[PlannedTree, TreeArtifact]`: a folder uze writes whole."""

    def planned_key(self, planned: PlannedTree) -> str:
        return planned.target

    def record_key(self, record: TreeArtifact) -> str:
        return record.target

    def seq(self, record: TreeArtifact) -> int | None:
        return None

    def inspect(self, ctx: ScopeContext, record: TreeArtifact) -> LiveState:
        return tree.inspect(ctx.location.resolve(record.target), record.files, ctx.hashes)

    def check_free(self, ctx: ScopeContext, planned: PlannedTree, key: str) -> None:
        if planned.path.exists() or planned.path.is_symlink():
            raise ForeignFile(planned.target)

    def check_shape(self, planned: PlannedTree) -> None:
        return

    def unchanged(self, planned: PlannedTree, record: TreeArtifact) -> bool:
        return tree.digests_of(planned.files) == record.files

    def blocked(self, ctx: ScopeContext, record: TreeArtifact) -> Blocked:
        raise AssertionError("a folder never inspects as blocked")

    def edited(self, planned: PlannedTree, key: str) -> Action:
        return Action(key, "merge", "edited since install; kept, the new version written beside "
                                    "it as .uze-new")

    def adopt(self, ctx: ScopeContext, planned: PlannedTree) -> TreeArtifact | None:
        # No folder there (the usual case) inspects as missing or conflict whatever the
        # record: asked first, it spares digesting every planned file for nothing.
        try:
            there = stat.S_ISDIR(os.lstat(ctx.location.resolve(planned.target)).st_mode)
        except (FileNotFoundError, NotADirectoryError):
            there = False
        if not there:
            return None
        record = _record(planned)
        return record if self.inspect(ctx, record) in ADOPTABLE else None

    def write(self, tx: Transaction, ctx: ScopeContext, planned: PlannedTree,
              old: TreeArtifact | None, created: Created) -> TreeArtifact:
        if old is not None and self.inspect(ctx, old) != "missing":
            self.remove(tx, ctx, old, created)
        tree.write(tx, planned.path, planned.files, planned.executables)
        return _record(planned)

    def merge(self, tx: Transaction, planned: PlannedTree, old: TreeArtifact) -> TreeArtifact:
        """Each file as `beside` says. Edited files keep their old digest, so the folder still
        reads as drifted; a file uze never wrote there (the user's own, at a path the new
        version ships) stays out of the record, so it stays the user's: uninstall never removes
        it."""
        new = tree.digests_of(planned.files)
        record: dict[str, str] = {}
        for rel, data in sorted(planned.files.items()):
            path, was = planned.path / rel, old.files.get(rel)
            live = beside.live_digest(path)
            if live is None or (was is not None and live in (new[rel], was)):
                if live != new[rel]:
                    tx.write(path, data, 0o755 if rel in planned.executables else 0o644)
                record[rel] = new[rel]
                continue
            if was is not None:
                record[rel] = was
            if was != new[rel] and live != new[rel]:
                beside.write_beside(tx, path, data)
        for rel, digest in old.files.items():
            if rel not in planned.files and beside.live_digest(planned.path / rel) == digest:
                tx.remove(planned.path / rel)
        return TreeArtifact(target=planned.target, files=record,
                            executables=sorted(planned.executables),
                            harnesses=list(planned.harnesses))

    def remove(self, tx: Transaction, ctx: ScopeContext, record: TreeArtifact,
               created: Created) -> None:
        tree.remove(tx, ctx.location.resolve(record.target))


def _record(planned: PlannedTree) -> TreeArtifact:
    return TreeArtifact(target=planned.target, files=tree.digests_of(planned.files),
                        executables=sorted(planned.executables),
                        harnesses=list(planned.harnesses))


KIND: Final = TreeKind()
