"""Array-element artifacts (a hook group): one element uze appended to a config array.

An element is found by the digest of its value; an element that still runs uze's wrapper
(`marker`) but no longer matches the digest is an edit. A file that does not parse is never
rewritten.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from uze import memo
from uze.errors import ConfigBroken, ValueInTheWay
from uze.projections import config_array as ca
from uze.projections import snapshot
from uze.projections.config_entry import ConfigUnreadable, KeyPathBlocked, UnsafeEdit
from uze.projections.entry import is_hollow, value_digest
from uze.transaction import Transaction
from uze.vocabulary import ConfigFormat, LiveState


def _read(path: Path) -> bytes:
    return snapshot.read(path)


def _items(path: Path, fmt: ConfigFormat, key_path: tuple[str, ...]) -> list[object]:
    try:
        return ca.read_array(_read(path), fmt, key_path)
    except ca.NotAnArray:
        return []


_DIGESTS: dict[int, tuple[list[object], object]] = {}
_REPRS: dict[int, tuple[list[object], object]] = {}
memo.per_package(_DIGESTS.clear)  # ADR 0100
memo.per_package(_REPRS.clear)
_PER_ARRAY_MAX = 256

T = TypeVar("T")


def _per_array(table: dict[int, tuple[list[object], object]], items: list[object],
               make: Callable[[list[object]], T]) -> T:
    """`make(items)`, once per parsed array (parses are memoised, and status and preflight
    look up every hook group of every package in the same few arrays): kept by the array's
    id with the array itself, so an id is never reused while remembered."""
    found = table.get(id(items))
    if found is None or found[0] is not items:
        found = (items, make(items))
        if len(table) >= _PER_ARRAY_MAX:
            table.clear()
        table[id(items)] = found
    return found[1]  # type: ignore[return-value]


def _digests(items: list[object]) -> frozenset[str]:
    """The value digests of an array's elements."""
    return _per_array(_DIGESTS, items,
                      lambda found: frozenset(value_digest(item) for item in found))


def _marked(items: list[object], marker: str) -> bool:
    """Whether the `repr` of one of the elements holds `marker`: looked up in their reprs
    joined by NUL (no repr holds one), made once per array (preflight asks for every new hook
    group of a package, each missing from an array of every package's)."""
    joined = _per_array(_REPRS, items, lambda found: "\0".join(repr(item) for item in found))
    return "\0" not in marker and marker in joined


def inspect(path: Path, fmt: ConfigFormat, key_path: tuple[str, ...], digest: str,
            marker: str) -> LiveState:
    """`matched` | `missing` | `drifted` | `blocked` | `conflict`."""
    if snapshot.shape(path) == "other":  # a link or a folder
        return "conflict"
    try:
        items = _items(path, fmt, key_path)
    except ConfigUnreadable:
        return "blocked"
    if digest in _digests(items):
        return "matched"
    return "drifted" if _marked(items, marker) else "missing"


def check_writable(path: Path, fmt: ConfigFormat, key_path: tuple[str, ...], target: str) -> None:
    """Raise ConfigBroken if the file does not parse, ValueInTheWay if the key path holds
    something else."""
    try:
        (_items(path, fmt, key_path) if not snapshot.exists(path)
         else ca.read_array(_read(path), fmt, key_path))
    except ca.NotAnArray:
        raise ValueInTheWay(target, f"{'.'.join(key_path)} is not a list") from None
    except ConfigUnreadable as exc:
        raise ConfigBroken(target, f"it does not parse ({exc}); "
                                   "uze never rewrites a file it cannot read") from None


def append(tx: Transaction, path: Path, fmt: ConfigFormat, key_path: tuple[str, ...],
           value: object, target: str) -> tuple[ca.ElementInfo, bool]:
    """Append the element; return its info for the receipt and whether the file was created."""
    created = not snapshot.exists(path)
    try:
        data, info = ca.append_element(_read(path), fmt, key_path, value)
    except ConfigUnreadable as exc:
        raise ConfigBroken(target, f"cannot add a hook safely ({exc})") from None
    except (UnsafeEdit, ca.NotAnArray, KeyPathBlocked) as exc:  # preflight refuses them first
        raise ValueInTheWay(target, f"cannot add a hook safely ({exc})") from None
    tx.edit(path, data)
    return info, created


def remove(tx: Transaction, path: Path, fmt: ConfigFormat, key_path: tuple[str, ...], digest: str,
           info: ca.ElementInfo, delete_if_empty: bool) -> bool:
    """Remove uze's element (found by digest); delete the file if uze made it and it is empty."""
    data = ca.remove_element(_read(path), fmt, key_path, lambda v: value_digest(v) == digest, info)
    if delete_if_empty and (not data or is_hollow(data, fmt)):
        tx.remove(path)
        return True
    tx.edit(path, data)
    return False
