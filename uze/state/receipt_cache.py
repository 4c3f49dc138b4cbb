"""Every receipt of a scope for a read-only command, decoded and checked once per receipt
file stat, not once per command (ADR 0101).

`uze status` and `uze list` on 200 packages read 7.9 MB of indented receipt JSON, decoded and
checked it (the name, the scope, every target a place uze writes), a third of their time. The
decoded receipts are kept in `$UZE_HOME/cache/receipts-<scope key>.msgpack` (a blake3 line,
then msgpack) with their file's `(st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns)`, as ADR
0011 keeps digests and ADR 0079 the owners of artifact keys: a receipt whose file has the
stat it had is taken from the cache, where it was decoded and passed `check_receipt`'s own
checks; its link checks (the file system's, not the receipt's) run every time. A new or
changed receipt is read, decoded and checked whole (`ScopeContext.checked_receipt`), so a
damaged one is refused with the same message as ever. Only settled files are remembered (the
racy-git rule of `statcache.settled`); the cache names the uze version that checked them;
lost, damaged or of another schema it reads as empty; a failure to write it is ignored; it
is written only when a receipt was read from its file.
"""

from __future__ import annotations

import contextlib
import functools
import time
from pathlib import Path
from typing import TYPE_CHECKING, Final

import msgspec
from blake3 import blake3

from uze import __version__, fs
from uze.projections.statcache import settled, stat_key
from uze.state.context import ScopeContext

if TYPE_CHECKING:
    from uze.state.receipts import KeptReceipt, KeptReceipts, Receipt

SCHEMA: Final = 1


@functools.cache
def _decoder() -> msgspec.msgpack.Decoder[KeptReceipts]:
    from uze.state.receipts import KeptReceipts  # start-up: loads once there is a receipt

    return msgspec.msgpack.Decoder(KeptReceipts)


def cache_path(ctx: ScopeContext) -> Path:
    """Where the receipts of `ctx`'s scope are kept."""
    return ctx.paths.uze_home / "cache" / f"receipts-{ctx.key}.msgpack"


def _root(ctx: ScopeContext) -> str:
    return f"{ctx.location.project}\0{ctx.paths.home}"


def _read(ctx: ScopeContext) -> dict[str, KeptReceipt]:
    try:
        raw = cache_path(ctx).read_bytes()
    except OSError:
        return {}
    check, body = raw[:64], memoryview(raw)[65:]
    if not body or raw[64:65] != b"\n" or blake3(body).hexdigest().encode() != check:
        return {}
    try:
        found = _decoder().decode(body)
    except msgspec.DecodeError:  # damage the checksum missed, or another shape
        return {}
    if found.schema != SCHEMA or found.version != __version__ or found.root != _root(ctx):
        return {}
    return found.receipts


_PENDING: dict[Path, bytes] = {}  # cache files `receipts(defer=True)` kept back, by path


def receipts(ctx: ScopeContext, *, defer: bool = False) -> list[Receipt]:
    """`ctx.receipts()` (every receipt of the scope, sorted by name, checked whole with its
    link checks), each receipt whose file is unchanged taken from the cache. `defer`: the
    cache file is written by `save()`, once the command has succeeded (a command that fails
    on bad input writes nothing anywhere)."""
    started = time.time_ns()
    files = ctx.receipt_files()
    if not files:
        return []
    from uze.state.receipts import KeptReceipt, KeptReceipts, check_receipt  # start-up: as above

    known = _read(ctx)
    fresh: dict[str, KeptReceipt] = {}
    out: list[Receipt] = []
    read = False
    for path in files:
        try:
            st = path.stat()
        except OSError:
            st = None
        entry = known.get(path.name)
        key = stat_key(st) if st is not None else None
        if key is not None and entry is not None and entry.stat == key:
            receipt = check_receipt(entry.receipt, path, ctx.roots, own=False)
            ctx.loaded[path] = (key, receipt, True)
        else:
            receipt = ctx.checked_receipt(path, links=True)
            read = True
        out.append(receipt)
        if key is not None and st is not None and settled(st, started):
            fresh[path.name] = entry if entry is not None and entry.stat == key \
                else KeptReceipt(key, receipt)
    if read or fresh.keys() != known.keys():
        body = msgspec.msgpack.encode(KeptReceipts(SCHEMA, __version__, _root(ctx), fresh))
        _PENDING[cache_path(ctx)] = blake3(body).hexdigest().encode() + b"\n" + body
        if not defer:
            save()
    return out


def save() -> None:
    """Write the cache files `receipts` kept back; a failure to write one is ignored (a cache)."""
    for path, payload in _PENDING.items():
        with contextlib.suppress(OSError):
            fs.replace_unsynced(path, payload)
    _PENDING.clear()
