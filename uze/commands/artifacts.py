"""Shared by install, uninstall and status: keys, live state and removal of receipt artifacts.

Artifacts are told apart by their `type` tag, not by class, so that status on a scope with no
receipt never imports the receipt models (msgspec, ADR 0015).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from uze import vocabulary
from uze.commands.context import Created, ScopeContext
from uze.projections import element, entry, file, region_file, tree
from uze.projections.config_array import ElementInfo
from uze.projections.config_entry import AddInfo, format_key_path
from uze.vocabulary import LiveState

if TYPE_CHECKING:
    from uze.receipts import Artifact
    from uze.transaction import Transaction


class Action(msgspec.Struct, frozen=True):
    """What install or uninstall does (or would do) to one artifact."""

    target: str
    action: vocabulary.Action
    detail: str = ""
    new_value: str = ""  # for a kept region: the text the new version would have written


def record_key(record: Artifact) -> str:
    """Identity of a receipt artifact (same form as planned_key)."""
    if record.type == "region":
        return f"{record.target}#{record.region}"
    if record.type == "entry":
        return f"{record.target}#{format_key_path(tuple(record.key_path))}"
    if record.type == "element":
        return f"{record.target}#{format_key_path(tuple(record.key_path))}[{record.group}]"
    return record.target


def record_path(ctx: ScopeContext, record: Artifact) -> Path:
    """The absolute path a receipt artifact lives at."""
    return ctx.location.resolve(record.target)


def inspect_record(ctx: ScopeContext, record: Artifact) -> LiveState:
    """The live state of one artifact: matched, missing, drifted, conflict or blocked."""
    path = record_path(ctx, record)
    if record.type == "tree":
        return tree.inspect(path, record.files, ctx.hashes)
    if record.type == "file":
        return file.inspect(path, record.digest, ctx.hashes)
    if record.type == "entry":
        return entry.inspect(path, record.format, tuple(record.key_path), record.digest)
    if record.type == "element":
        return element.inspect(path, record.format, tuple(record.key_path), record.digest,
                               record.marker)
    return region_file.inspect(path, record.region, record.digest)


def removal_order(records: list[Artifact]) -> list[Artifact]:
    """Config entries go in reverse order of their adds (an add may have made the container
    a later add went into); everything else keeps its order."""
    from uze.receipts import ElementArtifact, EntryArtifact

    entries = [r for r in records if isinstance(r, EntryArtifact | ElementArtifact)]
    others = [r for r in records if not isinstance(r, EntryArtifact | ElementArtifact)]
    return others + sorted(entries, key=lambda r: r.seq, reverse=True)


def remove_record(tx: Transaction, ctx: ScopeContext, record: Artifact, created: Created) -> None:
    """Remove one artifact (the caller decided it may go).

    A shared file uze created (AGENTS.md, CLAUDE.md) goes with the last region in it, whichever
    package created it (`created` is the scope's record, updated here).
    """
    path = record_path(ctx, record)
    if record.type == "tree":
        tree.remove(tx, path)
    elif record.type == "file":
        file.remove(tx, path)
    elif record.type == "element":
        info_e = ElementInfo.from_json(record.info)
        if element.remove(tx, path, record.format, tuple(record.key_path), record.digest, info_e,
                          record.target in created.files):
            created.files.discard(record.target)
    elif record.type == "entry":
        info = AddInfo.from_json(record.add_info)
        if entry.remove(tx, path, record.format, tuple(record.key_path), info,
                        record.target in created.files):
            created.files.discard(record.target)
    elif region_file.remove(tx, path, record.region, record.lead, record.target in created.files):
        created.files.discard(record.target)
