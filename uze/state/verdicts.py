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

A package's records in shared files (entries, hook groups, regions: every package's part of
the same settings files) are not keyed by those files' stats with the rest (ADR 0107): an
install of another package rewrites the files, which would make every package inspected again
at the next status. The verdict keeps, per shared file, the stat it had when the package's
records there were found as uze wrote them, and the indexes of those records in the receipt.
A file with that stat (a regular file) is trusted as before; in a file whose stat moved, each
of the package's records is checked again by the caller (`recheck`: one lookup in the one
parse of the file per command), and the package is taken as it was only when every one is
still `matched`; its folders and files are not looked at again beyond their `lstat`s.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Final

import msgspec
from blake3 import blake3

from uze import __version__, fs
from uze.projections import snapshot
from uze.projections.statcache import StatKey, settled_key, stat_key

SCHEMA: Final = 2


class _Verdict(msgspec.Struct, array_like=True, frozen=True):
    receipt: tuple[int, int, int, int, int]  # the receipt file's stat
    where: str  # project root, HOME and uze version the paths and states were found with
    states: list[str]  # PackageStatus.states
    deps: list[str]  # every path the inspection looked at, absolute (shared files apart)
    stats: bytes  # blake3 of their stats, in that order
    shared: list[tuple[str, tuple[int, int, int, int, int]]]  # each shared file, its stat
    records: list[list[int]]  # per shared file: its records' indexes in receipt.artifacts


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

    def states(self, receipt: Path, key: Sequence[int],
               recheck: Callable[[int], bool]) -> tuple[str, ...] | None:
        """The states remembered for the package of the receipt file `receipt` (whose stat
        is `key` now), when every path they rest on has the stat it had and, in each shared
        file whose stat moved, `recheck(index)` finds each of the package's records there
        (by its index in the receipt's artifacts) still as uze wrote it; else None."""
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
        shared = list(known.shared)
        for at, (path, was) in enumerate(known.shared):
            now = self._shared(path)
            if now == was:  # a regular file with the stat it had: its records as they were
                continue
            if not all(recheck(index) for index in known.records[at]):
                return None
            if now is not None and settled_key(now, self._started):
                shared[at] = (path, now)  # checked at this stat: trusted by it next time
        self._kept[name] = known if shared == known.shared else \
            msgspec.structs.replace(known, shared=shared)
        self.trusted.update(known.deps)
        self.trusted.update(path for path, _ in known.shared)
        return tuple(known.states)

    def remember(self, receipt: Path, key: Sequence[int], states: Iterable[str],
                 deps: Iterable[tuple[str, StatKey]],
                 shared: Iterable[tuple[int, str, os.stat_result]] = ()) -> None:
        """Remember a package found matched: its receipt file's stat `key`, its `states`,
        each path its inspection looked at with the stat it used (`deps`), and each of its
        records in a shared file (`shared`: its index in the receipt's artifacts, the file,
        the `lstat` taken before the file was read). Nothing is remembered when any of them
        (or the receipt) changed within the racy window, one path was seen with two stats,
        or a shared file is not a regular file (a link's stat says nothing of its target)."""
        seen: dict[str, StatKey] = {}
        for path, found in deps:
            if seen.setdefault(path, found) != found or not settled_key(found, self._started):
                return
        if not settled_key(tuple(key), self._started):
            return
        files: dict[str, tuple[StatKey, list[int]]] = {}
        for index, path, st in shared:
            found = stat_key(st)
            entry = files.setdefault(path, (found, []))
            if not stat.S_ISREG(st.st_mode) or entry[0] != found \
                    or not settled_key(found, self._started):
                return
            entry[1].append(index)
        self._kept[os.fspath(receipt)] = _Verdict(
            (key[0], key[1], key[2], key[3], key[4]), self.where, list(states), list(seen),
            _digest(list(seen.values())), [(path, k) for path, (k, _i) in files.items()],
            [indexes for _k, indexes in files.values()])

    def _shared(self, path: str) -> StatKey | None:
        """The stat of the shared file `path` as this command sees it (the one `lstat` every
        reader of it shares, `snapshot.lstat`); None when it is not a regular file."""
        st = snapshot.lstat(path)
        return stat_key(st) if st is not None and stat.S_ISREG(st.st_mode) else None

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
