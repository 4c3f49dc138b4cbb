"""Array elements: one owned element appended to an array at a key path (hook groups).

Claude Code, Codex and Gemini CLI keep hooks as `{"hooks": {"PreToolUse": [group, ...]}}`;
Kimi Code as `[[hooks]]` tables in config.toml. Pure functions over bytes, in the manner of
`config_entry`: `append_element` adds one element at the end of the array (creating the array
and the objects on the way when missing) and returns an `ElementInfo` for the receipt;
`remove_element` takes it out again so that `remove_element(append_element(d)) == d` byte for
byte. Other elements, their order, comments, indentation and line endings keep their bytes.
Elements are compared by value. A document that does not parse raises `ConfigUnreadable`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, Literal

import msgspec

from uze.projections import config_json, config_toml
from uze.projections.config_entry import (
    _EDITS,
    MISSING,
    AddInfo,
    ConfigUnreadable,
    EntryExists,
    KeyPath,
    UnsafeEdit,
    _check,
    _decode,
    _encoded,
    _load,
    _lookup,
    _refuse_null,
    add_entry,
    edited,
    format_key_path,
    plain_document,
    remove_entry,
)
from uze.projections.config_json import Node
from uze.projections.json_tail import comma_after, last_child
from uze.projections.json_text import back_over_space
from uze.vocabulary import ConfigFormat

ElementMode = Literal["element", "array", "table"]
ELEMENT_MODES: Final[tuple[ElementMode, ...]] = ("element", "array", "table")


class NotAnArray(EntryExists):
    """The key path holds a value that is not an array (of tables, in TOML)."""

    def __init__(self, key_path: KeyPath, found: object) -> None:
        kind = type(found).__name__
        super().__init__(key_path, f"{format_key_path(key_path)} is {kind}, not an array")


class ElementInfo(msgspec.Struct, frozen=True):
    """What `append_element` did, for `remove_element`; stored in the receipt.

    - `mode`: "element" (JSON: appended to an array that was there), "array" (JSON: the array
      was missing and was added as an entry holding the element; `entry` is that add's
      record), "table" (TOML: a `[[a.b]]` table appended at the end of the document).
    - `lead`: whitespace added before the element ("table": the blank line before it).
    - `tail`: whitespace added after it, so that the `]` of an empty array gets its own line.
    """

    mode: ElementMode
    entry: AddInfo | None = None
    lead: str = ""
    tail: str = ""

    def __post_init__(self) -> None:
        if self.mode not in ELEMENT_MODES:
            raise ValueError(f"unknown array element mode {self.mode!r}")
        if (self.mode == "array") != (self.entry is not None):
            raise ValueError("an entry record goes with mode 'array' and only with it")
        for name in ("lead", "tail"):
            text = getattr(self, name)
            if not isinstance(text, str) or text.strip(" \t\r\n"):
                raise ValueError(f"{name} must be whitespace, not {text!r}")

    def to_json(self) -> dict[str, object]:
        """The fields as a JSON-ready dict."""
        entry = self.entry.to_json() if self.entry is not None else None
        return {"mode": self.mode, "entry": entry, "lead": self.lead, "tail": self.tail}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ElementInfo:
        """Read `to_json()` output back. Raises ValueError on any other shape."""
        if not isinstance(data, Mapping) or set(data) != {"mode", "entry", "lead", "tail"}:
            raise ValueError(f"not an array element add record: {data!r}")
        entry = AddInfo.from_json(data["entry"]) if data["entry"] is not None else None
        return cls(data["mode"], entry, data["lead"], data["tail"])


def read_array(data: bytes, fmt: ConfigFormat, key_path: KeyPath) -> list[object]:
    """The elements at `key_path` ([] when missing). Raises ConfigUnreadable, NotAnArray."""
    _check(fmt, key_path)
    found = _lookup(plain_document(data, fmt), key_path)
    if found is MISSING:
        return []
    if not isinstance(found, list):
        raise NotAnArray(key_path, found)
    return found


def find_element(
    data: bytes, fmt: ConfigFormat, key_path: KeyPath, predicate: Callable[[object], bool]
) -> int | None:
    """Index of the first element `predicate` accepts, or None. Raises as `read_array`."""
    items = read_array(data, fmt, key_path)
    return next((index for index, item in enumerate(items) if predicate(item)), None)


def append_element(
    data: bytes, fmt: ConfigFormat, key_path: KeyPath, value: object
) -> tuple[bytes, ElementInfo]:
    """Append `value` to the array at `key_path`, creating the array and objects on the way.

    Returns the new bytes and the `ElementInfo` that `remove_element` needs. Raises
    ConfigUnreadable, NotAnArray, KeyPathBlocked, UnsafeEdit when removal could not give back
    `data` exactly, TypeError/ValueError for a value the format cannot hold.
    """
    items = read_array(data, fmt, key_path)
    if fmt == "toml":
        _refuse_null(value, fmt)
        result, info = _append_toml(data, key_path, value)
    elif _lookup(plain_document(data, fmt), key_path) is MISSING:  # read_array's parse
        result, entry = add_entry(data, fmt, key_path, [value])
        info = ElementInfo("array", entry)
    else:
        result, info = _append_json(data, fmt, key_path, value)
    try:
        same = read_array(result, fmt, key_path) == [*items, value]
        restored = remove_element(result, fmt, key_path, len(items), info)
    except ConfigUnreadable as error:  # TOML: `[[a.b]]` cannot extend what is at a.b
        raise UnsafeEdit(key_path) from error
    _EDITS.pop(id(restored), None)  # the check's: never written
    if not same or restored != data:
        raise UnsafeEdit(key_path)
    if fmt != "toml":  # the check read `result` last: the parse the next command takes
        edited(data, result, fmt)
    return result, info


class Pick(msgspec.Struct, frozen=True):
    """A `which` for `remove_element`: the index `find` gives for the array's elements (None:
    no such element), for a caller that finds it faster than by testing each element."""

    find: Callable[[list[object]], int | None]


Which = int | Callable[[object], bool] | Pick


def equal_to(value: object) -> Callable[[object], bool]:
    """A `which` for `remove_element`: the element equal to `value` (compared as plain data)."""
    return lambda item: item == value


def _target_index(items: list[object], which: Which) -> int | None:
    if isinstance(which, Pick):
        index = which.find(items)
        return index if index is not None and 0 <= index < len(items) else None
    if isinstance(which, bool) or not isinstance(which, int):
        accepts: Callable[[object], bool] = which  # type: ignore[assignment]
        return next((i for i in reversed(range(len(items))) if accepts(items[i])), None)
    return which if 0 <= which < len(items) else None


def remove_element(
    data: bytes, fmt: ConfigFormat, key_path: KeyPath, which: Which, info: ElementInfo
) -> bytes:
    """Remove one element: the one at index `which`, the last one the predicate `which`
    accepts (`equal_to(value)` for the element as added), or the one a `Pick` finds.

    Also removes what `append_element` created with it (`info`) once nothing else is in it.
    With no edits since the append, the result equals the bytes before it. Returns `data`
    unchanged when there is no such element. Raises ConfigUnreadable, NotAnArray, and
    ValueError when `info` belongs to another format.
    """
    if (info.mode == "table") != (fmt == "toml"):
        raise ValueError(f"a {info.mode!r} add record does not fit a {fmt} document")
    items = read_array(data, fmt, key_path)
    index = _target_index(items, which)
    if index is None:
        return data
    if fmt == "toml":
        return _remove_toml(data, key_path, index, info.lead)
    if info.entry is not None and len(items) == 1:
        return remove_entry(data, fmt, key_path, info.entry)
    result = _remove_json(data, fmt, key_path, index, info.tail)
    edited(data, result, fmt)  # it read `data` last: `result` is read on that parse
    return result


# JSON and JSONC ------------------------------------------------------------------------


def _array_node(text: str, fmt: str, key_path: KeyPath) -> Node:
    root = _load(text, fmt)[1]  # memoised: read_array parsed this very text a moment ago
    assert root is not None  # read_array found the array
    return config_json._object_at(root, key_path)


def _comma_after(text: str, item: Node) -> int | None:
    return comma_after(text, item.end)


def _item_indent(text: str, array: Node, unit: str, last: tuple[Node, int | None] | None) -> str:
    if last is not None:  # the gap before the last item (after its comma) says it, mostly
        indent = config_json._indent_of(text, (array.start if last[1] is None else last[1]) + 1,
                                        last[0].start)
        if indent is not None:
            return indent
    for index in reversed(range(len(array.items))):
        before = array.items[index - 1].end if index else array.start + 1
        gap = text[before : array.items[index].start]
        if "\n" in gap:
            indent = gap[gap.rfind("\n") + 1 :]
            if indent.strip(" \t") == "":
                return indent
    return config_json._line_indent(text, array.start) + unit


def _inline_separators(text: str, root: Node, array: Node) -> tuple[str, str]:
    """(item, key) separators of a one-line array: from its first comma, else the document's."""
    item_sep, key_sep = config_json._separators(text, root, root) if root.members else (", ", ": ")
    if len(array.items) > 1:
        comma = _comma_after(text, array.items[0]) or 0
        item_sep = ", " if text[comma + 1 : comma + 2] == " " else ","
    elif root.members and root.members[0].comma is None:  # no comma anywhere to copy
        item_sep = ", " if key_sep == ": " else ","
    return item_sep, key_sep


