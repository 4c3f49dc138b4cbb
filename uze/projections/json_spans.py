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
from typing import Final, NoReturn

import msgspec

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
MAX_DEPTH: Final = 400
_BOM: Final = "\ufeff"
DEFAULT_INDENT: Final = "  "


class JsonSyntax(ValueError):
    """The text is not a JSON (or JSONC) document; `line`/`col` are 1-based."""

    def __init__(self, line: int, col: int, problem: str) -> None:
        super().__init__(f"{line}:{col}: {problem}")
        self.line, self.col, self.problem = line, col, problem


class Node:
    """One value: `text[start:end]` is its source, `value` its plain Python form.

    A container below the top level is decoded whole by the C `json` scanner when it can be
    (no comment, no trailing comma, nothing the scanner and this parser could read apart), and
    its `members` or `items` are parsed from its span only when asked for: an edit reads the
    spans along one key path, not those of every package's entry (issue 32)."""

    __slots__ = ("_items", "_lazy", "_members", "end", "start", "value")

    def __init__(self, start: int, end: int, value: object) -> None:
        self.start, self.end, self.value = start, end, value
        self._members: list[Member] | None = [] if not isinstance(value, dict) else None
        self._items: list[Node] | None = [] if not isinstance(value, list) else None
        # (text, jsonc, depth, the same value in an older parse, the prefix both texts share)
        self._lazy: tuple[str, bool, int, Node | None, int] | None = None

    def _expand(self) -> None:
        if self._lazy is None:  # built by the parser: its children are already filled in
            self._members = [] if self._members is None else self._members
            self._items = [] if self._items is None else self._items
            return
        text, jsonc, depth, old, common = self._lazy
        parser = _Parser(text, jsonc)
        parser.pos, parser.lazy, parser.common = self.start, True, common
        full = parser.value(depth, fast=False, old=old)
        self._members, self._items, self._lazy = full.members, full.items, None

    @property
    def expanded(self) -> bool:
        """Whether the members or items are parsed already (a value read by the parser, or a
        container whose spans an edit asked for)."""
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


_INNERMOST: Final = re.compile(r"\{\}|\[\]")
_NOT_A_BRACKET: Final = {code: None for code in range(128) if chr(code) not in "{}[]"}


def nesting(text: str, start: int = 0, end: int | None = None) -> int:
    """How deep the brackets of `text[start:end]` nest (`{"a": [1]}`: 2), for a span the C
    scanner read as one JSON value (so no comment, and brackets only outside strings or
    inside them): a value there is at most this many levels below the span's own depth.

    Strings are cut out (escaped backslashes and quotes first, then every other piece
    between quotes), then everything but brackets, then the innermost pairs a level at a
    time: string operations only, where a walk of the decoded value (a settings file of 200
    packages has thousands of brackets) would visit every container in Python."""
    part = text[start:end]
    if "\\" in part:
        part = part.replace("\\\\", "").replace('\\"', "")
    brackets = "".join(part.split('"')[::2]).translate(_NOT_A_BRACKET)
    level = 0
    while brackets:
        inner = _INNERMOST.sub("", brackets)  # one pass: the pairs it leaves are the next
        if len(inner) == len(brackets):  # not one JSON value: say too deep, the parser decides
            return len(text)
        brackets, level = inner, level + 1
    return level


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


_SCAN: Final = json.JSONDecoder(parse_constant=_no_constant).scan_once  # type: ignore[attr-defined]


