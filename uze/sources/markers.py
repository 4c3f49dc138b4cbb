"""Git conflict markers in a file uze reads (`uze.toml`, `uze.lock`): found, and split into the
two sides of the merge (and the merge base, when git wrote it) (ADR 0063).

Git writes a conflict as whole lines: `<<<<<<< LABEL`, the first side, optionally `||||||| LABEL`
and the merge base (`merge.conflictStyle` `diff3` or `zdiff3`), `=======`, the second side,
`>>>>>>> LABEL`. Each side is the file as that branch has it: every line outside the hunks plus
that side's lines of each hunk. Markers are at least seven characters (git lengthens them for a
nested conflict); a marker line that does not close or open a hunk in order is an error naming
its line, never guessed around.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from uze.errors import UzeError
from uze.patterns import compile_later

_MARKER: Final = compile_later(rb"(<{7,}|\|{7,}|={7,}|>{7,})(?:[ \t](.*?))?\r?\n?\Z")
_KINDS: Final = {ord("<"): "open", ord("|"): "base", ord("="): "split", ord(">"): "close"}


class Sides(NamedTuple):
    """The two sides of a conflicted file (labels as git wrote them), and the merge base when
    every hunk carries it (else None)."""

    ours: bytes
    theirs: bytes
    base: bytes | None
    ours_label: str
    theirs_label: str


def _marker(line: bytes) -> str | None:
    """The kind of marker `line` is (open, base, split, close), or None."""
    found = _MARKER.match(line)
    if found is None:
        return None
    if line[:1] == b"=" and found.group(2):  # `======= text` is not git's separator
        return None
    return _KINDS[line[0]]


def has_markers(raw: bytes) -> bool:
    """Whether `raw` holds a line that opens a conflict hunk."""
    return b"<<<<<<<" in raw and any(_marker(line) == "open"
                                     for line in raw.splitlines(keepends=True)
                                     if line.startswith(b"<<<<<<<"))


def conflicted(where: str) -> UzeError:
    """The error of a reader that does not resolve markers (every command but a converge)."""
    return UzeError(f"{where} has git conflict markers (an unfinished merge)",
                    hint="run `uze install`: it takes both sides where they change different "
                         "packages, and names any package both sides changed")


def _label(line: bytes) -> str:
    found = _MARKER.match(line)
    text = found.group(2) if found is not None and found.group(2) else b""
    return text.decode("utf-8", "replace").strip()[:60] or "?"


def split_sides(raw: bytes, where: str) -> Sides:
    """Split `raw` at its conflict markers. Raises UzeError naming `where` and the line of a
    marker out of order (a hunk not closed, a separator outside a hunk)."""
    ours: list[bytes] = []
    theirs: list[bytes] = []
    base: list[bytes] = []
    labels = ["", ""]
    state, every_base, seen_base, hunks = "out", True, False, 0
    expected = {"out": ("open",), "ours": ("base", "split"), "base": ("split",),
                "theirs": ("close",)}
    for number, line in enumerate(raw.splitlines(keepends=True), start=1):
        kind = _marker(line)
        if kind is None:
            if state in ("out", "ours"):
                ours.append(line)
            if state in ("out", "theirs"):
                theirs.append(line)
            if state in ("out", "base"):
                base.append(line)
            continue
        if kind not in expected[state]:
            raise UzeError(f"{where}:{number}: conflict marker out of order "
                           f"({line.decode('utf-8', 'replace').strip()[:20]})",
                           hint=f"fix the conflict markers in {where} by hand")
        if kind == "open":
            hunks += 1
            labels[0] = labels[0] or _label(line)
            state, seen_base = "ours", False
        elif kind == "base":
            state, seen_base = "base", True
        elif kind == "split":
            every_base = every_base and seen_base
            state = "theirs"
        else:
            labels[1] = labels[1] or _label(line)
            state = "out"
    if state != "out":
        raise UzeError(f"{where}: a conflict hunk is not closed (no `>>>>>>>` line)",
                       hint=f"fix the conflict markers in {where} by hand")
    return Sides(b"".join(ours), b"".join(theirs),
                 b"".join(base) if every_base and hunks else None, labels[0], labels[1])
