"""The file kind (an agent definition, a command file, a hook bridge): written whole, the new
version written beside it when the user edited it, removed only if unedited."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from uze.artifacts import beside
from uze.artifacts.kind import ADOPTABLE, Action
from uze.errors import Blocked, ForeignFile
from uze.projections import file
from uze.projections.digest import content_digest
from uze.state.receipts import FileArtifact
from uze.vocabulary import LiveState

if TYPE_CHECKING:
    from uze.plan.model import PlannedFile
    from uze.state.context import Created, ScopeContext
    from uze.transaction import Transaction


class FileKind:
    """`Kind[PlannedFile, FileArtifact]`: a whole file uze writes."""

    def planned_key(self, planned: PlannedFile) -> str:
        return planned.target

    def record_key(self, record: FileArtifact) -> str:
        return record.target

    def seq(self, record: FileArtifact) -> int | None:
        return None

    def inspect(self, ctx: ScopeContext, record: FileArtifact) -> LiveState:
        return file.inspect(ctx.location.resolve(record.target), record.digest, ctx.hashes)

    def check_free(self, ctx: ScopeContext, planned: PlannedFile, key: str) -> None:
        if planned.path.exists() or planned.path.is_symlink():
            raise ForeignFile(planned.target)

    def check_shape(self, planned: PlannedFile) -> None:
        return

    def unchanged(self, planned: PlannedFile, record: FileArtifact) -> bool:
        return content_digest(planned.data) == record.digest

    def blocked(self, ctx: ScopeContext, record: FileArtifact) -> Blocked:
        raise AssertionError("a file never inspects as blocked")

    def edited(self, planned: PlannedFile, key: str) -> Action:
        where = beside.beside_path(planned.path, planned.data)[0]  # one there already is theirs
        return Action(key, "merge",
                      f"edited since install; kept, the new version beside it as {where.name}")

    def adopt(self, ctx: ScopeContext, planned: PlannedFile) -> FileArtifact | None:
        record = _record(planned)
        return record if self.inspect(ctx, record) in ADOPTABLE else None

    def write(self, tx: Transaction, ctx: ScopeContext, planned: PlannedFile,
              old: FileArtifact | None, created: Created) -> FileArtifact:
        file.write(tx, planned.path, planned.data)
        return _record(planned)

    def merge(self, tx: Transaction, planned: PlannedFile, old: FileArtifact) -> FileArtifact:
        """The new version beside the edited file; the record keeps the digest uze wrote, so
        the file keeps reading as drifted."""
        beside.write_beside(tx, planned.path, planned.data)
        return FileArtifact(target=planned.target, digest=old.digest,
                            harnesses=list(planned.harnesses))

    def remove(self, tx: Transaction, ctx: ScopeContext, record: FileArtifact,
               created: Created) -> None:
        file.remove(tx, ctx.location.resolve(record.target))


def _record(planned: PlannedFile) -> FileArtifact:
    return FileArtifact(target=planned.target, digest=content_digest(planned.data),
                        harnesses=list(planned.harnesses))


KIND: Final = FileKind()
