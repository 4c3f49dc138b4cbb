"""Folder artifacts (a skill): created whole, inspected file by file, removed only if unedited."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from uze.projections.digest import content_digest
from uze.transaction import Transaction


def list_files(folder: Path) -> dict[str, Path]:
    """Every file below `folder` (symlinks count as files), by POSIX relative path."""
    found: dict[str, Path] = {}
    for path in folder.rglob("*"):
        if path.is_symlink() or path.is_file():
            found[path.relative_to(folder).as_posix()] = path
    return found


def inspect(folder: Path, digests: Mapping[str, str]) -> str:
    """`matched` | `missing` | `drifted` | `conflict` for a folder uze wrote with `digests`."""
    if not folder.exists() and not folder.is_symlink():
        return "missing"
    if folder.is_symlink() or not folder.is_dir():
        return "conflict"
    live = list_files(folder)
    if set(live) != set(digests):
        return "drifted"
    for rel, path in live.items():
        if path.is_symlink() or content_digest(path.read_bytes()) != digests[rel]:
            return "drifted"
    return "matched"


def write(tx: Transaction, folder: Path, files: Mapping[str, bytes], executables: frozenset[str]) -> None:
    """Create `folder` (it must not exist) holding exactly `files`."""
    tx.create_folder(folder)
    for rel, data in sorted(files.items()):
        tx.write_new(folder / rel, data, 0o755 if rel in executables else 0o644)


def remove(tx: Transaction, folder: Path) -> None:
    """Remove a folder uze wrote (the caller checked it is matched, or --force)."""
    tx.trash_folder(folder)


def digests_of(files: Mapping[str, bytes]) -> dict[str, str]:
    """The receipt's view of a planned folder."""
    return {rel: content_digest(data) for rel, data in files.items()}
