"""JSON and JSONC documents as text with byte spans: parse, then edit one object member.

This is the JSON half of config entries (see `config_entry`). It never reformats: an edit
inserts or deletes one span, so every byte outside the owned member keeps its place, line
endings, indentation, comments and trailing commas included. New members are rendered with
`json.dumps` in the document's own indentation and go at the end of their object. Parsing
with spans is `json_spans`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from uze.projections.json_spans import _BOM
from uze.projections.json_spans import _INDENT as _INDENT
from uze.projections.json_spans import _SPACE as _SPACE
from uze.projections.json_spans import _SPACE_OR_COMMENT as _SPACE_OR_COMMENT
from uze.projections.json_spans import DEFAULT_INDENT as DEFAULT_INDENT
from uze.projections.json_spans import MAX_DEPTH as MAX_DEPTH
from uze.projections.json_spans import Member as Member
from uze.projections.json_spans import Node as Node
from uze.projections.json_spans import _Parser as _Parser
from uze.projections.json_spans import parse as parse
from uze.projections.json_tail import last_child
from uze.projections.json_text import JsonSyntax as JsonSyntax
from uze.projections.json_text import back_over_space as _back_over_space
from uze.projections.json_text import position as position


def load(text: str, *, jsonc: bool) -> object:
    """The document as plain Python; an empty document reads as `{}`. Raises JsonSyntax."""
    root = parse(text, jsonc=jsonc)
    return {} if root is None else root.value


def _last_member(obj: Node, key: str) -> Member | None:
    # Duplicate keys: the last one wins, as in JSON.parse, json.loads and the harnesses.
    return next((m for m in reversed(obj.members) if m.key == key), None)


def _object_at(root: Node, key_path: tuple[str, ...]) -> Node:
    node = root
    for key in key_path:
        member = _last_member(node, key)
        if member is None:
            raise KeyError(key)
        node = member.node
    return node


def _walk(root: Node) -> Iterator[tuple[Node, int]]:
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        yield node, depth
        children = [m.node for m in node.members] + node.items
        stack.extend((child, depth + 1) for child in reversed(children))


def _gap_before(obj: Node, index: int) -> tuple[int, int]:
    previous = obj.members[index - 1].comma if index else obj.start
    return (obj.start if previous is None else previous) + 1, obj.members[index].key_start


def _indent_of(text: str, start: int, end: int) -> str | None:
    gap = text[start:end]
    if "\n" not in gap:
        return None
    indent = gap[gap.rfind("\n") + 1 :]
    return indent if indent.strip(" \t") == "" else None


def indent_unit(text: str, root: Node | None) -> str:
    """The document's indentation step (spaces or a tab), from its first indented member."""
    for node, depth in _walk(root) if root is not None else ():
        for index in range(len(node.members)):
            indent = _indent_of(text, *_gap_before(node, index))
            if indent is None:
                continue
            unit = indent[: len(indent) // (depth + 1)]
            if unit * (depth + 1) == indent and len(set(indent)) <= 1:
                return unit
    return DEFAULT_INDENT


def detect_eol(text: str) -> str:
    """The document's line ending: that of its first line, LF when it has none."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def _line_indent(text: str, pos: int) -> str:
    line_start = text.rfind("\n", 0, pos) + 1
    return _INDENT.match(text, line_start).group(0)  # type: ignore[union-attr]


def _dumps(
    value: object, indent: str | None = None, separators: tuple[str, str] | None = None
) -> str:
    rendered = json.dumps(
        value, ensure_ascii=False, allow_nan=False, indent=indent, separators=separators
    )
    try:
        rendered.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: keep it as a \u escape
        rendered = json.dumps(value, allow_nan=False, indent=indent, separators=separators)
    return rendered


def _separators(text: str, obj: Node, root: Node) -> tuple[str, str]:
    """The (item, key) separators of a one-line object, from its first member."""
    first = (obj.members or root.members)[0]  # one-line: obj or else root has members
    key_sep = ": " if text[first.colon + 1 : first.colon + 2] == " " else ":"
    comma = first.comma
    item_sep = ", " if comma is None or text[comma + 1 : comma + 2] == " " else ","
    return item_sep, key_sep


def _is_inline(text: str, obj: Node, root: Node) -> bool:
    if obj.value:  # (an object holds members when its value holds keys)
        return text.find("\n", obj.start, obj.end) < 0  # (no copy of the span)
    return bool(root.members) and text.find("\n", root.start, root.end) < 0


def _member_indent(text: str, obj: Node, unit: str, last: tuple[Member, int | None] | None
                   ) -> str:
    if last is not None:  # the gap before the last member (after its comma) says it, mostly
        start = (obj.start if last[1] is None else last[1]) + 1
        indent = _indent_of(text, start, last[0].key_start)
        if indent is not None:
            return indent
    for index in reversed(range(len(obj.members))):
        indent = _indent_of(text, *_gap_before(obj, index))
        if indent is not None:
            return indent
    return _line_indent(text, obj.start) + unit


def _render_member(text: str, root: Node, obj: Node, key: str, value: object,
                   last: tuple[Member, int | None] | None) -> tuple[str, str]:
    """(lead + `"key": value`, tail) for a new last member of `obj` (whose last member and the
    comma before it are `last`), in the document's style."""
    close = obj.end - 1
    if _is_inline(text, obj, root):
        item_sep, key_sep = _separators(text, obj, root)
        body = _dumps(key) + key_sep + _dumps(value, separators=(item_sep, key_sep))
        return (item_sep[1:] if last is not None else "") + body, ""
    eol, unit = detect_eol(text), indent_unit(text, root)
    indent = _member_indent(text, obj, unit, last)
    rendered = _dumps(value, indent=unit).replace("\n", eol + indent)
    has_break = "\n" in text[_back_over_space(text, close) : close]
    tail = "" if has_break else eol + _line_indent(text, obj.start)
    return eol + indent + _dumps(key) + ": " + rendered, tail


def insert_member(
    text: str, root: Node, key_path: tuple[str, ...], value: object
) -> tuple[str, str]:
    """Add `"key": value` as the last member of the object at `key_path[:-1]`.

    `root` is `parse(text)`. Returns the new text and the whitespace added after the member
    (its `tail`) so that a closing brace that shared its line stays on a line of its own.
    Raises KeyError when the object is missing; the caller has checked that the key is new.
    """
    obj = _object_at(root, key_path[:-1])
    found: Any = last_child(obj, text)  # not the 400 servers before it
    chunk, tail = _render_member(text, root, obj, key_path[-1], value, found)
    point = _back_over_space(text, obj.end - 1)
    last = found[0] if found is not None else None
    if last is None or last.comma is not None:
        trailing = "," if last is not None else ""
        return text[:point] + chunk + trailing + tail + text[point:], tail
    end = last.node.end
    return text[:end] + "," + text[end:point] + chunk + tail + text[point:], tail


def delete_member(text: str, root: Node, key_path: tuple[str, ...], tail: str) -> str:
    """Remove the member at `key_path` with the comma that separated it (`root` = `parse(text)`).

    Also removes `tail` when it still follows the member. Comments stay, and so does every
    separator that was there before the member was added.
    """
    obj = _object_at(root, key_path[:-1])
    found: Any = last_child(obj, text)  # most often the member to cut: the others stay unread
    if found is None or found[0].key != key_path[-1]:
        index = max(i for i, m in enumerate(obj.members) if m.key == key_path[-1])
        member = obj.members[index]
        if index < len(obj.members) - 1:  # the next member takes this one's place
            after = _SPACE.match(text, (member.comma or 0) + 1).end()  # type: ignore[union-attr]
            return text[: member.key_start] + text[after:]
        found = (member, obj.members[index - 1].comma if index else None)
    member, before = found  # the last member, and the comma before it
    start = _back_over_space(text, member.key_start)
    end = member.node.end if member.comma is None else member.comma + 1
    if tail and text.startswith(tail, end):
        end += len(tail)
    if member.comma is not None or before is None:
        return text[:start] + text[end:]
    return text[:before] + text[before + 1 : start] + text[end:]


def write_document(text: str, key: str, value: object) -> tuple[str, str, str]:
    """Put `{key: value}` as the top-level object of a document that holds no value yet.

    Returns the new text and the `lead` and `tail` added around the object.
    """
    eol = detect_eol(text)
    rendered = _dumps({key: value}, indent=DEFAULT_INDENT).replace("\n", eol)
    content = text.lstrip(_BOM + " \t\r\n")
    lead = eol if content and not text.endswith("\n") else ""
    return text + lead + rendered + eol, lead, eol


def delete_document(text: str, root: Node, lead: str, tail: str) -> str:
    """Remove the top-level value `root` with the `lead` and `tail` `write_document` added."""
    start, end = root.start, root.end
    if tail and text.startswith(tail, end):
        end += len(tail)
    if lead and text[:start].endswith(lead):
        start -= len(lead)
    return text[:start] + text[end:]


def replace_value(text: str, root: Node, key_path: tuple[str, ...], value: object) -> str:
    """Replace the value of the member at `key_path` in place, in the document's style."""
    obj = _object_at(root, key_path[:-1])
    member = _last_member(obj, key_path[-1])
    if member is None:
        raise KeyError(key_path[-1])
    if _is_inline(text, obj, root):
        item_sep, key_sep = _separators(text, obj, root)
        rendered = _dumps(value, separators=(item_sep, key_sep))
    else:
        indent = _line_indent(text, member.key_start)
        unit = indent_unit(text, root)
        rendered = _dumps(value, indent=unit).replace("\n", detect_eol(text) + indent)
    return text[: member.node.start] + rendered + text[member.node.end :]
