"""The entry kind (an MCP server): one owned entry at a key path of a harness's JSON, JSONC or
TOML config, compared by value, never rewritten while the file does not parse."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from uze.artifacts import config
from uze.artifacts.kind import ADOPTABLE, Action
from uze.errors import Blocked, Conflict
from uze.projections import entry
from uze.projections.config_entry import MISSING, AddInfo, format_key_path
from uze.state.receipts import EntryArtifact
from uze.vocabulary import LiveState

if TYPE_CHECKING:
    from uze.plan.model import PlannedEntry
    from uze.state.context import Created, ScopeContext
    from uze.transaction import Transaction


def _key(target: str, key_path: tuple[str, ...]) -> str:
    return f"{target}#{format_key_path(key_path)}"


class EntryKind:
    """`Kind[PlannedEntry, EntryArtifact]`: a config entry uze added."""

    def planned_key(self, planned: PlannedEntry) -> str:
        return _key(planned.target, planned.key_path)

    def record_key(self, record: EntryArtifact) -> str:
        return _key(record.target, tuple(record.key_path))

    def seq(self, record: EntryArtifact) -> int | None:
        return record.seq

    def inspect(self, ctx: ScopeContext, record: EntryArtifact) -> LiveState:
        return entry.inspect(ctx.location.resolve(record.target), record.format,
                             tuple(record.key_path), record.digest)

    def check_free(self, ctx: ScopeContext, planned: PlannedEntry, key: str) -> None:
        config.check_is_file(planned.path, planned.target)
        self.check_shape(planned)
        found = entry.read_value(planned.path, planned.fmt, planned.key_path, planned.target)
        if found is not MISSING:
            raise Conflict(key, "an entry with this name is there and uze did not write it",
                           hint="rename the server in the package, or remove that entry yourself")

    def check_shape(self, planned: PlannedEntry) -> None:
        entry.check_reachable(planned.path, planned.fmt, planned.key_path, planned.target)

    def unchanged(self, planned: PlannedEntry, record: EntryArtifact) -> bool:
        return entry.value_digest(planned.value) == record.digest

    def blocked(self, ctx: ScopeContext, record: EntryArtifact) -> Blocked:
        try:
            entry.read_value(ctx.location.resolve(record.target), record.format,
                             tuple(record.key_path), record.target)
        except Blocked as exc:  # the parser's line:column
            return exc
        return config.unparsable(record.target)

    def edited(self, planned: PlannedEntry, key: str) -> Action:
        return config.kept_edit(key, planned.value)

    def adopt(self, ctx: ScopeContext, planned: PlannedEntry) -> EntryArtifact | None:
        """An MCP server (or named hook) entry already there as planned (adr/0040). uze did not
        see it added, so the record claims the entry's own key only: an uninstall takes the
        entry out and leaves the containers around it (`first_new_key` is the last key)."""
        info = AddInfo("tables" if planned.fmt == "toml" else "member", len(planned.key_path) - 1)
        record = EntryArtifact(target=planned.target, format=planned.fmt,
                               key_path=list(planned.key_path),
                               digest=entry.value_digest(planned.value),
                               add_info=dict(info.to_json()), harnesses=list(planned.harnesses))
        return record if self.inspect(ctx, record) in ADOPTABLE else None

    def write(self, tx: Transaction, ctx: ScopeContext, planned: PlannedEntry,
              old: EntryArtifact | None, created: Created) -> EntryArtifact:
        if old is not None and self.inspect(ctx, old) in ("matched", "drifted"):
            entry.replace(tx, planned.path, planned.fmt, planned.key_path, planned.value)
            info, seq = old.add_info, old.seq
        else:
            added, made_file = entry.add(tx, planned.path, planned.fmt, planned.key_path,
                                         planned.value, planned.target)
            info, seq = added.to_json(), tx.writes  # tx.writes only grows: adds are ordered
            if made_file:
                created.files.add(planned.target)
        return EntryArtifact(target=planned.target, format=planned.fmt,
                             key_path=list(planned.key_path),
                             digest=entry.value_digest(planned.value), add_info=dict(info),
                             seq=seq, harnesses=list(planned.harnesses))

    def merge(self, tx: Transaction, planned: PlannedEntry, old: EntryArtifact) -> EntryArtifact:
        """Nothing merges into an edited entry: it stays as the user left it (`edited` says
        `kept`, so install never calls this)."""
        return old

    def remove(self, tx: Transaction, ctx: ScopeContext, record: EntryArtifact,
               created: Created) -> None:
        if entry.remove(tx, ctx.location.resolve(record.target), record.format,
                        tuple(record.key_path), AddInfo.from_json(record.add_info),
                        record.target in created.files):
            created.files.discard(record.target)


KIND: Final = EntryKind()
