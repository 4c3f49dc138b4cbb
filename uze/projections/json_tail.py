"""The last member or item of a JSON container, without its other children (issue 32, ADR 0118).

An install adds its MCP server as the last member of an object that holds every package's
servers, and its hook group as the last item of an array that holds every package's groups;
the check that follows takes that last child out again. Both need the spans of the last child
and of the comma before it, and nothing of the 400 members or 200 items before them.
`last_child` gives those:

- from a container's children when they are there (parsed, built, or asked for already);
- from the spans the command before kept (`json_kept`), building the last one alone;
- for a container left lazy (the C scanner read it whole, or `extended` below made it), by
  reading back as plain JSON from its closing bracket over the last child, then reading that child
  forward again with the parser's own patterns and the C scanner: the spans are taken only
  when the forward read ends exactly where the container's last child ends. Anything else
  (a container moved by an edit, a child the backward read does not recognise) takes the
  children as `Node.members`/`Node.items` do, so the answer is always theirs.

This module reads and sets `Node`'s private fields: it is a third half of `json_spans`.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from uze.projections import json_kept, json_spans
from uze.projections.json_spans import (
    _HEAD,
    _SCAN,
    _SPACE_OR_COMMENT,
    _STRING,
    Member,
    Node,
    _Parser,
)
from uze.projections.json_text import back_over_space

_SCALAR = frozenset("0123456789+-.eEtrufalsn")  # what a number, true, false or null ends with


def comma_after(text: str, end: int) -> int | None:
    """The offset of the comma after the value that ends at `end`, past whitespace and
    comments (JSONC's; plain JSON has none), or None."""
    at = _SPACE_OR_COMMENT.match(text, end).end()  # type: ignore[union-attr]
    return at if text.startswith(",", at) else None


def _string_start(text: str, close: int, floor: int) -> int | None:
    """Where the JSON string whose closing quote is at `close` opens (None: not above `floor`).
    In JSON a quote inside a string follows an odd number of backslashes."""
    at = close
    while True:
        at = text.rfind('"', floor, at)
        if at < 0:
            return None
        slashes = at - _back_slashes(text, at)
        if slashes % 2 == 0:
            return at


def _back_slashes(text: str, at: int) -> int:
    while at > 0 and text[at - 1] == "\\":
        at -= 1
    return at


def _value_start(text: str, end: int, floor: int) -> int | None:
    """Where the JSON value that ends at `end` starts, reading back (None: not recognised)."""
    last = text[end - 1]
    if last == '"':
        return _string_start(text, end - 1, floor)
    if last in _SCALAR:
        at = end
        while at > floor and text[at - 1] in _SCALAR:
            at -= 1
        return at
    if last not in "}]":
        return None
    depth, at = 0, end
    while at > floor:
        at -= 1
        char = text[at]
        if char == '"':
            found = _string_start(text, at, floor)
            if found is None:
                return None
            at = found
        elif char in "}]":
            depth += 1
        elif char in "{[":
            depth -= 1
            if depth == 0:
                return at
    return None


class _Tail(NamedTuple):
    child: Member | Node  # the last member or item
    comma: int | None  # the comma before it (None: the only child)
    previous: int | None  # where the child before it ends (None: the only child)


def _scanned(node: Node, lazy: tuple[str, bool, int]) -> _Tail | None:
    """The last child of a container the C scanner read whole, read back from its end."""
    text, jsonc, depth = lazy
    end = back_over_space(text, node.end - 1)
    if end <= node.start + 1:
        return None  # (the caller has checked that the container holds something)
    start = _value_start(text, end, node.start + 1)
    if start is None:
        return None
    value: object
    if isinstance(node.value, dict):
        colon = back_over_space(text, start) - 1
        if colon <= node.start or text[colon] != ":":
            return None
        key_start = _string_start(text, back_over_space(text, colon) - 1, node.start + 1)
        if key_start is None:
            return None
        head = _HEAD[False].match(text, key_start)
        if head is None or head.end() != start or head.start("colon") != colon:
            return None
        token = head.group("key")
        key = token[1:-1] if "\\" not in token else json.loads(token)
        if key not in node.value:
            return None
        value, before = node.value[key], back_over_space(text, key_start)
        names: tuple[str, int, int] | None = (key, key_start, colon)
    else:
        value, before = node.value[-1], back_over_space(text, start)  # type: ignore[index]
        names = None
    try:
        scanned, scanned_end = _SCAN(text, start)
    except (StopIteration, ValueError, RecursionError):
        return None
    if scanned_end != end or scanned != value:
        return None
    comma = before - 1 if text[before - 1] == "," else None
    if comma is None and before - 1 != node.start:
        return None
    child = Node(start, end, value)
    if isinstance(value, dict | list):
        child._lazy = (text, jsonc, depth + 1)
    previous = None if comma is None else back_over_space(text, comma)
    return _Tail(child if names is None else Member(*names, child, None), comma, previous)


def _kept(node: Node) -> _Tail | None:
    """The last child as the spans the command before kept describe it (`json_kept`)."""
    text, jsonc, depth = node._lazy[:3]  # type: ignore[index]
    encoded = node._lazy[3].encoded  # type: ignore[index, misc]
    start, below = node.start, (text, jsonc, depth + 1)
    try:
        if isinstance(node.value, dict):
            key, key_at, colon, comma, at, child = encoded[-1]
            member = Member(key, start + key_at, start + colon,
                            json_kept._build(child, node.value[key], start + at, below),
                            None if comma < 0 else start + comma)
            if len(encoded) == 1:
                return _Tail(member, None, None)
            _key, _key_at, _colon, before, at, previous = encoded[-2]
            return _Tail(member, None if before < 0 else start + before, start + at + previous[0])
        at, child = encoded[-1]
        item = json_kept._build(child, node.value[-1], start + at, below)  # type: ignore[index]
        if len(encoded) == 1:
            return _Tail(item, None, None)
        at, previous = encoded[-2]
        end = start + at + previous[0]
        return _Tail(item, comma_after(text, end), end)
    except (IndexError, KeyError, TypeError, ValueError):
        return None


def _expanded(node: Node, text: str) -> _Tail | None:
    if node.members:
        members = node.members
        if len(members) == 1:
            return _Tail(members[0], None, None)
        return _Tail(members[-1], members[-2].comma, members[-2].node.end)
    items = node.items
    if not items:
        return None
    if len(items) == 1:
        return _Tail(items[0], None, None)
    return _Tail(items[-1], comma_after(text, items[-2].end), items[-2].end)


def _tail(node: Node, text: str) -> _Tail | None:
    if not node.value:
        return None
    lazy = node._lazy
    if lazy is not None and node._origin is None:  # (its own text: `text`, or equal to it)
        # (read back as plain JSON: a container `extended` made may hold a JSONC comment or
        # trailing comma, which the read-back refuses, and then its children are parsed)
        found = _kept(node) if len(lazy) > 3 else _scanned(node, lazy)
        if found is not None:
            return found
    return _expanded(node, text)


def last_child(node: Node, text: str) -> tuple[Member | Node, int | None] | None:
    """The last member (a `Member`) or item (a `Node`) of the container `node` of `text`, and
    the offset of the comma before it (None: it is the only child), or None when `node` holds
    none: what `node.members[-1]` or `node.items[-1]` and the comma after the child before it
    are, without the other children when they are not there yet."""
    found = _tail(node, text)
    return None if found is None else (found.child, found.comma)


def _shared(parser: _Parser, end: int) -> bool:
    """Whether what ends at `end` reads the same in the new text: it lies inside the shared
    start, and so does the character after it unless it ends itself (a number does not)."""
    return end < parser.common or (end == parser.common and parser.text[end - 1] in '"]}[{')


def _alone(text: str, old: Node, member: Member) -> bool:
    """Whether no other member of the C-scanned object `old` has `member`'s key. A key that
    holds no quote, backslash, slash or control character is spelt with no escape but
    `\\u`: with no `\\u` in the object, any other member of that key is spelt as this one,
    and the quoted spelling is found once (inside a string it would follow a backslash or
    count once more: counted, the answer is only ever no)."""
    token = _STRING.match(text, member.key_start)
    key = member.key
    return token is not None and "\\" not in token.group(0) and "/" not in key \
        and key.isprintable() and text.find("\\u", old.start, old.end) < 0 \
        and text.count(token.group(0), old.start, old.end) == 1


def extended(parser: _Parser, old: Node, depth: int) -> Node | None:
    """`_extended`, for a container an older parse left lazy; when that is not the edit,
    the container's kept spans (`json_kept`) are built first, so the parser takes its old
    children as parsed ones instead of scanning it whole."""
    found = _extended(parser, old, depth) if old._origin is None else None
    if found is None and old._lazy is not None and len(old._lazy) > 3:
        old._expand()
    return found


def _extended(parser: _Parser, old: Node, depth: int) -> Node | None:
    """The container at `parser.pos` when the text is an edit of `old`'s (a parse base, ADR
    0099) that changed it only after its last child, or after the child before it (the last
    one cut): `old`'s value, less that child, with the new children, read from there on as
    the parser reads them, and left for later like a container the C scanner read, its kept
    spans (`json_kept`) carried over when it had them. None: any other edit (the caller reads
    the container as usual). An add at the end of an object of 400 servers, and the check
    that cuts it again, read the one member, not the 400 (ADR 0118)."""
    old_text = old._lazy[0]  # type: ignore[index]
    tail = _tail(old, old_text)
    if tail is None or old._lazy is None:  # (expanded to find it: the parser reuses those)
        return None
    child = tail.child
    last = child.node if isinstance(child, Member) else child
    start, close = parser.pos, "}" if isinstance(old.value, dict) else "]"
    value: Any = dict(old.value) if close == "}" else list(old.value)  # type: ignore[call-overload]
    kept = old._lazy[3] if len(old._lazy) > 3 else None
    entries = list(kept.encoded) if kept is not None else None
    anchor = last.end
    if not _shared(parser, anchor):  # the last child changed: the one before it must not
        anchor = start + 1 if tail.previous is None else tail.previous
        if not _shared(parser, anchor):
            return None
        if isinstance(child, Member):
            if entries is None and not _alone(old_text, old, child):
                return None
            del value[child.key]
        else:
            value.pop()
        if entries is not None:
            entries.pop()
    parser.pos = anchor
    if anchor == start + 1:  # (no child left before it)
        parser.skip()
    else:
        comma = parser.comma(close)
        _check(parser, close, comma)
        if close == "}" and entries:  # the comma after that child, which kept spans hold
            entries[-1] = [*entries[-1][:3], -1 if comma is None else comma - start,
                           *entries[-1][4:]]
    first_new = len(entries) if entries is not None else 0
    while parser.peek() != close:
        new: list[Any]
        if close == "}":
            member = parser.member(depth)
            if entries is not None and member.key in value:
                entries = None  # a duplicate key: kept spans would give it the later value
            value[member.key], comma = member.node.value, member.comma
            new = [member.key, member.key_start - start, member.colon - start,
                   -1 if comma is None else comma - start, member.node.start - start, member.node]
        else:
            item = parser.value(depth + 1)
            value.append(item.value)
            new, comma = [item.start - start, item], parser.comma(close)
        if entries is not None:
            entries.append(new)
        _check(parser, close, comma)
    parser.pos += 1
    node = Node(start, parser.pos, value)
    node._members = None if close == "}" else []
    node._items = [] if close == "}" else None
    node._lazy = (parser.text, parser.jsonc, depth)
    if entries is not None:
        try:  # the new children's spans, as `json_kept` writes them
            entries[first_new:] = [[*entry[:-1], json_kept._encode(entry[-1])]
                                   for entry in entries[first_new:]]
        except json_kept._Duplicate:
            return node
        node._lazy = (*node._lazy, json_kept._Kept(entries))
    return node


def _check(parser: _Parser, close: str, comma: int | None) -> None:
    if comma is None and parser.peek() != close:
        kind = "an object member" if close == "}" else "an array item"
        parser.fail(f"expected ',' or '{close}' after {kind}, found {parser.found()}")


json_spans.EXTENDED.append(extended)
