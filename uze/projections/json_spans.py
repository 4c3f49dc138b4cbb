"""JSON and JSONC text parsed with byte spans: the reading half of `config_json`.

`parse` gives the top-level value as a `Node` whose members and items carry their offsets in
the text, so an edit can insert or delete one span. Containers below the top level are decoded
by the C `json` scanner where it reads them exactly as this parser would, and their own spans
are parsed only when an edit asks for them (issue 32, ADR 0079): a settings file holding every
package's hooks is walked along one key path, not value by value. A text that is an edit of a
text parsed before (`parse(..., base=...)`) takes the members and items of the old parse that
lie wholly inside the bytes the two texts share at their start (ADR 0099): an add at the end of
an object of 400 servers parses the new member, not the 400.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable
from typing import Any, Final, NoReturn

import msgspec

from uze.projections.json_text import JsonSyntax, common_prefix, common_suffix, position, too_deep

_SPACE: Final = re.compile(r"[ \t\r\n]*")
_INDENT: Final = re.compile(r"[ \t]*")
_SPACE_OR_COMMENT: Final = re.compile(r"(?:[ \t\r\n]+|//[^\n]*|/\*.*?\*/)*", re.DOTALL)
_STRING: Final = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
# Atomic: a gap never gives back part of a comment to let what follows match inside it.
_GAP: Final = {False: f"(?>{_SPACE.pattern})", True: f"(?>{_SPACE_OR_COMMENT.pattern})"}
_HEAD: Final = {jsonc: re.compile(f"(?P<key>{_STRING.pattern}){gap}(?P<colon>:){gap}", re.DOTALL)
                for jsonc, gap in _GAP.items()}  # `"key" :` and the space after the colon
_NEXT: Final = {close: {jsonc: re.compile(f"{gap}(?P<comma>,){gap}(?={ahead})", re.DOTALL)
                         for jsonc, gap in _GAP.items()}
                 for close, ahead in (("}", '"'), ("]", r'[\[{"0-9tfn-]'))}
_LITERALS: Final[dict[str, object]] = {"true": True, "false": False, "null": None}
Lazy = tuple[str, bool, int] | tuple[str, bool, int, Any]
MAX_DEPTH: Final = 400
_BOM: Final = "\ufeff"
DEFAULT_INDENT: Final = "  "


EXTENDED: list[Callable[[_Parser, Node, int], Node | None]] = []  # json_tail's (ADR 0118)


class Node:
    """One value: `text[start:end]` is its source, `value` its plain Python form.

    A container below the top level is decoded whole by the C `json` scanner when it can be
    (no comment, no trailing comma, nothing the scanner and this parser could read apart), and
    its `members` or `items` are parsed from its span only when asked for: an edit reads the
    spans along one key path, not those of every package's entry (issue 32)."""

    __slots__ = ("_items", "_lazy", "_members", "_origin", "end", "start", "value")

    def __init__(self, start: int, end: int, value: object) -> None:
        self.start, self.end, self.value = start, end, value
        self._members: list[Member] | None = [] if not isinstance(value, dict) else None
        self._items: list[Node] | None = [] if not isinstance(value, list) else None
        self._lazy: Lazy | None = None  # (text, jsonc, depth[, kept spans]) to expand from
        self._origin: tuple[Node, int] | None = None  # the same value, parsed, `int` earlier

    def _expand(self) -> None:
        if self._lazy is None:  # built by the parser: its children are already filled in
            self._members = [] if self._members is None else self._members
            self._items = [] if self._items is None else self._items
            return
        text, jsonc, depth = self._lazy[:3]
        built = self._lazy[3].children(self) if len(self._lazy) > 3 else None
        if built is not None:  # spans the command before kept (json_kept): built, not parsed
            (self._members, self._items), self._lazy = built, None
            return
        if self._origin is not None:  # an older text's value, moved: its children, moved
            old, shift = self._origin
            self._members = [_move_member(m, shift, (text, jsonc, depth)) for m in old.members]
            self._items = [_move(item, shift, (text, jsonc, depth + 1)) for item in old.items]
            self._lazy = self._origin = None
            return
        parser = _Parser(text, jsonc)
        parser.pos, parser.lazy = self.start, True
        parser.within = (self.start, self.end)  # `decoded` read it: its nesting is checked
        full = parser.value(depth, fast=False)
        self._members, self._items, self._lazy = full.members, full.items, None

    @property
    def expanded(self) -> bool:
        """Whether the members or items are there (parsed, built, or asked for already)."""
        return self._lazy is None

    @property
    def members(self) -> list[Member]:
        """An object's members in source order ([] for any other value)."""
        if self._members is None:
            self._expand()
        return self._members  # type: ignore[return-value]

    @property
    def items(self) -> list[Node]:
        """An array's items in source order ([] for any other value)."""
        if self._items is None:
            self._expand()
        return self._items  # type: ignore[return-value]


