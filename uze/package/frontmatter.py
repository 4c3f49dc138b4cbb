"""Split a Markdown file into YAML frontmatter and body."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from uze.package.limits import LimitExceeded

if TYPE_CHECKING:
    import yaml

FENCE = "---"
# A line `key: text` whose key and value YAML reads as plain strings: both start with a letter
# and hold printable ASCII; the value has no `: ` or ` #` and does not end in `:` (checked
# below), and neither is a word YAML reads as true, false or null.
_PLAIN_LINE: Final = re.compile(r"([A-Za-z][A-Za-z0-9_-]*): +([A-Za-z][ -~]*)")
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


def plain_mapping(block: str) -> dict[str, object] | None:
    """What `yaml.safe_load` returns for a block made only of `key: text` lines that YAML reads
    as strings (a repeated key: the last one); None for any other block, which PyYAML then
    reads. Most SKILL.md headers are such a block: reading them so keeps PyYAML (about 9 ms to
    import) off a skills-only install (ADR 0051)."""
    if len(block) > _PLAIN_MAX or not block.endswith("\n"):
        return None if block else {}
    found: dict[str, object] = {}
    for line in block[:-1].split("\n"):
        match = _PLAIN_LINE.fullmatch(line)
        if match is None:
            return None
        key, value = match[1], match[2].rstrip(" ")
        if (key.lower() in _NOT_TEXT or value.lower() in _NOT_TEXT
                or ": " in value or " #" in value or value.endswith(":")):
            return None
        found[key] = value
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
