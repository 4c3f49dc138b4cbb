"""A JSON document's parse (`json_spans`) as plain lists, and back: what `parse_cache` keeps of
a settings file between commands (ADR 0112).

`encode(root)` writes down the spans the parse holds: every expanded container's members (key,
key, colon and comma offsets) and items, each container left for later as just its length.
`rebuild` builds the top level; a container's children are built when an edit asks for them.
Offsets are relative to the start of the container they are in, so a container moved by an
edit (`json_spans._move`) encodes as it did where it was. `rebuild` gives back the same nodes
for the same text, taking the values from the text's `json.loads` (the C reader): each node's
value is the very object its parent holds, as in a parse. Only a parse whose every expanded
object has distinct keys is encoded (with duplicates the earlier members' values are not the
object's); `encode` returns None for any other.

This module reads and sets `Node`'s private fields: it is the other half of `json_spans`.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from uze.projections.json_spans import Member, Node

Encoded = list[Any]


class _Duplicate(Exception):
    pass


def _encode(node: Node) -> Encoded:
    while node._origin is not None:  # moved, its spans parsed where it was: the same shape
        node = node._origin[0]
    value, start = node.value, node.start
    if node._lazy is not None and len(node._lazy) > 3:  # kept, and not asked for since
        return [node.end - start, node._lazy[3].encoded]
    if node._lazy is not None or not isinstance(value, dict | list):
        return [node.end - start]
    if isinstance(value, dict):
        members = node._members or []
        if len(members) != len(value):
            raise _Duplicate
        return [node.end - start, [
            [m.key, m.key_start - start, m.colon - start,
             -1 if m.comma is None else m.comma - start, m.node.start - start, _encode(m.node)]
            for m in members]]
    return [node.end - start, [[item.start - start, _encode(item)] for item in node._items or ()]]


def encode(root: Node) -> list[Any] | None:
    """[root's offset, its encoding] (None: a parse with a duplicate key)."""
    try:
        return [root.start, _encode(root)]
    except _Duplicate:
        return None


class _Kept:
    """The kept spans of a container's children, built into nodes when an edit asks for them
    (`Node._expand`): a command that only reads (status) builds the top level alone."""

    __slots__ = ("encoded",)

    def __init__(self, encoded: list[Any]) -> None:
        self.encoded = encoded

    def children(self, node: Node) -> tuple[list[Member], list[Node]] | None:
        """`node`'s members and items, as the parse that was kept found them (None: the kept
        spans do not fit its value, and `Node._expand` parses them)."""
        text, jsonc, depth = node._lazy[:3]  # type: ignore[index]
        start, value, below = node.start, node.value, (text, jsonc, depth + 1)
        try:
            if isinstance(value, dict):
                return [Member(key, start + key_at, start + colon,
                               _build(child, value[key], start + at, below),
                               None if comma < 0 else start + comma)
                        for key, key_at, colon, comma, at, child in self.encoded], []
            items: list[Any] = value  # type: ignore[assignment]  # a container: a list
            return [], [_build(child, item, start + at, below)
                        for (at, child), item in zip(self.encoded, items, strict=True)]
        except (IndexError, KeyError, TypeError, ValueError):  # not what `encode` wrote
            return None


def _build(encoded: Encoded, value: object, start: int, lazy: tuple[str, bool, int]) -> Node:
    node = Node(start, start + encoded[0], value)
    if isinstance(value, dict | list):  # a container: built or parsed when asked for
        node._lazy = lazy if len(encoded) == 1 else (*lazy, _Kept(encoded[1]))
    return node


def rebuild(kept: list[Any], text: str, jsonc: bool) -> Node | None:
    """The parse of `text` that `encode` wrote down as `kept`, or None when the C reader does
    not read `text` (a comment or a trailing comma of JSONC: the caller parses it)."""
    try:
        value = _loads(text[kept[0]:])
        root = _build(kept[1], value, kept[0], (text, jsonc, 0))
    except (ValueError, IndexError, TypeError):
        return None
    root.members  # noqa: B018 (the top level is expanded, as in a parse)
    return root


def _loads(body: str) -> Any:
    """`json.loads(body)`, by msgspec's reader where it reads `body` (a third faster): it gives
    the same values or refuses (a lone surrogate, a number out of a float's range, ...), and a
    refusal is read by `json.loads`."""
    try:
        return msgspec.json.decode(body)
    except (msgspec.DecodeError, UnicodeEncodeError):
        return json.loads(body)
