"""Single-file artifacts (an agent definition): written whole, removed only if unedited."""

from __future__ import annotations

from pathlib import Path

from uze.projections.digest import content_digest
from uze.transaction import Transaction


def inspect(path: Path, digest: str) -> str:
    """`matched` | `missing` | `drifted` | `conflict` for a file uze wrote with `digest`."""
    if path.is_symlink() or (path.exists() and not path.is_file()):
        return "conflict"
    if not path.exists():
        return "missing"
    return "matched" if content_digest(path.read_bytes()) == digest else "drifted"


def write(tx: Transaction, path: Path, data: bytes) -> None:
    """Write the whole file (new, or replacing uze's own matched copy)."""
    tx.write(path, data, 0o644)


def remove(tx: Transaction, path: Path) -> None:
    """Remove the file (the caller checked it is matched, or --force)."""
    tx.remove(path)
