"""JSON and JSONC documents as text with byte spans: parse, then edit one object member.

This is the JSON half of config entries (see `config_entry`). It never reformats: an edit
inserts or deletes one span, so every byte outside the owned member keeps its place, line
endings, indentation, comments and trailing commas included. New members are rendered with
`json.dumps` in the document's own indentation and go at the end of their object.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Final, NoReturn

import msgspec

_SPACE: Final = re.compile(r"[ \t\r\n]*")
_INDENT: Final = re.compile(r"[ \t]*")
_SPACE_OR_COMMENT: Final = re.compile(r"(?:[ \t\r\n]+|//[^\n]*|/\*.*?\*/)*", re.DOTALL)
_STRING: Final = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_LITERALS: Final[dict[str, object]] = {"true": True, "false": False, "null": None}
MAX_DEPTH: Final = 400
_BOM: Final = "\ufeff"
DEFAULT_INDENT: Final = "  "


class JsonSyntax(ValueError):
    """The text is not a JSON (or JSONC) document; `line`/`col` are 1-based."""

    def __init__(self, line: int, col: int, problem: str) -> None:
        super().__init__(f"{line}:{col}: {problem}")
        self.line, self.col, self.problem = line, col, problem


class Node(msgspec.Struct):
    """One value: `text[start:end]` is its source, `value` its plain Python form."""

    start: int
    end: int
    value: object
    members: list[Member] = msgspec.field(default_factory=list)
    items: list[Node] = msgspec.field(default_factory=list)


class Member(msgspec.Struct):
    """One object member: key string at `key_start`, `colon`, value node, and the comma after it."""

    key: str
    key_start: int
    colon: int
    node: Node
    comma: int | None


def position(text: str, offset: int) -> tuple[int, int]:
    """The 1-based (line, column) of `offset` in `text`."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


