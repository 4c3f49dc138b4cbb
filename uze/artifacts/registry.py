"""The registry of artifact kinds: one entry per `uze.vocabulary.ArtifactKind`, and the
functions install, upgrade, uninstall and status call with any artifact (ADR 0036).

A planned artifact or record is dispatched by its `type` (a `Literal` class variable): a type
the planner emits, or a receipt holds, that has no entry here fails type checking in `of`;
an entry whose kind does not implement `Kind` for its planned and recorded shapes fails where
`KINDS` is built (for the type checker). At run time each kind's module is imported when an
artifact of that kind is first met (ADR 0051): a skills-only package loads the tree kind
alone, not the config editors of the JSON, TOML and array kinds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, TypedDict, assert_never

from uze.vocabulary import ArtifactKind, LiveState

if TYPE_CHECKING:
    from uze.artifacts import element, entry, file, region, tree
    from uze.artifacts.kind import Kind
    from uze.plan.model import (
        PlannedArtifact,
        PlannedElement,
        PlannedEntry,
        PlannedFile,
        PlannedRegion,
        PlannedTree,
    )
    from uze.state.context import Created, ScopeContext
    from uze.state.receipts import (
        Artifact,
        ElementArtifact,
        EntryArtifact,
        FileArtifact,
        RegionArtifact,
        TreeArtifact,
    )
    from uze.transaction import Transaction


class Registry(TypedDict):
    """Each artifact kind with its planned and recorded shapes."""

    tree: Kind[PlannedTree, TreeArtifact]
    region: Kind[PlannedRegion, RegionArtifact]
    file: Kind[PlannedFile, FileArtifact]
    entry: Kind[PlannedEntry, EntryArtifact]
    element: Kind[PlannedElement, ElementArtifact]


if TYPE_CHECKING:
    KINDS: Final[Registry] = {
        "tree": tree.KIND,
        "region": region.KIND,
        "file": file.KIND,
        "entry": entry.KIND,
        "element": element.KIND,
    }

_loaded: dict[str, Kind[Any, Any]] = {}


def _load(name: ArtifactKind) -> Kind[Any, Any]:
    """Import the module of one artifact kind and return its `KIND`."""
    if name == "tree":
        from uze.artifacts import tree  # start-up: each kind loads when first met
        return tree.KIND
    if name == "region":
        from uze.artifacts import region
        return region.KIND
    if name == "file":
        from uze.artifacts import file
        return file.KIND
    if name == "entry":
        from uze.artifacts import entry
        return entry.KIND
    if name == "element":
        from uze.artifacts import element
        return element.KIND
    assert_never(name)


def kind(name: ArtifactKind) -> Kind[Any, Any]:
    """The kind registered under `name` (its module imported on first use)."""
    found = _loaded.get(name)
    if found is None:
        found = _loaded[name] = _load(name)
    return found


def of(item: PlannedArtifact | Artifact) -> Kind[Any, Any]:
    """The kind of a planned artifact or of a record (the two of one artifact share it)."""
    return kind(item.type)


def planned_key(planned: PlannedArtifact) -> str:
    """Identity of a planned artifact (equal to `record_key` of its record)."""
    return of(planned).planned_key(planned)


def record_key(record: Artifact) -> str:
    """Identity of a receipt artifact (equal to `planned_key` of its plan)."""
    return of(record).record_key(record)


def inspect_record(ctx: ScopeContext, record: Artifact) -> LiveState:
    """The live state of one artifact: matched, missing, drifted, conflict or blocked."""
    return of(record).inspect(ctx, record)


def remove_record(tx: Transaction, ctx: ScopeContext, record: Artifact, created: Created) -> None:
    """Remove one artifact (the caller decided it may go). A shared file uze created (AGENTS.md,
    CLAUDE.md, a config) goes with the last of uze's content in it, whichever package created
    it (`created` is the scope's record, updated here)."""
    of(record).remove(tx, ctx, record, created)


def removal_order(records: list[Artifact]) -> list[Artifact]:
    """Config edits go in reverse order of their adds (an add may have made the container a
    later add went into); everything else first, in its order."""
    seqs = [(of(r).seq(r), r) for r in records]
    others = [r for seq, r in seqs if seq is None]
    edits = sorted(((seq, r) for seq, r in seqs if seq is not None), key=lambda p: p[0],
                   reverse=True)
    return others + [r for _seq, r in edits]
