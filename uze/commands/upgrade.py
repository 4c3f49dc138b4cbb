"""Upgrade of an artifact the user edited, file by file, like dpkg's conffile table.

unchanged since install -> replaced; edited and unchanged upstream -> kept; edited and changed
upstream -> kept, the new version written beside it as `<file>.uze-new` (which then belongs to
the user, like the edit). `--force` is handled by the caller (it replaces the whole artifact).
"""

from __future__ import annotations

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


def merge_tree(tx: Transaction, planned: PlannedTree,
               old: TreeArtifact) -> tuple[TreeArtifact, list[str]]:
    """Bring an edited folder up to the new version without touching an edited file.

    Returns the record (edited files keep their old digest, so the folder still reads as
    drifted) and the `.uze-new` files written.
    """
    new = tree.digests_of(planned.files)
    record: dict[str, str] = {}
    beside: list[str] = []
    for rel, data in sorted(planned.files.items()):
        path, live = planned.path / rel, _live_digest(planned.path / rel)
        if live in (None, new[rel]) or live == old.files.get(rel):
            if live != new[rel]:
                tx.write(path, data, 0o755 if rel in planned.executables else 0o644)
            record[rel] = new[rel]
            continue
        record[rel] = old.files.get(rel, live or new[rel])
        if old.files.get(rel) != new[rel]:
            tx.write(path.with_name(path.name + NEW_SUFFIX), data)
            beside.append(f"{planned.target}/{rel}{NEW_SUFFIX}")
    for rel, digest in old.files.items():
        if rel not in planned.files and _live_digest(planned.path / rel) == digest:
            tx.remove(planned.path / rel)
    artifact = TreeArtifact(target=planned.target, files=record,
                            executables=sorted(planned.executables),
                            harnesses=list(planned.harnesses))
    return artifact, beside


def write_beside(tx: Transaction, planned: PlannedFile) -> str:
    """Write the new version of an edited file as `<file>.uze-new`; return its target."""
    tx.write(planned.path.with_name(planned.path.name + NEW_SUFFIX), planned.data, 0o644)
    return planned.target + NEW_SUFFIX


def kept_file_record(planned: PlannedFile, old: FileArtifact) -> FileArtifact:
    """The record of an edited file: still the digest uze wrote, so it keeps reading as drifted."""
    return FileArtifact(target=planned.target, digest=old.digest, harnesses=list(planned.harnesses))