class Member(msgspec.Struct):
    """One object member: key string at `key_start`, `colon`, value node, and the comma after it."""

    key: str
    key_start: int
    colon: int
    node: Node
    comma: int | None


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


_SCAN: Final = json.JSONDecoder(parse_constant=_no_constant).scan_once  # type: ignore[attr-defined]


class _Parser:
    def __init__(self, text: str, jsonc: bool) -> None:
        self.text, self.jsonc = text, jsonc
        self.pos = 1 if text.startswith(_BOM) else 0
        self.lazy = False  # containers below the top level through the C scanner
        self.within = (0, 0)  # a span `decoded` checked: every value inside it is within MAX_DEPTH
        self.common = 0  # text[:common] is an older parsed text's start: its spans are reused
        self.suffix, self.shift = len(text) + 1, 0  # text[suffix:] is its end, `shift` later

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

    def document(self, old: Node | None = None) -> Node | None:
        self.skip()
        if self.pos == len(self.text):
            return None
        # The top level is read here, member by member (a config file has few): read whole by
        # the scanner first, an edit would scan all of it again to find its members.
        root = self.value(0, fast=False, old=old)
        self.skip()
        if self.pos != len(self.text):
            self.fail(f"unexpected {self.found()} after the end of the document")
        return root

    def value(self, depth: int, fast: bool = True, old: Node | None = None) -> Node:
        """The value at `pos`. `old`: the value an older parse found at this very offset of a
        text whose first `common` characters are this text's (so the same value, as far as
        it lies inside them), or None."""
        if depth > MAX_DEPTH:
            self.fail("values are nested too deeply")
        char = self.peek()
        if old is not None and (old.start != self.pos or self.pos >= self.common):
            old = None
        if old is not None and old.end < self.common:
            self.pos = old.end  # it and the character after it are the old text's: the same
            _rebind([old], self.text)
            return old
        if old is not None and old._lazy is not None and self.lazy and EXTENDED:
            node = EXTENDED[0](self, old, depth)  # an old container still lazy: from its end
            if node is not None:
                return node
        if char in ("{", "[") and fast and self.lazy and (old is None or not old.expanded):
            # (an old container with its spans parsed: its children are taken, not scanned)
            node = self.decoded(depth)
            if node is not None:
                return node
        if char == "{":
            return self.object(depth, old)
        if char == "[":
            return self.array(depth, old)
        return self.scalar()

    def decoded(self, depth: int) -> Node | None:
        """The container at `pos` read by the C scanner, its children left for later; None
        where this parser must read it (a comment, a trailing comma, NaN, a number too long,
        nesting that could pass the limit: its own errors and values decide)."""
        start, text = self.pos, self.text
        try:
            value, end = _SCAN(text, start)
        except (StopIteration, ValueError, RecursionError):
            return None
        if not self.within[0] <= start < end <= self.within[1] \
                and too_deep(text, start, end, MAX_DEPTH - depth):
            return None
        node = Node(start, end, value)
        node._members = None if isinstance(value, dict) else []
        node._items = None if isinstance(value, list) else []
        node._lazy = (self.text, self.jsonc, depth)
        self.pos = end
        return node

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

    def _reusable(self, old: Node | None, starts: list[int]) -> int:
        """How many children of `old` (starting at `starts`) this parse takes as they are:
        those after which the parser stops (at the next child's start, or at the closing
        bracket, which it reads) inside the shared prefix. The parser, reading the same
        characters from the same place, would find the same spans, values and commas."""
        if old is None or not old.expanded or not starts or starts[0] != self.pos:
            return 0
        stops = [*starts[1:], old.end - 1]
        return bisect.bisect_left(stops, self.common)

    def _moved_from(self, starts: list[int]) -> int | None:
        """The old child that starts where the parser stands, moved by `shift`, when the text
        from here on is the old text's end: the parser would read the rest of the container
        (and the document) as before, `shift` characters later."""
        if self.pos < self.suffix or not starts:
            return None
        at = bisect.bisect_left(starts, self.pos - self.shift)
        return at if at < len(starts) and starts[at] == self.pos - self.shift else None

    def object(self, depth: int, old: Node | None = None) -> Node:
        node = Node(self.pos, self.pos, {})
        node._members = []
        self.pos += 1
        self.skip()
        members, value = node._members, node.value
        before = old.members if old is not None and old.expanded else []
        starts = [m.key_start for m in before]
        taken = self._reusable(old, starts)
        _rebind([member.node for member in before[:taken]], self.text)
        for member in before[:taken]:
            members.append(member)
            value[member.key] = member.node.value  # type: ignore[index]
        if taken:
            self.pos = starts[taken] if taken < len(before) else old.end - 1  # type: ignore[union-attr]
        while self.peek() != "}":
            moved = self._moved_from(starts)
            if moved is not None:  # the old members from here, and the old closing brace
                for was in before[moved:]:
                    members.append(_move_member(was, self.shift, (self.text, self.jsonc, depth)))
                    value[was.key] = was.node.value  # type: ignore[index]
                self.pos = old.end - 1 + self.shift  # type: ignore[union-attr]
                break
            at = len(members)
            member = self.member(depth, before[at] if at < len(before) else None)
            members.append(member)
            value[member.key] = member.node.value  # type: ignore[index]
            if member.comma is None and self.peek() != "}":
                self.fail(f"expected ',' or '}}' after an object member, found {self.found()}")
        node.end = self.pos = self.pos + 1
        return node

    def member(self, depth: int, old: Member | None = None) -> Member:
        key_start = self.pos
        was = old.node if old is not None and old.key_start == key_start else None
        head = _HEAD[self.jsonc].match(self.text, key_start) if self.lazy else None
        if head is not None and not self.text.startswith("/", head.end()):
            # `"key" :` and the space after it in one match; anything else (an error, a
            # comment where a value starts) takes the steps below, whose messages say what
            token = head.group("key")
            key = token[1:-1] if "\\" not in token else json.loads(token)
            self.pos = head.end()
            node = self.value(depth + 1, old=was)
            return Member(key, key_start, head.start("colon"), node, self.comma("}"))
        if self.peek() != '"':
            self.fail(f"expected a string key or '}}', found {self.found()}")
        key = self.scalar().value
        self.skip()
        colon = self.pos
        if self.peek() != ":":
            self.fail(f"expected ':' after an object key, found {self.found()}")
        self.pos += 1
        self.skip()
        node = self.value(depth + 1, old=was)
        comma = self.comma("}")
        return Member(str(key), key_start, colon, node, comma)

    def comma(self, close: str) -> int | None:
        if self.lazy:  # `, ` and the start of the next key or item in one match
            found = _NEXT[close][self.jsonc].match(self.text, self.pos)
            if found is not None:
                self.pos = found.end()
                return found.start("comma")
        self.skip()
        if self.peek() != ",":
            return None
        comma = self.pos
        self.pos += 1
        self.skip()
        if self.peek() == close and not self.jsonc:
            self.fail(f"trailing comma before '{close}' (allowed in JSONC only)", comma)
        return comma

    def array(self, depth: int, old: Node | None = None) -> Node:
        node = Node(self.pos, self.pos, [])
        node._items = []
        self.pos += 1
        self.skip()
        items, value = node._items, node.value
        before = old.items if old is not None and old.expanded else []
        starts = [item.start for item in before]
        taken = self._reusable(old, starts)
        _rebind(before[:taken], self.text)
        items += before[:taken]
        value += [item.value for item in before[:taken]]  # type: ignore[operator]
        if taken:
            self.pos = starts[taken] if taken < len(before) else old.end - 1  # type: ignore[union-attr]
        while self.peek() != "]":
            moved = self._moved_from(starts)
            if moved is not None:  # the old items from here, and the old closing bracket
                items += [_move(item, self.shift, (self.text, self.jsonc, depth + 1))
                          for item in before[moved:]]
                value += [item.value for item in before[moved:]]
                self.pos = old.end - 1 + self.shift  # type: ignore[union-attr]
                break
            at = len(items)
            item = self.value(depth + 1, old=before[at] if at < len(before) else None)
            items.append(item)
            value.append(item.value)
            if self.comma("]") is None and self.peek() != "]":
                self.fail(f"expected ',' or ']' after an array item, found {self.found()}")
        node.end = self.pos = self.pos + 1
        return node