def _render_item(text: str, root: Node, array: Node, value: object,
                 last: tuple[Node, int | None] | None) -> tuple[str, str]:
    """(lead + value, tail) for a new last item of `array` (whose last item and the comma
    before it are `last`), in the document's style."""
    shape = array if last is not None else root  # an empty array follows the document's shape
    if text.find("\n", shape.start, shape.end) < 0:  # (no copy of the span)
        separators = _inline_separators(text, root, array)
        body = config_json._dumps(value, separators=separators)
        return (separators[0][1:] if array.items else "") + body, ""
    eol, unit = config_json.detect_eol(text), config_json.indent_unit(text, root)
    indent = _item_indent(text, array, unit, last)
    rendered = config_json._dumps(value, indent=unit).replace("\n", eol + indent)
    close = array.end - 1
    has_break = "\n" in text[back_over_space(text, close) : close]
    tail = "" if has_break else eol + config_json._line_indent(text, array.start)
    return eol + indent + rendered, tail


def _append_json(
    data: bytes, fmt: ConfigFormat, key_path: KeyPath, value: object
) -> tuple[bytes, ElementInfo]:
    text = _decode(data)
    root = _load(text, fmt)[1]  # memoised: append_element's read_array parsed it
    assert root is not None
    array = config_json._object_at(root, key_path)
    found: Any = last_child(array, text)  # not the 200 packages' groups before it
    chunk, tail = _render_item(text, root, array, value, found)
    point = back_over_space(text, array.end - 1)
    last = found[0] if found is not None else None
    comma = _comma_after(text, last) if last is not None else None
    if last is None or comma is not None:
        trailing = "," if last is not None else ""
        new = text[:point] + chunk + trailing + tail + text[point:]
    else:
        new = text[: last.end] + "," + text[last.end : point] + chunk + tail + text[point:]
    return _encoded(new), ElementInfo("element", None, "", tail)


