"""Array-element artifacts (a hook group): one element uze appended to a config array.

An element is found by the digest of its value; an element that still runs uze's wrapper
(`marker`) but no longer matches the digest is an edit. A file that does not parse is never
rewritten.
"""

from __future__ import annotations

import re
import string
from bisect import bisect_right
from collections.abc import Iterator
from itertools import accumulate
from pathlib import Path
from typing import Final

from uze import memo
from uze.errors import ConfigBroken, ValueInTheWay
from uze.projections import config_array as ca
from uze.projections import snapshot
from uze.projections.config_entry import MISSING, ConfigUnreadable, KeyPathBlocked, UnsafeEdit
from uze.projections.entry import is_hollow, value_digest
from uze.transaction import Transaction
from uze.vocabulary import ConfigFormat, LiveState


def _read(path: Path) -> bytes:
    return snapshot.read(path)


def _items(data: bytes, fmt: ConfigFormat, key_path: tuple[str, ...]) -> list[object]:
    try:
        return ca.read_array(data, fmt, key_path)
    except ca.NotAnArray:
        return []


class _Seen:
    """What is worked out about one parsed array, once: the `repr`s of its elements (of the
    last few first: uninstall's group is most often among them), how often it was asked
    about, and, once asked about often (status: every package's groups in the same few
    arrays), every element's digest."""

    __slots__ = ("_joined", "asked", "digests", "items", "reprs", "starts")

    def __init__(self, items: list[object]) -> None:
        self.items, self.asked = items, 0
        self.digests: frozenset[str] | None = None
        self.reprs: list[str] = []  # of the last len(reprs) elements, the last one first
        self._joined: str | None = None
        self.starts: list[int] = []  # where each element's repr starts in `joined()`

    def every(self) -> frozenset[str]:
        """The value digests of all the elements."""
        if self.digests is None:
            self.digests = frozenset(value_digest(item) for item in self.items)
        return self.digests

    def from_end(self, digest: str, marker: str) -> int | None:
        """The index of the last element whose repr holds `marker` (no NUL in it) and whose
        digest is `digest` (None: none): the last few looked at one by one, the others by
        searching their reprs joined."""
        items, reprs = self.items, self.reprs
        near = min(len(items), _NEAR)
        for back in range(near):
            if back == len(reprs):
                reprs.append(repr(items[-1 - back]))
            if marker in reprs[back] and value_digest(items[-1 - back]) == digest:
                return len(items) - 1 - back
        if near == len(items):
            return None
        joined, starts = self.joined(), self.starts
        at = joined.rfind(marker, 0, starts[len(items) - near] - 1)
        while at >= 0:  # each place found lies in one element's repr: none holds a NUL
            index = bisect_right(starts, at) - 1
            if value_digest(items[index]) == digest:
                return index
            at = joined.rfind(marker, 0, starts[index] - 1) if index else -1
        return None

    def joined(self) -> str:
        """The reprs of all the elements joined by NUL (no repr holds one)."""
        if self._joined is None:
            items, reprs = self.items, self.reprs
            reprs += [repr(items[index]) for index in reversed(range(len(items) - len(reprs)))]
            self._joined = "\0".join(reversed(reprs))
            self.starts = list(accumulate((len(text) + 1 for text in reversed(reprs)),
                                          initial=0))
        return self._joined


_SEEN: dict[int, _Seen] = {}
memo.per_package(_SEEN.clear)  # ADR 0100
_SEEN_MAX = 256
_FEW = 4
_NEAR = 8
"""Questions about one array answered from the elements holding the marker; after that,
from every element's digest (status asks about every package's group in the same array)."""


def _seen(items: list[object]) -> _Seen:
    """The `_Seen` of a parsed array (parses are memoised: status and preflight look up
    many hook groups in the same few arrays), kept by the array's id with the array itself,
    so an id is never reused while remembered."""
    found = _SEEN.get(id(items))
    if found is None or found.items is not items:
        found = _Seen(items)
        if len(_SEEN) >= _SEEN_MAX:
            _SEEN.clear()
        _SEEN[id(items)] = found
    return found


