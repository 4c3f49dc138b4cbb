"""Single-file artifacts (an agent definition): written whole, removed only if unedited."""

from __future__ import annotations

import stat
from pathlib import Path

from uze.projections.statcache import DigestCache
from uze.transaction import Transaction
from uze.vocabulary import LiveState


def inspect(path: Path, digest: str, hashes: DigestCache | None = None) -> LiveState:
    """`matched` | `missing` | `drifted` | `conflict` for a file uze wrote with `digest`."""
    try:
        st = path.lstat()
    except (FileNotFoundError, NotADirectoryError):
        return "missing"
    if not stat.S_ISREG(st.st_mode):
        return "conflict"
    found = (hashes or DigestCache(None)).digest(path, st)
    return "matched" if found == digest else "drifted"


def write(tx: Transaction, path: Path, data: bytes) -> None:
    """Write the whole file (new, or replacing uze's own matched copy)."""
    tx.write(path, data, 0o644)


def remove(tx: Transaction, path: Path) -> None:
    """Remove the file (the caller checked it is matched, or --force)."""
    tx.remove(path)
