"""Parses of big config texts kept between commands, by the blake3 digest of the text
(issue 32, ADR 0112).

At 200 packages every harness config holds an entry of every package: Codex's `config.toml`
is 42 KB (about 7 ms of `tomllib`), the JSON settings and MCP files 55 to 190 KB, whose span
parse and the expansion of their 400-member objects cost about 20 ms per command. The command
that wrote those bytes had their parse already (each edit parses its new text on the parse
before, ADR 0099 and 0105), so it keeps it here when it commits (`keep`), and the next command
that reads the very same text takes it from here (`found`) instead of parsing it again.

- An entry is found only by the digest of the whole text and its kind (`toml`, `json`,
  `jsonc`): other bytes never find it. What is kept is what the parser made of that text: a
  TOML document as plain values, a JSON document's spans as `json_kept` encodes them.
- A TOML text that may hold a date or time is not kept (`_DATES`): MessagePack gives back
  everything else `tomllib` makes (tables, arrays, strings, integers, floats, booleans) exactly,
  key order included, and those not.
- The file is a cache (ADR 0107's rule): written without fsync by a rename, read as empty
  when missing, damaged, of another schema or unreadable; losing it costs only time. It holds
  the newest `_KEPT` texts (one install edits up to ten shared files).
- Nothing is kept or read until `use` names the folder (a command's scope does,
  `open_scope`): library callers and the projections' own tests parse as before.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

import msgspec
from blake3 import blake3

from uze import fs

SCHEMA: Final = 2
SMALLEST: Final = 8192
"""Texts shorter than this are parsed again: reading the cache costs more than parsing them."""
_KEPT: Final = 24
_DATES: Final = re.compile(r"\d\d:\d\d|\d{4}-\d\d-\d\d")
"""What every TOML date, time and date-time holds; a TOML text with it anywhere (inside
strings too) is not kept."""


class _File(msgspec.Struct, array_like=True):
    schema: int
    entries: list[tuple[str, msgspec.Raw]]  # (kind:digest of the text, its parse), oldest first


_ENCODER: Final = msgspec.msgpack.Encoder()
_DECODER: Final = msgspec.msgpack.Decoder(_File)
_FOLDER: list[Path] = []
_LOADED: list[_File] = []


def use(folder: Path | None) -> None:
    """Keep and read parses in `folder` (None: neither) from now on in this process."""
    _FOLDER[:] = [folder] if folder is not None else []
    _LOADED.clear()


def _path() -> Path | None:
    return _FOLDER[0] / "parses.msgpack" if _FOLDER else None


def _file(path: Path) -> _File:
    if not _LOADED:
        try:
            found = _DECODER.decode(path.read_bytes())
        except (OSError, msgspec.DecodeError):
            found = _File(SCHEMA, [])
        _LOADED.append(found if found.schema == SCHEMA else _File(SCHEMA, []))
    return _LOADED[0]


def _key(kind: str, text: str) -> str:
    return f"{kind}:{blake3(text.encode('utf-8', 'surrogatepass')).hexdigest()}"


def found(kind: str, text: str) -> Any:
    """The parse kept for exactly this `kind` of `text`, or None."""
    path = _path()
    if path is None or len(text) < SMALLEST:
        return None
    key = _key(kind, text)
    raw = next((parse for kept, parse in _file(path).entries if kept == key), None)
    if raw is None:
        return None
    try:
        return msgspec.msgpack.decode(raw)
    except msgspec.DecodeError:
        return None


def keep(parses: Iterable[tuple[str, str, Any]]) -> None:
    """Keep each (kind, text, parse) for later commands, in one write (a text too small, a
    TOML text that may hold a date or time, or a parse holding a lone surrogate is not kept)."""
    path = _path()
    if path is None:
        return
    new: dict[str, msgspec.Raw] = {}
    for kind, text, parse in parses:
        if len(text) < SMALLEST or (kind == "toml" and _DATES.search(text)):
            continue
        try:
            new[_key(kind, text)] = msgspec.Raw(_ENCODER.encode(parse))
        except UnicodeEncodeError:  # a lone surrogate (a JSON `\ud800`): parsed again
            continue
    if not new:
        return
    known = _file(path)
    older = [entry for entry in known.entries if entry[0] not in new]
    known.entries = [*older, *new.items()][-_KEPT:]
    with contextlib.suppress(OSError):
        fs.replace_unsynced(path, _ENCODER.encode(known))
