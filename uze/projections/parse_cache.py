"""Parses of big TOML config texts kept between commands, by the blake3 digest of the text
(issue 32, ADR 0112).

Codex's `config.toml` holds an `[mcp_servers.*]` table of every package: at 200 packages it is
42 KB, and `tomllib` takes about 7 ms to read it, once in every install and uninstall. The
command that wrote those bytes knew their parse already (`toml_tail` derives it from the parse
before the edit, ADR 0105), so it keeps it here, and the next command that reads the very same
text takes it from here instead of parsing it again.

- An entry is found only by the digest of the whole text it was parsed from: other bytes, one
  byte more or less, never find it. What is kept is what `config_toml.load` returned for that
  text (a `tomllib` parse, or `toml_tail`'s, which its tests prove equal to one).
- Only values that MessagePack gives back exactly are kept: tables, arrays, strings, integers,
  floats and booleans, which is all `tomllib` makes of a text without a date or time. A text
  that may hold one is not kept at all (`_DATES`).
- The file is a cache (ADR 0107's rule): written without fsync by a rename, read as absent
  when missing, damaged, of another schema or unreadable; losing it costs only time. It holds
  the newest few texts' parses (an install keeps the text after each of its adds).
- Nothing is kept or read until `use` names the folder (a command's scope does, `open_scope`):
  library callers and tests of the projections parse as before.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any, Final

import msgspec
from blake3 import blake3

from uze import fs

SCHEMA: Final = 1
SMALLEST: Final = 8192
"""Texts shorter than this are parsed again: reading the cache costs more than parsing them."""
_KEPT: Final = 3
_DATES: Final = re.compile(r"\d\d:\d\d|\d{4}-\d\d-\d\d")
"""What every TOML date, time and date-time holds; a text with it anywhere (inside strings
too) is not kept: MessagePack would not give those values back as `tomllib` made them."""


class _File(msgspec.Struct, array_like=True):
    schema: int
    entries: list[tuple[str, dict[str, Any]]]  # (blake3 hex of the text, its parse), oldest first


_ENCODER: Final = msgspec.msgpack.Encoder()
_DECODER: Final = msgspec.msgpack.Decoder(_File)
_FOLDER: list[Path] = []
_LOADED: list[_File] = []


def use(folder: Path | None) -> None:
    """Keep and read parses in `folder` (None: neither) from now on in this process."""
    _FOLDER[:] = [folder] if folder is not None else []
    _LOADED.clear()


def _path() -> Path | None:
    return _FOLDER[0] / "parses-toml.msgpack" if _FOLDER else None


def _file(path: Path) -> _File:
    if not _LOADED:
        try:
            found = _DECODER.decode(path.read_bytes())
        except (OSError, msgspec.DecodeError):
            found = _File(SCHEMA, [])
        _LOADED.append(found if found.schema == SCHEMA else _File(SCHEMA, []))
    return _LOADED[0]


def _digest(text: str) -> str:
    return blake3(text.encode("utf-8", "surrogatepass")).hexdigest()


def found(text: str) -> dict[str, Any] | None:
    """The parse kept for exactly `text`, or None."""
    path = _path()
    if path is None or len(text) < SMALLEST:
        return None
    digest = _digest(text)
    return next((parse for kept, parse in _file(path).entries if kept == digest), None)


def keep(text: str, parse: dict[str, Any]) -> None:
    """Keep `parse` as the parse of `text` for later commands (a text too small, or one that
    may hold a date or time, is not kept)."""
    path = _path()
    if path is None or len(text) < SMALLEST or _DATES.search(text):
        return
    digest = _digest(text)
    known = _file(path)
    entries = [entry for entry in known.entries if entry[0] != digest][-(_KEPT - 1):]
    known.entries = [*entries, (digest, parse)]
    with contextlib.suppress(OSError):
        fs.replace_unsynced(path, _ENCODER.encode(known))
