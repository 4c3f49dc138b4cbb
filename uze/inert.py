"""Text from a package, a project or a harness shown inert (ADR 0021).

A package name, version, command or description could carry ESC (terminal escape sequences that
move the cursor and overwrite a prompt line), CR, NUL, other C0 and C1 controls, or Unicode
line and bidi controls that reorder what a person reads. Every human renderer (uze.ui.render's
lines and table cells, uze.cli's error printer) passes such text through `inert` first.
"""

from __future__ import annotations

from typing import Final

LIMIT: Final = 2000  # characters of one value shown before it is cut
_NAMED: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 \
        else f"\\U{code:08x}"


def inert(text: str, limit: int = LIMIT, *, lines: bool = False) -> str:
    """`text` with every character Python does not call printable escaped: C0 and C1
    controls, DEL, format characters (bidi, zero-width), line and paragraph separators, spaces
    other than U+0020, private-use and unassigned code points (`\\x1b`, `\\r`, `\\u202e`); cut after
    `limit` characters with a `…[+N chars]` marker. `lines=True` keeps line feeds (a block of
    text shown as lines); each line is then cut on its own."""
    if lines:
        return "\n".join(inert(line, limit) for line in text.split("\n"))
    if len(text) > limit:
        text = f"{text[:limit]}…[+{len(text) - limit} chars]"
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _escaped(c) for c in text)
