"""Shared files read once per read-only command (issue 32 item 2).

`uze status` inspects every package's entries, hook groups and regions, and most of them live
in the same few shared files (`opencode.json`, `.mcp.json`, AGENTS.md, ...), each holding every
package's part: reading the whole file again for each artifact made status quadratic in the
number of packages. Inside `held()` a file is looked at (`lstat`) once and read once, its stat
always taken before its bytes, and both are handed to every later reader (the same `bytes`
object, so the parses memoised by content find it by identity); a command that writes never
enters it, so a writer always reads what is on disk now, or what the edits of its open
transaction left for the file (`Transaction.edit`, ADR 0104): `read`, `shape`, `exists` and
`is_file` see those bytes before the file holds them.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from uze import memo
from uze.projections.statcache import settled, stat_key
from uze.transaction import pending

Shape = Literal["file", "missing", "other"]
_held: dict[str, bytes] | None = None
_stats: dict[str, os.stat_result | None] = {}
_parses: dict[tuple[int, str], object] = {}  # parses of the bytes held, by id and format
_ids: set[int] = set()  # id of each bytes object held
_KEPT_MAX = 32
_kept: dict[str, tuple[tuple[int, ...], bytes]] = {}  # outside held(): the bytes by stat
memo.per_package(_kept.clear)  # ADR 0100


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Within this block, `read` reads and `lstat` looks at each file once (for commands
    that write nothing)."""
    global _held
    outer, _held = _held, {} if _held is None else _held
    try:
        yield
    finally:
        _held = outer
        if outer is None:
            _stats.clear()
            _parses.clear()
            _ids.clear()


def parses(data: bytes) -> dict[tuple[int, str], object] | None:
    """Where to remember parses of `data` (by `(id(data), format)`) when `data` is the very
    bytes object `read` returned for a file in this `held()` block: kept, unbounded, until the
    block ends, since the block keeps the bytes (so their id) and reads each file once; None
    for any other bytes (ADR 0107)."""
    return _parses if _held is not None and id(data) in _ids else None


def lstat(path: Path | str) -> os.stat_result | None:
    """`os.lstat(path)`, None when nothing is there; inside `held()` the first one taken
    (before any `read` of the file)."""
    name = os.fspath(path)
    if _held is not None and name in _stats:
        return _stats[name]
    try:
        found: os.stat_result | None = os.lstat(name)
    except (FileNotFoundError, NotADirectoryError):
        found = None
    if _held is not None:
        _stats[name] = found
    return found


def shape(path: Path) -> Shape:
    """What is at `path`, links not followed: a regular `file`, nothing (`missing`), or
    anything else, a link or a folder (`other`)."""
    if pending(path) is not None:
        return "file"
    found = lstat(path)
    if found is None:
        return "missing"
    return "file" if stat.S_ISREG(found.st_mode) else "other"


def exists(path: Path) -> bool:
    """`path.exists()`, or the open transaction has edits of it."""
    return pending(path) is not None or path.exists()


def is_file(path: Path) -> bool:
    """`path.is_file()`, or the open transaction has edits of it."""
    return pending(path) is not None or path.is_file()


def read(path: Path) -> bytes:
    """The bytes of the file at `path`, b"" when nothing is there (raises OSError as
    `Path.read_bytes` does for anything else); inside `held()` the bytes first read, read
    after its `lstat`; what the open transaction's edits left for it, if any."""
    if _held is None:
        found = pending(path)
        return found if found is not None else _current(path)
    name = os.fspath(path)
    found = _held.get(name)
    if found is None:
        lstat(path)
        found = _held[name] = path.read_bytes() if path.exists() else b""
        _ids.add(id(found))
    return found


def _current(path: Path) -> bytes:
    """The bytes of the file at `path` now (b"" when nothing is there): the same `bytes`
    object as the last read while its (device, inode, size, mtime, ctime) stay as they were
    and it had settled before that read (the racy-git rule of `statcache.settled`), so the
    parses memoised by the bytes' identity find it. Preflight looks up each entry and hook
    group of a package in a file holding every package's, twice (ADR 0104)."""
    name = os.fspath(path)
    try:
        st = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        _kept.pop(name, None)
        return b""
    if not stat.S_ISREG(st.st_mode):
        return path.read_bytes()  # raises as it always did (a folder)
    key = stat_key(st)
    found = _kept.get(name)
    if found is not None and found[0] == key:
        return found[1]
    started = time.time_ns()
    data = path.read_bytes()
    if settled(st, started):
        if len(_kept) >= _KEPT_MAX:
            _kept.clear()
        _kept[name] = (key, data)
    return data
