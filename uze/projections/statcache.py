"""Digests of files uze delivered, remembered by path and stat: the fast path of status (ADR 0011).

A file whose (device, inode, size, mtime_ns, ctime_ns) equals what was seen when its bytes were
last hashed is not read again. The cache says what a file holds, not whether it matches a
receipt, so a new receipt never makes it stale. It lives outside the receipts (one file per
scope under `$UZE_HOME/cache/`), carries a checksum, and losing it, or any damage to it, only
costs a re-hash.

Racy-git rule: a file changed shortly before the hash started (within `_FINE_NS`, or
`_COARSE_NS` where the file system keeps whole seconds) is never remembered, since an edit in
the same clock tick could leave every stat field as it was. Any later write moves ctime to the
current time, which no user-level call can set back, so an edit that keeps size and mtime (even
forced back with `touch -d`/`os.utime`) is still read and seen.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Final

from blake3 import blake3

from uze import fs
from uze.projections.digest import content_digest

SCHEMA: Final = 1
_FINE_NS: Final = 100_000_000  # the kernel's coarse file clock lags by at most a tick (<= 10 ms)
_COARSE_NS: Final = 2_000_000_000  # FAT keeps 2 s, HFS+ and ext3 1 s
_SECOND: Final = 1_000_000_000
Entry = list[int | str]  # dev, ino, size, mtime_ns, ctime_ns, digest


def stat_key(st: os.stat_result) -> list[int]:
    """The stat fields an unchanged file keeps: device, inode, size, mtime and ctime (ns)."""
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def settled(st: os.stat_result, started_ns: int) -> bool:
    """Whether the file of `st` last changed clearly before `started_ns` (the racy-git rule):
    only then do equal stat fields prove equal bytes."""
    coarse = st.st_mtime_ns % _SECOND == 0 and st.st_ctime_ns % _SECOND == 0
    margin = _COARSE_NS if coarse else _FINE_NS
    return max(st.st_mtime_ns, st.st_ctime_ns) < started_ns - margin


def read_file(path: str) -> bytes:
    """The bytes of `path` (one place, so tests can count what is read). A str, not a Path:
    building a Path per file costs too much on a large folder."""
    with open(path, "rb") as handle:  # noqa: PTH123 (a str path on purpose, see above)
        return handle.read()


class DigestCache:
    """Content digests by absolute path, trusted only while the stat is unchanged."""

    def __init__(self, path: Path | None, *, started_ns: int | None = None) -> None:
        """Use the cache file `path` (None: remember nothing); nothing is read until first use.

        `started_ns`: when this command began, before any stat it takes (default: now).
        """
        self.path = path
        self._started = time.time_ns() if started_ns is None else started_ns
        self._known: dict[str, Entry] | None = None
        self._seen: dict[str, Entry] = {}

    def digest(self, path: Path | str, st: os.stat_result) -> str:
        """`content_digest` of the regular file `path`, whose `lstat` is `st` (a str path spares
        a Path per file on the hot loop of status)."""
        name = os.fspath(path)
        key = stat_key(st)
        known = self._seen.get(name) or self._entries().get(name)
        if known is not None and known[:5] == key:
            self._seen[name] = known
            return str(known[5])
        digest = content_digest(read_file(name))
        if self._settled(st):
            self._seen[name] = [*key, digest]
        return digest

    def save(self, *, merge: bool) -> None:
        """Write what this command verified (`merge`: keep the other entries too).

        Only when it changed. A failure to write (read-only or full disk) is ignored: the
        cache is an optimisation, never a reason for a command to fail.
        """
        if self.path is None:
            return
        known = self._entries()
        entries = {**known, **self._seen} if merge else dict(self._seen)
        if entries == known:
            return
        body = json.dumps({"schema": SCHEMA, "entries": entries}, separators=(",", ":"),
                          sort_keys=True)
        data = f"{blake3(body.encode()).hexdigest()}\n{body}\n".encode()
        with contextlib.suppress(OSError):
            fs.replace_unsynced(self.path, data)

    def _settled(self, st: os.stat_result) -> bool:
        return settled(st, self._started)

    def _entries(self) -> dict[str, Entry]:
        if self._known is None:
            self._known = _load(self.path)
        return self._known


def _load(path: Path | None) -> dict[str, Entry]:
    """The entries of a cache file; anything unreadable, damaged or unknown counts as empty."""
    try:
        raw = path.read_bytes() if path is not None else b""
        check, _, body = raw.partition(b"\n")
        if not body or blake3(body.rstrip(b"\n")).hexdigest().encode() != check:
            return {}
        document = json.loads(body)
    except (OSError, ValueError):
        return {}
    if not isinstance(document, dict) or document.get("schema") != SCHEMA:
        return {}
    entries = document.get("entries")
    if not isinstance(entries, dict):
        return {}
    return {name: entry for name, entry in entries.items() if _well_formed(entry)}


def _well_formed(entry: object) -> bool:
    return (isinstance(entry, list) and len(entry) == 6 and isinstance(entry[5], str)
            and all(isinstance(field, int) for field in entry[:5]))


def cache_file(uze_home: Path, scope_key: str) -> Path:
    """Where the digest cache of one scope lives."""
    return uze_home / "cache" / f"digests-{scope_key}.json"