class _Parser:
    def __init__(self, text: str, jsonc: bool) -> None:
        self.text, self.jsonc = text, jsonc
        self.pos = 1 if text.startswith(_BOM) else 0

    def fail(self, problem: str, at: int | None = None) -> NoReturn:
        raise JsonSyntax(*position(self.text, self.pos if at is None else at), problem)

    def found(self) -> str:
        return repr(self.text[self.pos]) if self.pos < len(self.text) else "the end of the file"

    def skip(self) -> None:
        pattern = _SPACE_OR_COMMENT if self.jsonc else _SPACE
        self.pos = pattern.match(self.text, self.pos).end()  # type: ignore[union-attr]
        if self.text.startswith("/", self.pos):
            if not self.jsonc:
                self.fail("comments are not allowed in JSON")
            is_open = self.text.startswith("/*", self.pos)
            self.fail("unterminated /* comment" if is_open else "unexpected '/'")

    def peek(self) -> str:
        return self.text[self.pos : self.pos + 1]

    def document(self) -> Node | None:
        self.skip()
        if self.pos == len(self.text):
            return None
        root = self.value(0)
        self.skip()
        if self.pos != len(self.text):
            self.fail(f"unexpected {self.found()} after the end of the document")
        return root

    def value(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            self.fail("values are nested too deeply")
        char = self.peek()
        if char == "{":
            return self.object(depth)
        if char == "[":
            return self.array(depth)
        return self.scalar()

    def scalar(self) -> Node:
        start = self.pos
        match = _STRING.match(self.text, start) or _NUMBER.match(self.text, start)
        if match is not None:
            self.pos, token = match.end(), match.group(0)
            plain = token[0] == '"' and "\\" not in token  # most strings: no escapes to decode
            try:
                return Node(start, self.pos, token[1:-1] if plain else json.loads(token))
            except ValueError:  # an integer longer than Python converts (4300 digits)
                self.fail("a number too long to read", start)
        for word, value in _LITERALS.items():
            if self.text.startswith(word, start):
                self.pos = start + len(word)
                return Node(start, self.pos, value)
        if self.peek() == '"':
            self.fail("unterminated string or invalid character in string")
        self.fail(f"expected a value, found {self.found()}")

    def object(self, depth: int) -> Node:
        node = Node(self.pos, self.pos, {})
        self.pos += 1
        self.skip()
        while self.peek() != "}":
            member = self.member(depth)
            node.members.append(member)
            node.value[member.key] = member.node.value  # type: ignore[index]
            if member.comma is None and self.peek() != "}":
                self.fail(f"expected ',' or '}}' after an object member, found {self.found()}")
        node.end = self.pos = self.pos + 1
        return node

    def member(self, depth: int) -> Member:
        key_start = self.pos
        if self.peek() != '"':
            self.fail(f"expected a string key or '}}', found {self.found()}")
        key = self.scalar().value
        self.skip()
        colon = self.pos
        if self.peek() != ":":
            self.fail(f"expected ':' after an object key, found {self.found()}")
        self.pos += 1
        self.skip()
        node = self.value(depth + 1)
        comma = self.comma("}")
        return Member(str(key), key_start, colon, node, comma)

    def comma(self, close: str) -> int | None:
        self.skip()
        if self.peek() != ",":
            return None
        comma = self.pos
        self.pos += 1
        self.skip()
        if self.peek() == close and not self.jsonc:
            self.fail(f"trailing comma before '{close}' (allowed in JSONC only)", comma)
        return comma

    def array(self, depth: int) -> Node:
        node = Node(self.pos, self.pos, [])
        self.pos += 1
        self.skip()
        while self.peek() != "]":
            item = self.value(depth + 1)
            node.items.append(item)
            node.value.append(item.value)  # type: ignore[attr-defined]
            if self.comma("]") is None and self.peek() != "]":
                self.fail(f"expected ',' or ']' after an array item, found {self.found()}")
        node.end = self.pos = self.pos + 1
        return node


def parse(text: str, *, jsonc: bool) -> Node | None:
    """The document's top-level value, or None when it holds none. Raises JsonSyntax."""
    return _Parser(text, jsonc).document()


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


def _back_over_space(text: str, pos: int) -> int:
    while pos > 0 and text[pos - 1] in " \t\r\n":
        pos -= 1
    return pos


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
    if obj.members:
        return "\n" not in text[obj.start : obj.end]
    return bool(root.members) and "\n" not in text[root.start : root.end]


def _member_indent(text: str, obj: Node, unit: str) -> str:
    for index in reversed(range(len(obj.members))):
        indent = _indent_of(text, *_gap_before(obj, index))
        if indent is not None:
            return indent
    return _line_indent(text, obj.start) + unit


def _render_member(text: str, root: Node, obj: Node, key: str, value: object) -> tuple[str, str]:
    """(lead + `"key": value`, tail) for a new last member of `obj`, in the document's style."""
    close = obj.end - 1
    if _is_inline(text, obj, root):
        item_sep, key_sep = _separators(text, obj, root)
        body = _dumps(key) + key_sep + _dumps(value, separators=(item_sep, key_sep))
        return (item_sep[1:] if obj.members else "") + body, ""
    eol, unit = detect_eol(text), indent_unit(text, root)
    indent = _member_indent(text, obj, unit)
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
    chunk, tail = _render_member(text, root, obj, key_path[-1], value)
    point = _back_over_space(text, obj.end - 1)
    last = obj.members[-1] if obj.members else None
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
    index = max(i for i, m in enumerate(obj.members) if m.key == key_path[-1])
    member, previous = obj.members[index], obj.members[index - 1] if index else None
    if index < len(obj.members) - 1:  # the next member takes this one's place
        after_comma = _SPACE.match(text, (member.comma or 0) + 1).end()  # type: ignore[union-attr]
        return text[: member.key_start] + text[after_comma:]
    start = _back_over_space(text, member.key_start)
    end = member.node.end if member.comma is None else member.comma + 1
    if tail and text.startswith(tail, end):
        end += len(tail)
    if member.comma is not None or previous is None or previous.comma is None:
        return text[:start] + text[end:]
    return text[: previous.comma] + text[previous.comma + 1 : start] + text[end:]


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
