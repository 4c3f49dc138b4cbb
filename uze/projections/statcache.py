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
import os
import stat
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Final

import msgspec
from blake3 import blake3

from uze import fs
from uze.projections.digest import content_digest

SCHEMA: Final = 2
_FINE_NS: Final = 100_000_000  # the kernel's coarse file clock lags by at most a tick (<= 10 ms)
_COARSE_NS: Final = 2_000_000_000  # FAT keeps 2 s, HFS+ and ext3 1 s
_SECOND: Final = 1_000_000_000
StatKey = tuple[int, int, int, int, int]
Entry = tuple[int, int, int, int, int, str]  # dev, ino, size, mtime_ns, ctime_ns, what it holds
_SEP: Final = "\0"  # no file name holds NUL
_BYTES_PER_LOOKUP: Final = 16384
"""About what decoding this much of the cache file costs, hashing a small file or listing a
folder costs (1.8 ms per MB of the file, 30 us per hash, on this project's machine)."""


class _File(msgspec.Struct, forbid_unknown_fields=True):
    """The cache file's body: `entries` (a file's digest), `folders` (a folder's names) and
    `matched` (the record keys found as uze wrote them in a shared file), each by absolute
    path with the stat it was seen with; names and keys joined by NUL."""

    schema: int
    entries: dict[str, Entry] = {}
    folders: dict[str, Entry] = {}
    matched: dict[str, Entry] = {}


