"""Shared by install, uninstall and status: keys, live state and removal of receipt artifacts."""

from __future__ import annotations

from pathlib import Path

from uze.commands.context import Created, ScopeContext
from uze.projections import element, entry, file, region_file, tree
from uze.projections.config_array import ElementInfo
from uze.projections.config_entry import AddInfo, format_key_path
from uze.receipts import (
    Artifact,
    ElementArtifact,
    EntryArtifact,
    FileArtifact,
    RegionArtifact,
    TreeArtifact,
)
from uze.transaction import Transaction


def record_key(record: Artifact) -> str:
    """Identity of a receipt artifact (same form as planned_key)."""
    if isinstance(record, RegionArtifact):
        return f"{record.target}#{record.region}"
    if isinstance(record, EntryArtifact):
        return f"{record.target}#{format_key_path(tuple(record.key_path))}"
    if isinstance(record, ElementArtifact):
        return f"{record.target}#{format_key_path(tuple(record.key_path))}[{record.group}]"
    return record.target


def record_path(ctx: ScopeContext, record: Artifact) -> Path:
    """The absolute path a receipt artifact lives at."""
    return ctx.location.resolve(record.target)


def inspect_record(ctx: ScopeContext, record: Artifact) -> str:
    """The live state of one artifact: matched, missing, drifted, conflict or blocked."""
    path = record_path(ctx, record)
    if isinstance(record, TreeArtifact):
        return tree.inspect(path, record.files, ctx.hashes)
    if isinstance(record, FileArtifact):
        return file.inspect(path, record.digest, ctx.hashes)
    if isinstance(record, EntryArtifact):
        return entry.inspect(path, record.format, tuple(record.key_path), record.digest)
    if isinstance(record, ElementArtifact):
        return element.inspect(path, record.format, tuple(record.key_path), record.digest, record.marker)
    return region_file.inspect(path, record.region, record.digest)


def removal_order(records: list[Artifact]) -> list[Artifact]:
    """Config entries go in reverse order of their adds (an add may have made the container
    a later add went into); everything else keeps its order."""
    entries = [r for r in records if isinstance(r, EntryArtifact | ElementArtifact)]
    others = [r for r in records if not isinstance(r, EntryArtifact | ElementArtifact)]
    return others + sorted(entries, key=lambda r: r.seq, reverse=True)


def remove_record(tx: Transaction, ctx: ScopeContext, record: Artifact, created: Created) -> None:
    """Remove one artifact (the caller decided it may go).

    A shared file uze created (AGENTS.md, CLAUDE.md) goes with the last region in it, whichever
    package created it (`created` is the scope's record, updated here).
    """
    path = record_path(ctx, record)
    if isinstance(record, TreeArtifact):
        tree.remove(tx, path)
    elif isinstance(record, FileArtifact):
        file.remove(tx, path)
    elif isinstance(record, ElementArtifact):
        info_e = ElementInfo.from_json(record.info)
        if element.remove(tx, path, record.format, tuple(record.key_path), record.digest, info_e,
                          record.target in created.files):
            created.files.discard(record.target)
    elif isinstance(record, EntryArtifact):
        info = AddInfo.from_json(record.add_info)
        if entry.remove(tx, path, record.format, tuple(record.key_path), info, record.target in created.files):
            created.files.discard(record.target)
    elif region_file.remove(tx, path, record.region, record.lead, record.target in created.files):
        created.files.discard(record.target)