def _remove_json(data: bytes, fmt: ConfigFormat, key_path: KeyPath, index: int, tail: str) -> bytes:
    text = _decode(data)
    array = _array_node(text, fmt, key_path)
    if index < len(array.value) - 1:  # type: ignore[arg-type]  # the next item takes its place
        item = array.items[index]
        comma = _comma_after(text, item)
        after = config_json._SPACE.match(text, (comma or 0) + 1).end()  # type: ignore[union-attr]
        return _encoded(text[: item.start] + text[after:])
    found: Any = last_child(array, text)  # the last item: the others stay unread
    item, before = found
    comma = _comma_after(text, item)
    start = back_over_space(text, item.start)
    end = item.end if comma is None else comma + 1
    if tail and text.startswith(tail, end):
        end += len(tail)
    if comma is not None or before is None:
        return _encoded(text[:start] + text[end:])
    return _encoded(text[:before] + text[before + 1 : start] + text[end:])


# TOML: arrays of tables ------------------------------------------------------------------


def _render_table(key_path: KeyPath, value: object, eol: str) -> str:
    if not isinstance(value, dict):
        raise TypeError("a TOML array element is a table: give a dict")
    import tomlkit  # only edits need it; status reads with tomllib (ADR 0013)

    doc = tomlkit.document()
    container: Any = doc
    for key in key_path[:-1]:
        parent = tomlkit.table(is_super_table=True)
        container.append(key, parent)
        container = parent
    array = tomlkit.aot()
    array.append(config_toml._table(value))
    container.append(key_path[-1], array)
    return doc.as_string().replace("\r\n", "\n").replace("\n", eol)


