"""Upgrade of an artifact the user edited, file by file, like dpkg's conffile table.

unchanged since install -> replaced; edited and unchanged upstream -> kept; edited and changed
upstream -> kept, the new version written beside it as `<file>.uze-new` (which then belongs to
the user, like the edit). `--force` is handled by the caller (it replaces the whole artifact).
"""

from __future__ import annotations

import itertools
from pathlib import Path

from uze.plan import PlannedFile, PlannedTree
from uze.projections import tree
from uze.projections.digest import content_digest
from uze.receipts import FileArtifact, TreeArtifact
from uze.transaction import Transaction

NEW_SUFFIX = ".uze-new"


def _live_digest(path: Path) -> str | None:
    if path.is_symlink() or not path.is_file():
        return None
    return content_digest(path.read_bytes())


def beside_path(path: Path, data: bytes) -> tuple[Path, bool]:
    """Where the new version of the edited file at `path` goes, and whether to write it there.

    `<name>.uze-new`, else `<name>.uze-new.1`, `.2`, ...: a file already at one of these names
    is the user's, so it is never overwritten. One that already holds exactly
    `data` is the answer, with nothing to write (an upgrade run twice writes one copy).
    """
    digest = content_digest(data)
    for count in itertools.count():
        suffix = NEW_SUFFIX if count == 0 else f"{NEW_SUFFIX}.{count}"
        candidate = path.with_name(path.name + suffix)
        if not candidate.exists() and not candidate.is_symlink():
            return candidate, True
        if _live_digest(candidate) == digest:
            return candidate, False
    raise AssertionError("unreachable")  # pragma: no cover - itertools.count() never ends


def _write_beside(tx: Transaction, path: Path, data: bytes) -> Path:
    target, write = beside_path(path, data)
    if write:
        tx.write(target, data, 0o644)
    return target


def merge_tree(tx: Transaction, planned: PlannedTree,
               old: TreeArtifact) -> tuple[TreeArtifact, list[str]]:
    """Bring an edited folder up to the new version without touching an edited file.

    Returns the record and the `.uze-new` files written. Edited files keep their old digest,
    so the folder still reads as drifted; a file uze never wrote there (the user's own, at a
    path the new version ships) stays out of the record, so it stays the user's: uninstall
    never removes it.
    """
    new = tree.digests_of(planned.files)
    record: dict[str, str] = {}
    beside: list[str] = []
    for rel, data in sorted(planned.files.items()):
        path, live, was = planned.path / rel, _live_digest(planned.path / rel), old.files.get(rel)
        if live is None or (was is not None and live in (new[rel], was)):
            if live != new[rel]:
                tx.write(path, data, 0o755 if rel in planned.executables else 0o644)
            record[rel] = new[rel]
            continue
        if was is not None:
            record[rel] = was
        if was != new[rel] and live != new[rel]:
            written = _write_beside(tx, path, data)
            beside.append(f"{planned.target}/{written.relative_to(planned.path).as_posix()}")
    for rel, digest in old.files.items():
        if rel not in planned.files and _live_digest(planned.path / rel) == digest:
            tx.remove(planned.path / rel)
    artifact = TreeArtifact(target=planned.target, files=record,
                            executables=sorted(planned.executables),
                            harnesses=list(planned.harnesses))
    return artifact, beside


def write_beside(tx: Transaction, planned: PlannedFile) -> str:
    """Write the new version of an edited file beside it (`beside_path`); return its target."""
    written = _write_beside(tx, planned.path, planned.data)
    return planned.target[: -len(planned.path.name)] + written.name


def kept_file_record(planned: PlannedFile, old: FileArtifact) -> FileArtifact:
    """The record of an edited file: still the digest uze wrote, so it keeps reading as drifted."""
    return FileArtifact(target=planned.target, digest=old.digest, harnesses=list(planned.harnesses))
