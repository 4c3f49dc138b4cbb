"""The element kind (a hook group): one element uze appended to an array of a harness's
config, found by the digest of its value; an element that still runs uze's wrapper (`marker`)
but no longer matches is the user's edit."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from uze.artifacts import config
from uze.artifacts.kind import ADOPTABLE, Action
from uze.errors import Blocked
from uze.projections import element, entry
from uze.projections.config_array import ElementInfo
from uze.projections.config_entry import MISSING, format_key_path
from uze.state.receipts import ElementArtifact
from uze.vocabulary import LiveState

if TYPE_CHECKING:
    from uze.plan.model import PlannedElement
    from uze.state.context import Created, ScopeContext
    from uze.transaction import Transaction


def _key(target: str, key_path: tuple[str, ...], group: str) -> str:
    return f"{target}#{format_key_path(key_path)}[{group}]"


class ElementKind:
    """`Kind[PlannedElement, ElementArtifact]`: an array element uze appended."""

    def planned_key(self, planned: PlannedElement) -> str:
        return _key(planned.target, planned.key_path, planned.group)

    def record_key(self, record: ElementArtifact) -> str:
        return _key(record.target, tuple(record.key_path), record.group)

    def seq(self, record: ElementArtifact) -> int | None:
        return record.seq

    def inspect(self, ctx: ScopeContext, record: ElementArtifact,
                value: object = MISSING) -> LiveState:
        """`value`: the value of the record's digest, when known (fewer elements hashed)."""
        return element.inspect(ctx.location.resolve(record.target), record.format,
                               tuple(record.key_path), record.digest, record.marker, value)

    def check_free(self, ctx: ScopeContext, planned: PlannedElement, key: str) -> None:
        config.check_is_file(planned.path, planned.target)
        self.check_shape(planned)

    def check_shape(self, planned: PlannedElement) -> None:
        entry.check_reachable(planned.path, planned.fmt, planned.key_path, planned.target)
        element.check_writable(planned.path, planned.fmt, planned.key_path, planned.target)

    def unchanged(self, planned: PlannedElement, record: ElementArtifact) -> bool:
        return entry.value_digest(planned.value) == record.digest

    def blocked(self, ctx: ScopeContext, record: ElementArtifact) -> Blocked:
        try:
            element.check_writable(ctx.location.resolve(record.target), record.format,
                                   tuple(record.key_path), record.target)
        except Blocked as exc:  # the parser's line:column
            return exc
        return config.unparsable(record.target)

    def edited(self, planned: PlannedElement, key: str) -> Action:
        return config.kept_edit(key, planned.value)

    def adopt(self, ctx: ScopeContext, planned: PlannedElement) -> ElementArtifact | None:
        """A hook element already there as planned (adr/0040): the record claims the element
        alone, appended to an array that was there (TOML: its own `[[...]]` table)."""
        info = ElementInfo("table" if planned.fmt == "toml" else "element")
        record = ElementArtifact(target=planned.target, format=planned.fmt,
                                 key_path=list(planned.key_path), group=planned.group,
                                 digest=entry.value_digest(planned.value),
                                 marker=planned.marker, info=dict(info.to_json()),
                                 harnesses=list(planned.harnesses))
        return record if self.inspect(ctx, record, planned.value) in ADOPTABLE else None

    def write(self, tx: Transaction, ctx: ScopeContext, planned: PlannedElement,
              old: ElementArtifact | None, created: Created) -> ElementArtifact:
        if old is not None and self.inspect(ctx, old) in ("matched", "drifted"):
            self.remove(tx, ctx, old, created)  # a changed group: take ours out, put the new in
        info, made_file = element.append(tx, planned.path, planned.fmt, planned.key_path,
                                         planned.value, planned.target)
        if made_file:
            created.files.add(planned.target)
        return ElementArtifact(target=planned.target, format=planned.fmt,
                               key_path=list(planned.key_path), group=planned.group,
                               digest=entry.value_digest(planned.value), marker=planned.marker,
                               info=dict(info.to_json()), seq=tx.writes,
                               harnesses=list(planned.harnesses))

    def merge(self, tx: Transaction, planned: PlannedElement,
              old: ElementArtifact) -> ElementArtifact:
        """Nothing merges into an edited element: it stays as the user left it (`edited` says
        `kept`, so install never calls this)."""
        return old

    def remove(self, tx: Transaction, ctx: ScopeContext, record: ElementArtifact,
               created: Created) -> None:
        if element.remove(tx, ctx.location.resolve(record.target), record.format,
                          tuple(record.key_path), record.digest, record.marker,
                          ElementInfo.from_json(record.info), record.target in created.files):
            created.files.discard(record.target)


KIND: Final = ElementKind()
