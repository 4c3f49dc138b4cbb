"""The artifact-kind protocol (ADR 0036): every question install, upgrade, uninstall and status
ask of one artifact, answered by its kind.

`P` is the kind's planned shape (`uze.plan.PlannedTree`, ...), `R` its receipt record
(`uze.state.receipts.TreeArtifact`, ...). A kind never sees another kind's values: the callers look
the kind up by the value's `type` (`uze.artifacts.registry`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Protocol, TypeVar

import msgspec

from uze import vocabulary
from uze.vocabulary import LiveState

if TYPE_CHECKING:
    from uze.errors import Blocked
    from uze.state.context import Created, ScopeContext
    from uze.transaction import Transaction

P = TypeVar("P", contravariant=True)
R = TypeVar("R")


# The live states in which `adopt` takes an artifact over: as planned, or a committed edit.
ADOPTABLE: Final[frozenset[LiveState]] = frozenset({"matched", "drifted"})


class Action(msgspec.Struct, frozen=True):
    """What install or uninstall does (or would do) to one artifact."""

    target: str
    action: vocabulary.Action
    detail: str = ""
    new_value: str = ""  # for a kept region or entry: what the new version would have written
    files: tuple[str, ...] = ()  # a folder kept or put back: each file that differed, before
    adopted: bool = False  # taken over as it was found, no receipt owning it (ADR 0096)


class Kind(Protocol[P, R]):
    """One artifact kind. Keys identify an artifact across versions and packages: the planned
    and the recorded form of one artifact have the same key (`planned_key` and `record_key`
    share one function in each kind)."""

    def planned_key(self, planned: P) -> str:
        """The identity of a planned artifact: its target, plus what tells it apart in a
        shared file (`#region`, `#key.path`, `#key.path[group]`)."""

    def record_key(self, record: R) -> str:
        """The identity of a recorded artifact; equal to the `planned_key` of its plan."""

    def seq(self, record: R) -> int | None:
        """The order of its add among a package's config edits (removed newest first), or None
        for an artifact whose removal order does not matter."""

    def inspect(self, ctx: ScopeContext, record: R) -> LiveState:
        """Its live state: matched, missing, drifted, conflict or blocked."""

    def check_free(self, ctx: ScopeContext, planned: P, key: str) -> None:
        """Raise (Conflict, ForeignFile, Blocked, ConfigShape) unless the artifact can be
        created where nothing of uze's is: the common checks (another package's key, a file
        uze may not replace) are the caller's."""

    def check_shape(self, planned: P) -> None:
        """Raise before anything is written when the artifact, gone since install, cannot be
        delivered again (a config value in the way); pass for kinds that need no check."""

    def unchanged(self, planned: P, record: R) -> bool:
        """Whether the plan would write exactly what the record says was written."""

    def blocked(self, ctx: ScopeContext, record: R) -> Blocked:
        """Why an artifact that inspects as blocked cannot be edited (the error to raise)."""

    def edited(self, planned: P, key: str) -> Action:
        """What an upgrade does to an artifact the user edited whose plan changed: `kept`
        (the new version shown in `new_value`), or `merge` (see `merge`)."""

    def adopt(self, ctx: ScopeContext, planned: P) -> R | None:
        """The record uze would write for `planned` when the artifact is already on disk (a
        teammate's clone of a committed project): exactly as planned (matched) or a committed
        edit of it (drifted, ADR 0064); else None. Kinds that never adopt return None."""

    def write(self, tx: Transaction, ctx: ScopeContext, planned: P, old: R | None,
              created: Created) -> R:
        """Create the artifact, or replace `old` (this kind's record of it, not missing or
        kept); note in `created` a shared file the write made. Returns the new record."""

    def merge(self, tx: Transaction, planned: P, old: R) -> R:
        """Bring an edited artifact to the new version without touching the user's edits;
        returns the record, which still reads as drifted."""

    def remove(self, tx: Transaction, ctx: ScopeContext, record: R, created: Created) -> None:
        """Remove the artifact (the caller decided it may go); a shared file uze created goes
        with the last of uze's content in it, and leaves `created`."""