def position(text: str, offset: int) -> tuple[int, int]:
    """The 1-based (line, column) of `offset` in `text`."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


class _Parser:
    def __init__(self, text: str, jsonc: bool) -> None:
        self.text, self.jsonc = text, jsonc
        self.pos = 1 if text.startswith(_BOM) else 0
        self.lazy = False  # containers below the top level through the C scanner
        self.common = 0  # text[:common] is an older parsed text's: its spans there are reused

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
        root = self.value(0, old=old)
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
            return old
        if char in ("{", "[") and fast and self.lazy and (old is None or not old.expanded):
            # (an old container with its spans parsed: its children are taken, not scanned)
            node = self.decoded(depth, old)
            if node is not None:
                return node
        if char == "{":
            return self.object(depth, old)
        if char == "[":
            return self.array(depth, old)
        return self.scalar()

    def decoded(self, depth: int, old: Node | None = None) -> Node | None:
        """The container at `pos` read by the C scanner, its children left for later; None
        where this parser must read it (a comment, a trailing comma, NaN, a number too long,
        nesting that could pass the limit: its own errors and values decide)."""
        start, text = self.pos, self.text
        try:
            value, end = _SCAN(text, start)
        except (StopIteration, ValueError, RecursionError):
            return None
        # fewer characters (or brackets) than the limit cannot nest deeper than it
        if end - start + depth > MAX_DEPTH \
                and depth + text.count("{", start, end) + text.count("[", start, end) > MAX_DEPTH \
                and depth + nesting(text, start, end) > MAX_DEPTH:
            return None
        node = Node(start, end, value)
        node._members = None if isinstance(value, dict) else []
        node._items = None if isinstance(value, list) else []
        # an old value is kept only once its spans are parsed: nothing else is there to reuse,
        # and lazy values never chain through older texts
        kept = old if old is not None and old.expanded else None
        node._lazy = (self.text, self.jsonc, depth, kept, self.common if kept else 0)
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

    def object(self, depth: int, old: Node | None = None) -> Node:
        node = Node(self.pos, self.pos, {})
        node._members = []
        self.pos += 1
        self.skip()
        members, value = node._members, node.value
        before = old.members if old is not None and old.expanded else []
        taken = self._reusable(old, [m.key_start for m in before])
        for member in before[:taken]:
            members.append(member)
            value[member.key] = member.node.value  # type: ignore[index]
        if taken:
            self.pos = before[taken].key_start if taken < len(before) else old.end - 1  # type: ignore[union-attr]
        while self.peek() != "}":
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
        taken = self._reusable(old, [item.start for item in before])
        items += before[:taken]
        value += [item.value for item in before[:taken]]  # type: ignore[operator]
        if taken:
            self.pos = before[taken].start if taken < len(before) else old.end - 1  # type: ignore[union-attr]
        while self.peek() != "]":
            at = len(items)
            item = self.value(depth + 1, old=before[at] if at < len(before) else None)
            items.append(item)
            value.append(item.value)
            if self.comma("]") is None and self.peek() != "]":
                self.fail(f"expected ',' or ']' after an array item, found {self.found()}")
        node.end = self.pos = self.pos + 1
        return node


def common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of `a` and `b` (compared a block at a time)."""
    end, at, block = min(len(a), len(b)), 0, 4096
    while at < end and a[at : at + block] == b[at : at + block]:
        at += block
    low, high = at, min(at + block, end)
    while low < high:  # the first differing character is in [at, at + block)
        middle = (low + high + 1) // 2
        low, high = (middle, high) if a[at:middle] == b[at:middle] else (low, middle - 1)
    return low


def parse(text: str, *, jsonc: bool, base: tuple[str, Node] | None = None) -> Node | None:
    """The document's top-level value, or None when it holds none. Raises JsonSyntax.

    Containers below the top level are decoded by the C scanner where it reads them exactly
    as this parser would, and their spans parsed on first use (`Node`); a document the scanner
    cannot read falls back, value by value, to this parser and its errors. `base`: an older
    text and its parse (same `jsonc`), whose spans inside the prefix it shares with `text` are
    taken as they are (the result is the same as without it)."""
    parser = _Parser(text, jsonc)
    parser.lazy = True
    old = None
    if base is not None:
        parser.common, old = common_prefix(text, base[0]), base[1]
    return parser.document(old)


def load(text: str, *, jsonc: bool) -> object:
    """The document as plain Python; an empty document reads as `{}`. Raises JsonSyntax."""
    root = parse(text, jsonc=jsonc)
    return {} if root is None else root.value