def _append_toml(data: bytes, key_path: KeyPath, value: object) -> tuple[bytes, ElementInfo]:
    text = _decode(data)
    eol = config_json.detect_eol(text)
    chunk = _render_table(key_path, value, eol)
    lead = config_toml._separator(text, eol)
    return (text + lead + chunk).encode("utf-8"), ElementInfo("table", None, lead, "")


def _remove_toml(data: bytes, key_path: KeyPath, index: int, lead: str) -> bytes:
    text = _decode(data)
    plain = config_toml.load(text)
    items = list(_lookup(plain, key_path))  # type: ignore[call-overload]
    chunk = _render_table(key_path, items[index], config_json.detect_eol(text))
    expected = items[:index] + items[index + 1 :]
    for at in config_toml._occurrences(text, chunk):
        if at and text[at - 1] != "\n":
            continue
        start = at - len(lead) if lead and text[:at].endswith(lead) else at
        candidate = text[:start] + text[at + len(chunk) :]
        if _toml_without(candidate, key_path, plain, expected):
            return candidate.encode("utf-8")
    doc = config_toml._edit(text)  # reformatted by someone: let tomlkit take the element out
    container: Any = doc
    for key in key_path:
        container = container[key]
    del container[index]
    return doc.as_string().encode("utf-8")


def _toml_without(candidate: str, key_path: KeyPath, plain: Any, expected: list[Any]) -> bool:
    """Whether `candidate` reads as `plain` with the array at `key_path` set to `expected`."""
    parsed = config_toml._parses(candidate)
    want = dict(plain)
    _set(want, key_path, expected)
    return parsed is not None and (parsed == want or parsed == _prune(want, key_path))


def _set(plain: dict[str, Any], key_path: KeyPath, value: object) -> None:
    node = plain
    for key in key_path[:-1]:
        node[key] = dict(node.get(key, {}))
        node = node[key]
    node[key_path[-1]] = value


def _prune(plain: dict[str, Any], key_path: KeyPath) -> dict[str, Any]:
    """`plain` without the empty array at `key_path` and the tables left empty above it."""
    pruned = dict(plain)
    if key_path[:-1]:
        child = _prune(dict(pruned.get(key_path[0], {})), key_path[1:])
        if child:
            pruned[key_path[0]] = child
        else:
            pruned.pop(key_path[0], None)
    elif pruned.get(key_path[0]) == []:
        del pruned[key_path[0]]
    return pruned
