"""Split a Markdown file into YAML frontmatter and body."""

from __future__ import annotations

from collections.abc import Mapping

import yaml

from uze.package.limits import LimitExceeded, load_yaml

FENCE = "---"


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
    try:
        data = load_yaml("".join(lines[1:closing]))
    except yaml.YAMLError as error:
        raise _yaml_error(error) from None
    except LimitExceeded as error:
        raise FrontmatterError(str(error)) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise FrontmatterError("frontmatter must be a YAML mapping of keys to values")
    return data, "".join(lines[closing + 1 :])
