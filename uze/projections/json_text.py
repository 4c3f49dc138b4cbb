"""Text comparisons of the JSON parser (`json_spans`), by string operations only: how deep a
scanned value's brackets nest, what two texts share at their start and end (ADR 0099), and
the line and column of an offset, and the error that names them."""

from __future__ import annotations

import re
from typing import Final

_ESCAPE: Final = re.compile(rb"\\.", re.DOTALL)  # a backslash and the character it escapes
_NOT_A_BRACKET_OR_QUOTE: Final = bytes(code for code in range(256) if chr(code) not in '{}[]"')


class JsonSyntax(ValueError):
    """The text is not a JSON (or JSONC) document; `line`/`col` are 1-based."""

    def __init__(self, line: int, col: int, problem: str) -> None:
        super().__init__(f"{line}:{col}: {problem}")
        self.line, self.col, self.problem = line, col, problem


def nesting(text: str, start: int = 0, end: int | None = None) -> int:
    """How deep the brackets of `text[start:end]` nest (`{"a": [1]}`: 2), for a span the C
    scanner read as one JSON value (so no comment, and brackets only outside strings or
    inside them): a value there is at most this many levels below the span's own depth.

    On the span's UTF-8 bytes: escapes are cut out (a backslash and the byte after it:
    outside strings a JSON value has no backslash), then every byte but brackets and quotes,
    then every piece between quotes (the strings), then the innermost pairs a level at a
    time. Only C string operations, where a walk of the decoded value (a settings file of
    200 packages has thousands of brackets) would visit every container in Python."""
    part = text[start:end].encode("utf-8", "surrogatepass")
    if b"\\" in part:
        part = _ESCAPE.sub(b"", part)
    brackets = b"".join(part.translate(None, _NOT_A_BRACKET_OR_QUOTE).split(b'"')[::2])
    level = 0
    while brackets:  # one pass takes every innermost pair: the pairs it leaves are the next
        inner = brackets.replace(b"{}", b"\0").replace(b"[]", b"\0").replace(b"\0", b"")
        if len(inner) == len(brackets):  # not one JSON value: say too deep, the parser decides
            return len(text)
        brackets, level = inner, level + 1
    return level


def too_deep(text: str, start: int, end: int, limit: int) -> bool:
    """Whether the brackets of the scanned value `text[start:end]` nest deeper than `limit`:
    fewer characters, or fewer brackets, than the limit cannot."""
    return end - start > limit and text.count("{", start, end) + text.count("[", start, end) \
        > limit and nesting(text, start, end) > limit


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


def common_suffix(a: str, b: str, limit: int) -> int:
    """The length, at most `limit`, of the longest common suffix of `a` and `b`."""
    ends, at, block = (len(a), len(b)), 0, 4096
    while at < limit:
        size = min(block, limit - at)
        if a[ends[0] - at - size : ends[0] - at] != b[ends[1] - at - size : ends[1] - at]:
            break
        at += size
    else:
        return limit
    low, high = at, at + size  # the first differing character from the end is in there
    while low < high:
        middle = (low + high + 1) // 2
        same = a[ends[0] - middle : ends[0] - at] == b[ends[1] - middle : ends[1] - at]
        low, high = (middle, high) if same else (low, middle - 1)
    return low


def back_over_space(text: str, pos: int) -> int:
    """The offset where the JSON whitespace that ends at `pos` starts."""
    while pos > 0 and text[pos - 1] in " \t\r\n":
        pos -= 1
    return pos


def position(text: str, offset: int) -> tuple[int, int]:
    """The 1-based (line, column) of `offset` in `text`."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1