def _strings(value: object) -> Iterator[str]:
    """Every string in `value`, object keys included, at any depth."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            yield node
        elif isinstance(node, dict):
            stack += [*node.keys(), *node.values()]
        elif isinstance(node, list | tuple):
            stack += node


def _holds(value: object, marker: str) -> bool:
    """Whether every value with `value`'s digest has `marker` in its `repr`: the marker is
    in the repr of one of its strings. The digest is that of canonical JSON, so a value with
    the same digest is `value` up to the order of object keys: it has the same strings, and
    the repr of a list or dict holds the repr of each string in it, keys included."""
    return any(marker in repr(text) for text in _strings(value))


def _lookable(marker: str) -> bool:
    """Whether `marker` tells elements apart by their reprs (an empty one is in every repr,
    one with a NUL in none)."""
    return bool(marker) and "\0" not in marker


_BREAKS: Final = frozenset("'\"\\,:{}[]")
_NUMBERS: Final = frozenset(string.ascii_letters + string.digits + "+-.")


def _clue(marker: str) -> str | None:
    """The longest part of `marker` that is all printable characters other than spaces,
    quotes, backslashes and `,:{}[]`, and starts with one that is none of `[A-Za-z0-9+.-]`
    (None: no such part). Where the marker is in the repr of a value read from JSON, this
    part lies in the repr of one of its strings, past any escape there: no repr of a number,
    True, False or None holds its first character, nor do an escape's letters (`\\x7f`), and
    it holds nothing that separates two values or ends a string. So the string holds it."""
    best, run = "", ""
    for char in marker + " ":
        if char.isprintable() and not char.isspace() and char not in _BREAKS:
            run += char
            continue
        start = next((at for at, c in enumerate(run) if c not in _NUMBERS), len(run))
        best, run = max(best, run[start:], key=len), ""
    return best or None


_ESCAPE: Final = re.compile(rb"\\[u/]")
_UNESCAPED: dict[int, tuple[bytes, bool]] = {}
memo.per_package(_UNESCAPED.clear)
_UNESCAPED_MAX: Final = 8  # a command reads a few settings files; each kept is up to 190 KB


def _unescaped(data: bytes) -> bool:
    """Whether the JSON text `data` holds no `\\/` and no `\\u` anywhere (comments too), so
    no string in it spells a character by one of those escapes; remembered for the very
    bytes object, kept with it: install asks about every new group of a package in the same
    few files."""
    found = _UNESCAPED.get(id(data))
    if found is None or found[0] is not data:
        if len(_UNESCAPED) >= _UNESCAPED_MAX:
            _UNESCAPED.clear()
        found = _UNESCAPED[id(data)] = (data, _ESCAPE.search(data) is None)
    return found[1]


def _nowhere(data: bytes, fmt: ConfigFormat, marker: str) -> bool:
    """Whether no element of the JSON text `data` has `marker` in its repr, told from the
    text: its `_clue` is not in it, and no string in it has an escape that could spell one
    of the clue's characters (`\\/`, `\\u`; the others spell quotes, backslashes and
    control characters, which no clue holds). A string holding the clue holds it as written."""
    if fmt == "toml":
        return False
    clue = _clue(marker)
    return clue is not None and clue.encode() not in data and _unescaped(data)


def inspect(path: Path, fmt: ConfigFormat, key_path: tuple[str, ...], digest: str,
            marker: str, value: object = MISSING) -> LiveState:
    """`matched` (an element's digest is `digest`) | `missing` | `drifted` (none is, and
    the repr of one holds `marker`, the wrapper it runs) | `blocked` | `conflict`.

    Hashes the elements whose repr holds the marker (none, when the JSON text shows it,
    `_nowhere`), and the others only when none of those matches and `value` (the value whose
    digest is `digest`, when the caller has it: install's planned group) does not show that
    every element of that digest holds the marker (`_holds`). Status asks about every group
    of every package in the same arrays: after a few questions about one array, each is a
    lookup among every digest, and the text is searched only for a group not found."""
    if snapshot.shape(path) == "other":  # a link or a folder
        return "conflict"
    data = _read(path)
    try:
        items = _items(data, fmt, key_path)
    except ConfigUnreadable:
        return "blocked"
    seen, nowhere = _seen(items), None
    seen.asked += 1
    if seen.digests is None and seen.asked <= _FEW and _lookable(marker):
        nowhere = _nowhere(data, fmt, marker)
        if not nowhere and seen.from_end(digest, marker) is not None:
            return "matched"
        if (value is MISSING or not _holds(value, marker)) and digest in seen.every():
            return "matched"
    elif digest in seen.every():
        return "matched"
    if nowhere is None:
        nowhere = _nowhere(data, fmt, marker)
    marked = "\0" not in marker and not nowhere and marker in seen.joined()
    return "drifted" if marked else "missing"


def _last(items: list[object], digest: str, marker: str) -> int | None:
    """The index of the last element whose digest is `digest`, or None (what hashing each
    element from the end finds): the last one holding `marker` with that digest, when the
    marker is in the repr of one of its strings (then every element of that digest holds
    it, `_holds`); else the elements from the end, each hashed."""
    if _lookable(marker):
        index = _seen(items).from_end(digest, marker)
        if index is not None and _holds(items[index], marker):
            return index
    return next((index for index in reversed(range(len(items)))
                 if value_digest(items[index]) == digest), None)


def check_writable(path: Path, fmt: ConfigFormat, key_path: tuple[str, ...], target: str) -> None:
    """Raise ConfigBroken if the file does not parse, ValueInTheWay if the key path holds
    something else."""
    try:
        (_items(_read(path), fmt, key_path) if not snapshot.exists(path)
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
           marker: str, info: ca.ElementInfo, delete_if_empty: bool) -> bool:
    """Remove uze's element (the last one whose digest is `digest`, found by `marker` as
    `_last` says); delete the file if uze made it and it is empty."""
    kept: list[int] = []  # how many elements the array keeps

    def find(items: list[object]) -> int | None:
        index = _last(items, digest, marker)
        kept.append(len(items) - (index is not None))
        return index

    data = ca.remove_element(_read(path), fmt, key_path, ca.Pick(find), info)
    # an array left with an element is not hollow: no need to parse the new text to know
    if delete_if_empty and not (kept and kept[0]) and (not data or is_hollow(data, fmt)):
        tx.remove(path)
        return True
    tx.edit(path, data)
    return False
