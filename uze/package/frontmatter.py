"""Split a Markdown file into YAML frontmatter and body."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from uze.package.limits import LimitExceeded

if TYPE_CHECKING:
    import yaml

FENCE = "---"
# A line `key: value` whose key YAML reads as a plain string (a letter first; not a word YAML
# reads as true, false or null), and whose value is one of the three shapes below.
_KEY_LINE: Final = re.compile(r"([A-Za-z][A-Za-z0-9_-]*): +([^ ].*)")
# A double-quoted text on its line, escaping only `"` and `\`; spaces may follow the quote.
_QUOTED: Final = re.compile(r'"((?:[^"\\]|\\["\\])*)" *')
_UNESCAPE: Final = re.compile(r'\\(["\\])')
# A literal block's header, clipped (`|`) or stripped (`|-`); spaces may follow it.
_BLOCK: Final = re.compile(r"\|(-?) *")
_NOT_TEXT: Final = frozenset({"yes", "no", "y", "n", "true", "false", "on", "off", "null"})
_PLAIN_MAX: Final = 16 * 1024  # larger blocks go to the YAML loader, which bounds their size


class FrontmatterError(ValueError):
    """The frontmatter cannot be read; the message says where and why."""


def _yaml_error(error: yaml.YAMLError) -> FrontmatterError:
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error)
    if mark is None:  # pragma: no cover - safe_load errors carry a mark; kept for safety
        return FrontmatterError(f"invalid YAML frontmatter: {problem}")
    # The frontmatter starts on the file's second line; marks are 0-based.
    line, column = mark.line + 2, mark.column + 1
    return FrontmatterError(f"invalid YAML frontmatter at line {line}, column {column}: {problem}")


def _plain_text(value: str) -> str | None:
    """A plain (unquoted) value as YAML reads it, when it reads as a string: a letter first,
    printable characters, no `: ` or ` #` and no `:` at the end, not true, false or null."""
    value = value.rstrip(" ")
    if (not value[0].isascii() or not value[0].isalpha() or not value.isprintable()
            or value.lower() in _NOT_TEXT or ": " in value or " #" in value
            or value.endswith(":")):
        return None
    return value


def _quoted_text(value: str) -> str | None:
    """A one-line double-quoted value as YAML reads it (only `\\"` and `\\\\` escaped)."""
    match = _QUOTED.fullmatch(value)
    if match is None or not match[1].isprintable():
        return None
    return _UNESCAPE.sub(r"\1", match[1])


def _block_text(lines: list[str], start: int, stripped: bool) -> tuple[str, int] | None:
    """The literal block whose lines begin at `start`, as YAML reads it, and the index of the
    line after it; None unless every line of it is printable, not blank, and indented at least
    as deep as its first (which sets the indentation), and it has a line at all."""
    end = start
    while end < len(lines) and lines[end][:1] == " ":
        end += 1
    if end == start:
        return None
    indent = len(lines[start]) - len(lines[start].lstrip(" "))
    kept = []
    for line in lines[start:end]:
        if not line.isprintable() or not line.strip(" ") or line[:indent].strip(" "):
            return None
        kept.append(line[indent:])
    return "\n".join(kept) + ("" if stripped else "\n"), end


def plain_mapping(block: str) -> dict[str, object] | None:
    """What `yaml.safe_load` returns for a block of top-level `key: value` lines whose keys and
    values YAML reads as strings (a repeated key: the last one); None for any other block,
    which PyYAML then reads. A value is plain text on its line (a letter first, printable, no
    `: `, ` #` or word YAML reads as true, false or null), a double-quoted text on its line
    escaping only `"` and `\\`, or a literal block (`|` or `|-`) of indented lines, none blank.
    SKILL.md headers are such blocks: reading them so keeps PyYAML (about 15 ms to import) off
    a skills-only install (ADR 0051, 0106)."""
    if len(block) > _PLAIN_MAX or not block.endswith("\n"):
        return None if block else {}
    found: dict[str, object] = {}
    lines = block[:-1].split("\n")
    index = 0
    while index < len(lines):
        match = _KEY_LINE.fullmatch(lines[index])
        if match is None or match[1].lower() in _NOT_TEXT:
            return None
        index += 1
        value: str | None
        head = match[2][0]
        if head == '"':
            value = _quoted_text(match[2])
        elif head == "|":
            header = _BLOCK.fullmatch(match[2])
            block_text = None if header is None else _block_text(lines, index, bool(header[1]))
            if block_text is None:
                return None
            value, index = block_text
        else:
            value = _plain_text(match[2])
        if value is None:
            return None
        found[match[1]] = value
    return found


def _load(block: str) -> object:
    """The block read by PyYAML within the limits of `uze.package.limits`."""
    import yaml  # start-up: PyYAML loads only for frontmatter that is not plain (ADR 0051)

    from uze.package.bounded_yaml import load_yaml

    try:
        return load_yaml(block)
    except yaml.YAMLError as error:
        raise _yaml_error(error) from None


def split_frontmatter(text: str) -> tuple[Mapping[str, object], str]:
    """Return (frontmatter, body). A file without a first `---` line has empty frontmatter.

    Raises FrontmatterError when the block is not closed, is not YAML, is not a mapping, or is
    over a limit of `uze.package.limits` (size, depth, alias expansion).
    """
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != FENCE:
        return {}, text
    closing = next((i for i, line in enumerate(lines) if i and line.rstrip() == FENCE), None)
    if closing is None:
        raise FrontmatterError("frontmatter is not closed: add a `---` line after it")
    block = "".join(lines[1:closing])
    try:
        data: object = plain_mapping(block)
        if data is None:
            data = _load(block)
    except LimitExceeded as error:
        raise FrontmatterError(str(error)) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise FrontmatterError("frontmatter must be a YAML mapping of keys to values")
    return data, "".join(lines[closing + 1 :])