def _move(node: Node, shift: int, lazy: tuple[str, bool, int]) -> Node:
    """`node` of an older text, `shift` characters later in `lazy[0]` (the new text, whose
    characters there are the old ones), at depth `lazy[2]`. A container's children are moved
    on first use if the old one has its spans parsed, else parsed from the new text."""
    copy = Node(node.start + shift, node.end + shift, node.value)
    if copy._members is None or copy._items is None:  # a container
        # moved before and not asked for since: parsed from `lazy` (or built) when asked
        copy._lazy = lazy + (node._lazy or ())[3:]
        copy._origin = (node, shift) if node.expanded else None
    return copy


def _rebind(nodes: list[Node], text: str) -> None:
    """Nodes of an older parse (inside the start both texts share) taken into the parse of
    `text`: what is left to parse below them is read from `text`, and what they were moved
    from is let go, so no older text of the file stays alive (ADR 0107)."""
    while nodes:
        node = nodes.pop()
        if node._lazy is None:
            nodes += [m.node for m in node._members or ()] + list(node._items or ())
        elif node._lazy[0] is not text:
            node._lazy, node._origin = (text, *node._lazy[1:]), None


def _move_member(member: Member, shift: int, lazy: tuple[str, bool, int]) -> Member:
    """`member` of an older text, `shift` characters later (its object at depth `lazy[2]`)."""
    comma = None if member.comma is None else member.comma + shift
    return Member(member.key, member.key_start + shift, member.colon + shift,
                  _move(member.node, shift, (lazy[0], lazy[1], lazy[2] + 1)), comma)


def parse(text: str, *, jsonc: bool, base: tuple[str, Node] | None = None) -> Node | None:
    """The document's top-level value, or None when it holds none. Raises JsonSyntax.

    Containers below the top level are decoded by the C scanner where it reads them exactly
    as this parser would, and their spans parsed on first use (`Node`); a document the scanner
    cannot read falls back, value by value, to this parser and its errors. `base`: an older
    text and its parse (same `jsonc`): where the two texts share their start, its values and
    spans are taken as they are, and where they share their end, its values with their spans
    moved (ADR 0099); the result is the same as without it."""
    parser = _Parser(text, jsonc)
    parser.lazy = True
    old = None
    if base is not None:
        older, old = base
        parser.common = common_prefix(text, older)
        shared = common_suffix(text, older, min(len(text), len(older)) - parser.common)
        parser.suffix, parser.shift = len(text) - shared, len(text) - len(older)
    return parser.document(old)

