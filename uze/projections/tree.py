"""Folder artifacts (a skill): created whole, inspected file by file, removed only if unedited."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from uze.projections.digest import held_content_digest
from uze.projections.statcache import DigestCache
from uze.transaction import Transaction
from uze.vocabulary import LiveState


def list_files(folder: Path) -> dict[str, os.DirEntry[str]]:
    """Every file below `folder` (symlinks count as files, never followed), by POSIX relative
    path. Iterative: a folder nested thousands of levels deep (someone else's, in a delivered
    skill) is walked, not a RecursionError."""
    found: dict[str, os.DirEntry[str]] = {}
    pending: list[tuple[Path | str, str]] = [(folder, "")]
    while pending:
        current, prefix = pending.pop()
        with os.scandir(current) as entries:
            for item in entries:
                if item.is_dir(follow_symlinks=False):
                    pending.append((item.path, f"{prefix}{item.name}/"))
                elif item.is_symlink() or item.is_file(follow_symlinks=False):
                    found[prefix + item.name] = item
    return found


def inspect(folder: Path, digests: Mapping[str, str],
            hashes: DigestCache | None = None) -> LiveState:
    """`matched` | `missing` | `drifted` | `conflict` for a folder uze wrote with `digests`.

    With `hashes`, a file whose stat is unchanged since it was last hashed is not read again,
    nor a folder listed again whose stat is unchanged since it was listed (ADR 0081).
    """
    try:
        mode = os.lstat(folder).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return "missing"
    if not stat.S_ISDIR(mode):  # a file, or a link (never followed)
        return "conflict"
    hashes = hashes or DigestCache(None)
    live = hashes.files(folder)
    if live.keys() != digests.keys():
        return "drifted"
    for rel, (path, st) in live.items():
        if stat.S_ISLNK(st.st_mode) or hashes.digest(path, st) != digests[rel]:
            return "drifted"
    return "matched"


def write(tx: Transaction, folder: Path, files: Mapping[str, bytes],
          executables: frozenset[str]) -> None:
    """Create `folder` (it must not exist) holding exactly `files`."""
    tx.create_folder(folder)
    for rel, data in sorted(files.items()):
        tx.write_new(folder / rel, data, 0o755 if rel in executables else 0o644)


def remove(tx: Transaction, folder: Path) -> None:
    """Remove a folder uze wrote (the caller checked it is matched, or --force)."""
    tx.trash_folder(folder)


def digests_of(files: Mapping[str, bytes]) -> dict[str, str]:
    """The receipt's view of a planned folder.

    Each bytes object is hashed once per command (held_content_digest): one command digests
    the same planned bytes several times (each skill root's copy, preflight before and after
    the lock, the receipt), and the package's tree digest hashed most of them already. Only
    planned bytes, which the plan holds anyway, come here; files read from disk never do."""
    return {rel: held_content_digest(data) for rel, data in files.items()}
