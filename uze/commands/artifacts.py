"""Shared by install, uninstall and status: keys, live state and removal of receipt artifacts."""

from __future__ import annotations

from pathlib import Path

from uze.commands.context import Created, ScopeContext
from uze.plan import PlannedArtifact, PlannedRegion
from uze.projections import file, region_file, tree
from uze.receipts import Artifact, FileArtifact, RegionArtifact, TreeArtifact
from uze.transaction import Transaction


def planned_key(artifact: PlannedArtifact) -> str:
    """Identity of a planned artifact: its target, plus `#id` for a region."""
    if isinstance(artifact, PlannedRegion):
        return f"{artifact.target}#{artifact.region_id}"
    return artifact.target


def record_key(record: Artifact) -> str:
    """Identity of a receipt artifact (same form as planned_key)."""
    if isinstance(record, RegionArtifact):
        return f"{record.target}#{record.region}"
    return record.target


def record_path(ctx: ScopeContext, record: Artifact) -> Path:
    """The absolute path a receipt artifact lives at."""
    return ctx.location.resolve(record.target)


def inspect_record(ctx: ScopeContext, record: Artifact) -> str:
    """The live state of one artifact: matched, missing, drifted, conflict or blocked."""
    path = record_path(ctx, record)
    if isinstance(record, TreeArtifact):
        return tree.inspect(path, record.files)
    if isinstance(record, FileArtifact):
        return file.inspect(path, record.digest)
    return region_file.inspect(path, record.region, record.digest)


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
    elif region_file.remove(tx, path, record.region, record.lead, record.target in created.files):
        created.files.discard(record.target)
