"""Which package owns each artifact key of a scope: what an install's conflict check asks of
every other receipt, remembered by receipt file stat (ADR 0079).

An install refuses a target another package's receipt holds, so it needs the keys of every
receipt in the scope and nothing else of them: it neither reads nor writes their targets.
Reading, decoding and checking all of them was the largest part of the 200th install of a
project (issue 32). The keys of each receipt are kept in `$UZE_HOME/cache/owners-<scope
key>.json` with its file's `(st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns)`, as ADR 0011
keeps digests: a receipt whose file has not changed since a command read it is not read
again; a new or changed one is loaded and checked (`ScopeContext.receipts(links=False)`'s
rules, refusals included). Only settled files are remembered (the racy-git rule of
`statcache.settled`), never the installing package's own receipt (the install rewrites it),
and the cache is a hint: lost, damaged or of another schema it reads as empty; a failure to
write it is ignored. It is written (`save`) only by an install that wrote something: a
re-install of an unchanged package writes no file anywhere (invariant 6, ADR 0011).
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Final

import msgspec
from blake3 import blake3

from uze import fs
from uze.artifacts import registry as kinds
from uze.projections.statcache import settled, stat_key
from uze.state.context import ScopeContext

SCHEMA: Final = 1


class _Owned(msgspec.Struct, array_like=True, frozen=True):
    stat: tuple[int, ...]
    keys: list[str]


class _Cache(msgspec.Struct, forbid_unknown_fields=True):
    schema: int
    receipts: dict[str, _Owned]


def cache_path(ctx: ScopeContext) -> Path:
    """Where the owners cache of `ctx`'s scope lives."""
    return ctx.paths.uze_home / "cache" / f"owners-{ctx.key}.json"


_EMPTY: Final[dict[str, _Owned]] = {}
_DECODED: list[tuple[bytes, dict[str, _Owned]]] = []  # the last cache text read, decoded


def _read(path: Path) -> dict[str, _Owned]:
    """The cache at `path` (empty when lost, damaged or of another schema), not to be changed:
    the same bytes as the last read give the same dict (an install asks twice)."""
    try:
        raw = path.read_bytes()
    except OSError:
        return _EMPTY
    if _DECODED and _DECODED[0][0] == raw:
        return _DECODED[0][1]
    check, _, body = raw.partition(b"\n")
    try:
        if not body or blake3(body).hexdigest().encode() != check:
            return _EMPTY
        cache = msgspec.json.decode(body, type=_Cache)
    except msgspec.DecodeError:
        return _EMPTY
    found = cache.receipts if cache.schema == SCHEMA else _EMPTY
    _DECODED[:] = [(raw, found)]
    return found


def _write(path: Path, receipts: dict[str, _Owned]) -> None:
    body = msgspec.json.encode(_Cache(SCHEMA, dict(sorted(receipts.items()))))
    with contextlib.suppress(OSError):
        fs.replace_unsynced(path, blake3(body).hexdigest().encode() + b"\n" + body)


_PENDING: dict[Path, dict[str, _Owned]] = {}


def save(ctx: ScopeContext) -> None:
    """Write what `owners` last learnt in `ctx`'s scope, if it changed the cache (after an
    install's commit); nothing learnt by a command that failed is written for another."""
    receipts = _PENDING.pop(cache_path(ctx), None)
    if receipts is not None:
        _write(cache_path(ctx), receipts)


# The last answer of `owners` per cache path: the cache it read, what it was asked (the
# package left out, each receipt file's name and stat) and what it found and learnt. Kept
# only when every receipt file had settled or matched the cache, so the same answers to every
# question give the same result without reading anything again (an install asks before and
# under the lock).
_ANSWERED: dict[Path, tuple[dict[str, _Owned], object, dict[str, str], dict[str, _Owned]]] = {}


def owners(ctx: ScopeContext, exclude: str) -> dict[str, str]:
    """Artifact key -> package name for every receipt of the scope but `exclude`'s (a new
    dict the caller may change)."""
    started = time.time_ns()
    path = cache_path(ctx)
    known = _read(path)
    names = ctx.receipt_file_names()
    stats = _stats(ctx.receipts_dir, names)
    asked = (exclude, [(name, None if st is None else stat_key(st))
                       for name, st in zip(names, stats, strict=True)])
    last = _ANSWERED.pop(path, None)
    if last is not None and last[0] is known and last[1] == asked:
        found, fresh, whole = last[2], last[3], True
    else:
        found, fresh, whole = _owned(ctx, names, stats, exclude, known, started)
    if whole:
        _ANSWERED[path] = (known, asked, found, fresh)
    _PENDING.pop(path, None)
    if fresh != known:
        _PENDING[path] = fresh
    return dict(found)


def _stats(folder: Path, names: list[str]) -> list[os.stat_result | None]:
    """The stat of each of `names` in `folder` (None: gone or unreadable), taken by name in
    the open folder: 200 receipts in 0.3 ms, where a Path each cost twice that."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return [_stat(folder / name) for name in names]
    try:
        return [_stat_at(name, fd) for name in names]
    finally:
        os.close(fd)


def _stat_at(name: str, folder: int) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=folder)
    except OSError:
        return None


def _stat(file: Path) -> os.stat_result | None:
    try:
        return file.stat()
    except OSError:
        return None


def _owned(ctx: ScopeContext, names: list[str], stats: list[os.stat_result | None],
           exclude: str, known: dict[str, _Owned], started: int
           ) -> tuple[dict[str, str], dict[str, _Owned], bool]:
    """`owners` read from the cache and the receipt files: (what it found, what the cache
    should hold, whether every file had settled or matched the cache)."""
    fresh: dict[str, _Owned] = {}
    held: list[tuple[list[str], str]] = []
    whole = True
    for name, st in zip(names, stats, strict=True):
        entry = known.get(name)
        if st is not None and entry is not None and entry.stat == stat_key(st):
            keys = entry.keys
        else:  # new or changed: read and checked, refused whole if it must be
            receipt = ctx.checked_receipt(ctx.receipts_dir / name, links=False)
            keys = [kinds.record_key(record) for record in receipt.artifacts]
            entry = _Owned(stat_key(st), keys) if st is not None and settled(st, started) \
                else None
            whole = whole and entry is not None
        package = name.removesuffix(".json")
        if package != exclude:
            held.append((keys, package))
            if entry is not None:
                fresh[name] = entry
    found = {key: package for keys, package in held for key in keys}  # the last one wins
    return found, fresh, whole