def stat_key(st: os.stat_result) -> StatKey:
    """The stat fields an unchanged file keeps: device, inode, size, mtime and ctime (ns)."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def settled(st: os.stat_result, started_ns: int) -> bool:
    """Whether the file of `st` last changed clearly before `started_ns` (the racy-git rule):
    only then do equal stat fields prove equal bytes."""
    return _settled_times(st.st_mtime_ns, st.st_ctime_ns, started_ns)


def settled_key(key: Sequence[int], started_ns: int) -> bool:
    """`settled` of a `stat_key`."""
    return _settled_times(key[3], key[4], started_ns)


def _settled_times(mtime: int, ctime: int, started_ns: int) -> bool:
    coarse = mtime % _SECOND == 0 and ctime % _SECOND == 0
    return max(mtime, ctime) < started_ns - (_COARSE_NS if coarse else _FINE_NS)


def read_file(path: str) -> bytes:
    """The bytes of `path` (one place, so tests can count what is read). A str, not a Path:
    building a Path per file costs too much on a large folder."""
    with open(path, "rb") as handle:  # noqa: PTH123 (a str path on purpose, see above)
        return handle.read()


def list_folder(path: str) -> list[str]:
    """The names in the folder `path` (one place, so tests can count what is listed)."""
    return os.listdir(path)  # noqa: PTH208 (names as str: no Path per entry)


class DigestCache:
    """What uze's files hold, by absolute path, trusted only while the stat is unchanged:
    a file's content digest, a folder's names (ADR 0081), and which records were found as
    uze wrote them in a shared file (ADR 0081)."""

    def __init__(self, path: Path | None, *, started_ns: int | None = None) -> None:
        """Use the cache file `path` (None: remember nothing); nothing is read until first use.

        `started_ns`: when this command began, before any stat it takes (default: now).
        """
        self.path = path
        self._started = time.time_ns() if started_ns is None else started_ns
        self._known: _File | None = None
        self._seen: dict[str, Entry] = {}
        self._folders: dict[str, Entry] = {}
        self._matched: dict[str, tuple[os.stat_result, set[str]]] = {}
        self._keys: dict[str, frozenset[str]] = {}  # the cache file's matched keys, split
        self._kept: set[str] = set()  # paths trusted as a whole (`keep`): their entries stay
        # While a list (status inspecting one package, ADR 0101): each path looked at, with
        # the stat its answer rests on (a file's digest, a folder's names). A shared file's
        # records are kept by record beside them, not by this list (ADR 0107).
        self.deps: list[tuple[str, StatKey]] | None = None
        self._asked = 0  # digests and folder names looked up so far (`_worth`)
        self._worth_after: int | None = None  # lookups before the file is worth reading
        self.saves = False  # a command that saves what it learnt (status) reads the file first

    def digest(self, path: Path | str, st: os.stat_result) -> str:
        """`content_digest` of the regular file `path`, whose `lstat` is `st` (a str path spares
        a Path per file on the hot loop of status)."""
        name = os.fspath(path)
        key = stat_key(st)
        if self.deps is not None:
            self.deps.append((name, key))
        known = self._seen.get(name) or self._worth().entries.get(name)
        if known is not None and known[:5] == key:
            self._seen[name] = known
            return known[5]
        digest = content_digest(read_file(name))
        if self._settled(st):
            self._seen[name] = (*key, digest)
        return digest

    def files(self, folder: Path | str) -> dict[str, tuple[str, os.stat_result]]:
        """Every regular file and link below the folder `folder` (links never followed) by
        POSIX relative path, with its path and `lstat`; other kinds of file are left out.
        A folder whose stat is unchanged since it was listed is not listed again: adding,
        removing or renaming a name in a folder moves its mtime and ctime. Iterative: a folder
        nested thousands of levels deep is walked, not a RecursionError. Raises OSError for
        `folder` itself (missing, not a folder)."""
        found: dict[str, tuple[str, os.stat_result]] = {}
        top = os.fspath(folder)
        pending = [(top, "", os.lstat(top))]
        while pending:
            current, prefix, st = pending.pop()
            for name in self._names(current, st):
                path = f"{current}/{name}"
                try:
                    info = os.lstat(path)
                except FileNotFoundError:  # removed since the folder was listed
                    continue
                if stat.S_ISDIR(info.st_mode):
                    pending.append((path, f"{prefix}{name}/", info))
                elif stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode):
                    found[prefix + name] = (path, info)
        return found

    def _names(self, folder: str, st: os.stat_result) -> list[str]:
        """The names in `folder`, whose `lstat` (taken before this) is `st`."""
        key = stat_key(st)
        if self.deps is not None:
            self.deps.append((folder, key))
        known = self._folders.get(folder) or self._worth().folders.get(folder)
        if known is not None and known[:5] == key:
            self._folders[folder] = known
            return known[5].split(_SEP) if known[5] else []
        names = list_folder(folder)
        if self._settled(st):
            self._folders[folder] = (*key, _SEP.join(sorted(names)))
        return names

    def was_matched(self, path: Path | str, st: os.stat_result, key: str) -> bool:
        """Whether the record `key` was found as uze wrote it in the regular file `path` when
        that file had the `lstat` `st` it has now."""
        name = os.fspath(path)
        known = self._file().matched.get(name)
        if known is None or not stat.S_ISREG(st.st_mode) or known[:5] != stat_key(st):
            return False
        keys = self._keys.get(name)
        if keys is None:
            keys = self._keys[name] = frozenset(known[5].split(_SEP))
        if key not in keys:
            return False
        self._matched.setdefault(name, (st, set()))[1].add(key)  # still true: kept on save
        return True

    def matched(self, path: Path | str, st: os.stat_result, key: str) -> None:
        """Remember that the record `key` was found as uze wrote it in the regular file `path`,
        read after its `lstat` gave `st` (only if the file was settled then: the racy rule)."""
        name = os.fspath(path)
        if stat.S_ISREG(st.st_mode) and self._settled(st):
            entry = self._matched.setdefault(name, (st, set()))
            if stat_key(entry[0]) == stat_key(st):
                entry[1].add(key)

    def keep(self, paths: Iterable[str]) -> None:
        """Keep what the cache file says of `paths` on `save` (files, folders, shared files
        of a package status trusted as a whole, ADR 0101, without asking this cache)."""
        self._kept.update(paths)

    def save(self, *, merge: bool) -> None:
        """Write what this command verified (`merge`: keep the other entries too).

        Only when it changed. A failure to write (read-only or full disk) is ignored: the
        cache is an optimisation, never a reason for a command to fail.
        """
        if self.path is None or (self._known is None and not self._seen and not self._folders
                                 and not self._matched):
            return  # nothing looked up, nothing learnt (every package trusted whole, ADR 0101)
        known = self._file()
        matched = {name: (*stat_key(st), _SEP.join(sorted(keys)))
                   for name, (st, keys) in self._matched.items()}
        kept = self._kept
        for name, entry in matched.items():  # the same file unchanged: every key found
            old = known.matched.get(name)
            if (merge or name in kept) and old is not None and old[:5] == entry[:5]:
                matched[name] = (*entry[:5], _SEP.join(sorted(
                    {*old[5].split(_SEP), *entry[5].split(_SEP)})))
        if merge:
            body = _File(SCHEMA, {**known.entries, **self._seen},
                         {**known.folders, **self._folders}, {**known.matched, **matched})
        else:  # what this command saw, and what it trusted as a whole (`keep`)
            body = _File(
                SCHEMA,
                {**{p: e for p, e in known.entries.items() if p in kept}, **self._seen},
                {**{p: e for p, e in known.folders.items() if p in kept}, **self._folders},
                {**{p: e for p, e in known.matched.items() if p in kept}, **matched})
        if body == known:
            return
        text = msgspec.json.encode(body, order="sorted")
        data = blake3(text).hexdigest().encode() + b"\n" + text + b"\n"
        with contextlib.suppress(OSError):
            fs.replace_unsynced(self.path, data)

    def _settled(self, st: os.stat_result) -> bool:
        return settled(st, self._started)

    def _worth(self) -> _File:
        """The cache file, for a command that `saves` or once this command has looked up as
        many digests or folders as reading the file costs (its size / `_BYTES_PER_LOOKUP`);
        before that an empty one. The file holds every package's entries (4.5 MB at 200
        packages, about 8 ms to check and decode), where an install or an uninstall looks at
        its own package's files (about 90 for a package of 3 skills in 7 harnesses): hashing
        those costs less, and does not grow with the project (issue 32, ADR 0113). A file
        hashed or a folder listed is right either way."""
        self._asked += 1
        if self._known is None and not self.saves:
            if self._worth_after is None:
                try:
                    size = self.path.stat().st_size if self.path is not None else 0
                except OSError:
                    size = 0
                self._worth_after = size // _BYTES_PER_LOOKUP
            if self._asked <= self._worth_after:
                return _NOTHING
        return self._file()

    def _file(self) -> _File:
        if self._known is None:
            self._known = _load(self.path)
        return self._known


_DECODER: Final = msgspec.json.Decoder(_File)


_NOTHING: Final = _File(SCHEMA)  # `_worth` before it reads the file: never changed


def _load(path: Path | None) -> _File:
    """The cache file; anything unreadable, damaged or of another schema counts as empty."""
    try:
        raw = path.read_bytes() if path is not None else b""
    except OSError:
        return _File(SCHEMA)
    check, _, body = raw.partition(b"\n")
    body = body.rstrip(b"\n")
    if not body or blake3(body).hexdigest().encode() != check:
        return _File(SCHEMA)
    try:
        found = _DECODER.decode(body)
    except msgspec.DecodeError:  # damage the checksum missed, or another shape
        return _File(SCHEMA)
    return found if found.schema == SCHEMA else _File(SCHEMA)


def cache_file(uze_home: Path, scope_key: str) -> Path:
    """Where the digest cache of one scope lives."""
    return uze_home / "cache" / f"digests-{scope_key}.json"
