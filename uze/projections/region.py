"""Delimited regions in a text file: pure functions over bytes.

A region is `<!-- uze:begin <id> -->` EOL body `<!-- uze:end <id> -->` EOL, markers on whole
lines. Bytes outside a region are never changed, line endings included: insert returns the
separator it added before the region (`lead`), and remove takes it back only if it is still
there, so remove(insert(text)) == text for any text.
"""

from __future__ import annotations

import functools
import re
from typing import Final

import msgspec

from uze.patterns import compile_later

_MARKER: Final = compile_later(rb"^<!-- uze:(begin|end) (\S+) -->\r?$")
_LINE: Final = compile_later(rb"[^\n]*\n|[^\n]+$")


class BrokenMarkers(ValueError):
    """The file's uze markers do not pair up; the message names the line."""


class RegionSpan(msgspec.Struct, frozen=True):
    """Byte offsets of one region: [start, end) covers both markers and the end marker's EOL."""

    region_id: str
    start: int
    end: int
    body_start: int
    body_end: int


def marker_lines(text: bytes) -> list[int]:
    """The 1-based numbers of the lines `scan_regions` reads as markers, whatever their ids:
    what a package's instructions must not hold, judged by the very same bytes rule
    (an NBSP in an id or a CR before the newline is a marker here, whatever a str regex says)."""
    return [number for number, match in enumerate(_LINE.finditer(text), start=1)
            if _MARKER.match(match.group(0).rstrip(b"\n"))]


def detect_eol(text: bytes) -> bytes:
    """The file's line ending: that of its first line, LF when it has none."""
    first = text.find(b"\n")
    return b"\r\n" if first > 0 and text[first - 1 : first] == b"\r" else b"\n"


def scan_regions(text: bytes) -> dict[str, RegionSpan]:
    """Every region in `text` by id. Raises BrokenMarkers for unpaired, nested or repeated ones."""
    return dict(_scan(text))


@functools.lru_cache(maxsize=32)
def _scan(text: bytes) -> dict[str, RegionSpan]:
    """scan_regions, remembered by content: status reads the same AGENTS.md, CLAUDE.md and
    GEMINI.md once for each package's region (a failure is not remembered; it raises again)."""
    spans: dict[str, RegionSpan] = {}
    open_id: tuple[str, int, int, int] | None = None
    offset = 0
    for number, match in enumerate(_LINE.finditer(text), start=1):
        line = match.group(0)
        marker = _MARKER.match(line.rstrip(b"\n"))
        if marker is not None:
            open_id = _take_marker(marker, line, number, offset, open_id, spans)
        offset += len(line)
    if open_id is not None:
        raise BrokenMarkers(f"line {open_id[3]}: uze:begin {open_id[0]} has no uze:end")
    return spans


def _take_marker(
    marker: re.Match[bytes],
    line: bytes,
    number: int,
    offset: int,
    open_id: tuple[str, int, int, int] | None,
    spans: dict[str, RegionSpan],
) -> tuple[str, int, int, int] | None:
    kind, region_id = marker.group(1).decode(), marker.group(2).decode("utf-8", "replace")
    if kind == "begin":
        if open_id is not None:
            raise BrokenMarkers(f"line {number}: uze:begin {region_id} inside region {open_id[0]}")
        if region_id in spans:
            raise BrokenMarkers(f"line {number}: region {region_id} appears twice")
        return (region_id, offset, offset + len(line), number)
    if open_id is None or open_id[0] != region_id:
        raise BrokenMarkers(f"line {number}: uze:end {region_id} without its uze:begin")
    end = offset + len(line)
    spans[region_id] = RegionSpan(region_id, open_id[1], end, open_id[2], offset)
    return None


def with_eol(body: bytes, eol: bytes) -> bytes:
    """`body` as whole lines ending in `eol` (what a region holds between its markers)."""
    lines = body.replace(b"\r\n", b"\n").split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return b"".join(line + eol for line in lines)


def render_region(region_id: str, body: bytes, eol: bytes) -> bytes:
    """The region's bytes: markers on their own lines, the body in the file's line ending."""
    begin = f"<!-- uze:begin {region_id} -->".encode()
    end = f"<!-- uze:end {region_id} -->".encode()
    return begin + eol + with_eol(body, eol) + end + eol


def _lead_for(text: bytes, eol: bytes) -> bytes:
    if not text or text.endswith(eol + eol) or text.endswith(b"\n\n"):
        return b""
    if text.endswith(b"\n"):
        return eol
    return eol + eol


def insert_region(text: bytes, region_id: str, body: bytes) -> tuple[bytes, bytes]:
    """Append a new region; return (new text, lead separator added before it).

    Raises BrokenMarkers if the file's markers are broken, ValueError if the id exists.
    """
    if region_id in scan_regions(text):
        raise ValueError(f"region {region_id} already exists")
    eol = detect_eol(text)
    lead = _lead_for(text, eol)
    return text + lead + render_region(region_id, body, eol), lead


def region_body(text: bytes, region_id: str) -> bytes | None:
    """The body bytes of region `region_id`, or None when absent. Raises BrokenMarkers."""
    span = _scan(text).get(region_id)  # read only: no copy of every region of a shared file
    return None if span is None else text[span.body_start : span.body_end]


def replace_region_body(text: bytes, region_id: str, body: bytes) -> bytes:
    """Rewrite one existing region's body; every other byte stays."""
    span = scan_regions(text)[region_id]
    eol = detect_eol(text)
    return text[: span.body_start] + with_eol(body, eol) + text[span.body_end :]


def remove_region(text: bytes, region_id: str, lead: bytes) -> bytes:
    """Remove region `region_id` and, if still directly before it, the `lead` insert added."""
    span = scan_regions(text)[region_id]
    start = span.start
    # The lead is taken back whenever it is still there, whatever the order in which regions
    # go (ADR 0002). If the user deleted part of it, the rest stays.
    if lead and text[:start].endswith(lead):
        start -= len(lead)
    return text[:start] + text[span.end :]
