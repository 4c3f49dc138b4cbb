"""Region artifacts: one package's region in a shared text file (AGENTS.md, CLAUDE.md)."""

from __future__ import annotations

from pathlib import Path

from uze.errors import MarkersBroken
from uze.projections import region, snapshot
from uze.projections.digest import content_digest
from uze.transaction import Transaction
from uze.vocabulary import LiveState


def read_regions(path: Path, target: str) -> dict[str, region.RegionSpan]:
    """The regions of the file at `path` (none if absent). Raises MarkersBroken."""
    if not snapshot.exists(path):
        return {}
    try:
        return region.scan_regions(snapshot.read(path))
    except region.BrokenMarkers as exc:
        raise MarkersBroken(target, str(exc)) from None


def inspect(path: Path, region_id: str, digest: str) -> LiveState:
    """`matched` | `missing` | `drifted` | `blocked` for region `region_id` in `path`."""
    if not snapshot.is_file(path):
        return "missing"
    try:
        body = region.region_body(snapshot.read(path), region_id)
    except region.BrokenMarkers:
        return "blocked"
    if body is None:
        return "missing"
    return "matched" if content_digest(body) == digest else "drifted"


def add(tx: Transaction, path: Path, region_id: str, body: bytes) -> tuple[str, bool]:
    """Append the region; return (lead separator, whether the file was created)."""
    created = not snapshot.exists(path)
    text = b"" if created else snapshot.read(path)
    new, lead = region.insert_region(text, region_id, body)
    tx.edit(path, new)
    return lead.decode(), created


def replace(tx: Transaction, path: Path, region_id: str, body: bytes) -> None:
    """Rewrite the body of an existing region."""
    tx.edit(path, region.replace_region_body(snapshot.read(path), region_id, body))


def remove(tx: Transaction, path: Path, region_id: str, lead: str, delete_if_empty: bool) -> bool:
    """Remove the region and the lead uze added; return True if the file was deleted.

    The file is deleted only when nothing is left in it and uze created it (`delete_if_empty`).
    """
    new = region.remove_region(snapshot.read(path), region_id, lead.encode())
    if delete_if_empty and not new:
        tx.remove(path)
        return True
    tx.edit(path, new)
    return False


def body_digest(body: bytes) -> str:
    """The receipt's digest of a region body (line endings normalised)."""
    return content_digest(region.with_eol(body, b"\n"))
