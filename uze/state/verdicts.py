"""What `uze status` found for each package, remembered with every stat it rested on (ADR 0101).

Status on 200 packages inspects 6,800 artifacts: 12,000 files and 6,400 folders of delivered
folders, and 4,600 records in a dozen shared files. The digest cache (ADR 0011, 0081) already
spares reading any of them while its stat is unchanged, but each artifact was still taken
apart record by record, file by file. A package all of whose artifacts were `matched` is
remembered here with the `lstat` of every file, folder and shared file its inspection used
(`DigestCache.deps`), and the receipt file's own stat. On the next status, while the receipt
file's stat is the same, each of those paths is `lstat`ed again and the package's states are
taken as they were when every stat is equal, which is exactly what the digest cache already
trusts of each one: equal stat fields prove equal bytes, and a folder's equal stat proves the
same names. Anything else (a stat that moved, a path gone, another receipt, another project
root, HOME or uze version) inspects the package in full.

As in ADR 0011: only settled stats are remembered (the racy-git rule of `statcache.settled`),
the cache lives under `$UZE_HOME/cache/` (never in the project), carries a checksum, and lost,
damaged or of another schema it reads as empty; a failure to write it is ignored. A package
with any difference is never remembered: its differences are computed each time.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Final

import msgspec
from blake3 import blake3

from uze import __version__, fs
from uze.projections.statcache import StatKey, settled_key

SCHEMA: Final = 1


class _Verdict(msgspec.Struct, array_like=True, frozen=True):
    receipt: tuple[int, int, int, int, int]  # the receipt file's stat
    where: str  # project root, HOME and uze version the paths and states were found with
    states: list[str]  # PackageStatus.states
    deps: list[str]  # every path the inspection looked at, absolute
    stats: bytes  # blake3 of their stats, in that order


class _File(msgspec.Struct, array_like=True):
    schema: int
    packages: dict[str, _Verdict]


_DECODER: Final = msgspec.msgpack.Decoder(_File)


def _digest(stats: Sequence[StatKey]) -> bytes:
    return blake3(msgspec.msgpack.encode(stats)).digest()


class Verdicts:
    """The packages of one scope found matched by an earlier status, by receipt file."""

    def __init__(self, path: Path | None, where: str, *, started_ns: int | None = None) -> None:
        """Use the cache file `path` (None: remember nothing); `where` names what the paths
        and states depend on beyond the files themselves (project root, HOME)."""
        self.path = path
        self.where = f"{where}\0{__version__}"
        self._started = time.time_ns() if started_ns is None else started_ns
        self._known: dict[str, _Verdict] | None = None
        self._kept: dict[str, _Verdict] = {}
        self._stats: dict[str, StatKey] = {}  # lstat of each path, once per command
        self.trusted: set[str] = set()  # every path of a package taken as it was

    def states(self, receipt: Path, key: Sequence[int]) -> tuple[str, ...] | None:
        """The states remembered for the package of the receipt file `receipt` (whose stat
        is `key` now), when every path they rest on has the stat it had; else None."""
        name = os.fspath(receipt)
        known = self._file().get(name)
        if known is None or known.receipt != tuple(key) or known.where != self.where:
            return None
        stats: list[StatKey] = []
        memo, lstat = self._stats, os.lstat  # the hot loop: 18,000 paths at 200 packages
        for path in known.deps:
            found = memo.get(path)
            if found is None:
                try:
                    st = lstat(path)
                except OSError:
                    return None
                found = memo[path] = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns,
                                      st.st_ctime_ns)
            stats.append(found)
        if _digest(stats) != known.stats:
            return None
        self._kept[name] = known
        self.trusted.update(known.deps)
        return tuple(known.states)

    def remember(self, receipt: Path, key: Sequence[int], states: Iterable[str],
                 deps: Iterable[tuple[str, StatKey]]) -> None:
        """Remember a package found matched: its receipt file's stat `key`, its `states` and
        each path its inspection looked at with the stat it used. Nothing is remembered when
        any of them (or the receipt) changed within the racy window, or one path was seen
        with two stats."""
        seen: dict[str, StatKey] = {}
        for path, stat in deps:
            if seen.setdefault(path, stat) != stat or not settled_key(stat, self._started):
                return
        if not settled_key(tuple(key), self._started):
            return
        self._kept[os.fspath(receipt)] = _Verdict(
            (key[0], key[1], key[2], key[3], key[4]), self.where, list(states), list(seen),
            _digest(list(seen.values())))

    def save(self, *, merge: bool) -> None:
        """Write what this status found or confirmed (`merge`: keep the other packages too),
        only when it changed; a failure to write is ignored."""
        if self.path is None:
            return
        known = self._file()
        body = {**known, **self._kept} if merge else dict(self._kept)
        if body == known:
            return
        data = msgspec.msgpack.encode(_File(SCHEMA, dict(sorted(body.items()))))
        with contextlib.suppress(OSError):
            fs.replace_unsynced(self.path, blake3(data).hexdigest().encode() + b"\n" + data)

    def _file(self) -> dict[str, _Verdict]:
        if self._known is None:
            self._known = _load(self.path)
        return self._known


def _load(path: Path | None) -> dict[str, _Verdict]:
    """The cache file's packages; anything unreadable, damaged or of another schema is none."""
    try:
        raw = path.read_bytes() if path is not None else b""
    except OSError:
        return {}
    check, body = raw[:64], raw[65:]
    if not body or raw[64:65] != b"\n" or blake3(body).hexdigest().encode() != check:
        return {}
    try:
        found = _DECODER.decode(body)
    except msgspec.DecodeError:  # damage the checksum missed, or another shape
        return {}
    return found.packages if found.schema == SCHEMA else {}


def cache_file(uze_home: Path, scope_key: str) -> Path:
    """Where the verdicts of one scope live."""
    return uze_home / "cache" / f"verdicts-{scope_key}.msgpack"
