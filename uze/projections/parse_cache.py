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
- Each parse is a file of its own, named by its kind and digest (written once, by a rename
  without fsync, never changed), under `$UZE_HOME/cache/parses`: the blake3 digest of its
  MessagePack body, then the body. It is a cache (ADR 0107's rule): a file missing, damaged
  or unreadable reads as absent (a damaged one is written again by the next keep of its
  text), and losing one costs only time. Reading writes nothing (a re-install that changes
  nothing leaves every file as it was, ADR 0011); a keep makes a file it finds among the
  newest again.
  The newest `_KEPT` stay (one install edits up to ten shared files).
- Nothing is kept or read until `use` names the folder (a command's scope does,
  `open_scope`): library callers and the projections' own tests parse as before.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

import msgspec
from blake3 import blake3

from uze import fs
from uze.errors import UzeError
from uze.patterns import compile_later

SMALLEST: Final = 8192
"""Texts shorter than this are parsed again: reading the cache costs more than parsing them."""
_KEPT: Final = 48
_DATES: Final = compile_later(r":\d\d|-\d\d-")
"""What every TOML date (`-MM-`), time and date-time (`:MM`) holds; a TOML text with it
anywhere (inside strings too) is not kept. Both start with a literal: 0.2 ms for 42 KB, where
a pattern starting with a digit class took 1.2 ms."""
_SCHEMA: Final = "1"  # in every name: a parse of another layout is never found
_FOLDER: list[Path] = []
_DAMAGED: set[Path] = set()  # kept parses `found` could not read: `keep` writes them again


def use(folder: Path | None) -> None:
    """Keep and read parses under `folder` (None: neither) from now on in this process."""
    _FOLDER[:] = [folder / "parses"] if folder is not None else []


def _path(kind: str, text: str) -> Path | None:
    if not _FOLDER or len(text) < SMALLEST:
        return None
    digest = blake3(text.encode("utf-8", "surrogatepass")).hexdigest()
    return _FOLDER[0] / f"{kind}-{_SCHEMA}-{digest}.msgpack"


def found(kind: str, text: str, type: Any = Any) -> Any:
    """The parse kept for exactly this `kind` of `text` (decoded as `type`), or None. Writes
    nothing: a command that only reads (status, a re-install that changes nothing) leaves
    every file as it was; a damaged file is replaced by the next `keep` of its text."""
    path = _path(kind, text)
    if path is None:
        return None
    try:
        data = path.read_bytes()
        if blake3(data[32:]).digest() == data[:32]:
            return msgspec.msgpack.decode(memoryview(data)[32:], type=type)
    except (OSError, msgspec.DecodeError):
        pass
    _DAMAGED.add(path)
    return None


def keep(parses: Iterable[tuple[str, str, Any]]) -> None:
    """Keep each (kind, text, parse) for later commands (a text too small, a TOML text that
    may hold a date or time, or a parse holding a lone surrogate is not kept); then let only
    the newest `_KEPT` stay."""
    wrote = False
    for kind, text, parse in parses:
        path = _path(kind, text)
        if path is None or (kind == "toml" and _DATES.search(text)):
            continue
        try:
            if path not in _DAMAGED and path.exists():  # kept before: the same bytes
                os.utime(path)  # among the newest again, which stay
                continue
            body = msgspec.msgpack.encode(parse)
            fs.write_absent(path, blake3(body).digest() + body, 0o644)
        except (UnicodeEncodeError, OSError, UzeError):  # a lone surrogate (JSON `\ud800`)
            continue
        wrote = True
    if wrote:
        _prune(_FOLDER[0])


def _prune(folder: Path) -> None:
    """Remove all but the newest `_KEPT` parses, and temp files a killed writer left."""
    now, kept = time.time(), []
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            with contextlib.suppress(OSError):
                mtime = entry.stat(follow_symlinks=False).st_mtime
                if fs.TEMP_MARK not in entry.name:
                    kept.append((mtime, entry.path))
                elif now - mtime > 60:
                    fs.remove_file(Path(entry.path))
    for _mtime, path in sorted(kept)[:-_KEPT]:
        with contextlib.suppress(OSError):
            fs.remove_file(Path(path))
