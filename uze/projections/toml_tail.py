"""What a TOML document reads as after uze appends table headers at its end, or cuts them from
its end again, computed from the parse of the text before instead of parsing the whole new text
(issue 32, ADR 0105).

`config_toml` adds a table entry (an MCP server of Codex's `config.toml`) by appending
`[a.b.name]` (and sub-tables) after the last byte, and removes it by cutting that text out. With
200 packages each new text was parsed again by `tomllib` (42 KB: about 7 ms, three texts per
install and per uninstall). A statement of TOML means what the statements before it allow, so
when the appended part is only headers under a table the document does not hold yet, the new
document is the old one with that table added; and a cut of such a part from the very end
gives back the document without it. Both hold only under conditions this module checks from
the text, and `None` sends the caller to the full parse:

- The text before is a valid document (its parse is given) and neither text holds a multi-line
  string (`\"\"\"` or `'''`): then a line that starts with `[` followed by a letter is a header
  (outside such strings every line starts a statement or continues an array, and no TOML value
  starts with a letter but `true`, `false`, `inf` and `nan`, which no key path here may start
  with).
- The appended part starts on a line of its own with a `[` header, every header in it lies at or
  under the new table, and it reads by itself as that table alone.
- The existing table the new one goes in, if any, is not an inline table (`tomllib` refuses a
  header under one): the text holds a header under it (a table with a header under it can never
  become an inline one).
- A cut: the part is the document's last bytes, every header in it lies under the entry, and the
  entry's parent table keeps another key (so no table the part created implicitly disappears).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final

_BARE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_VALUE_WORDS: Final = frozenset({"true", "false", "inf", "nan"})
_MULTILINE: Final = ('"""', "'''")

Loader = Callable[[str], "dict[str, Any] | None"]


def _plain_text(text: str) -> bool:
    return not any(quote in text for quote in _MULTILINE)


def _dotted(path: tuple[str, ...]) -> str | None:
    """`path` as a bare dotted key, or None when a key needs quotes or could read as a value."""
    if not path or path[0] in _VALUE_WORDS or not all(_BARE.fullmatch(key) for key in path):
        return None
    return ".".join(path)


def _headers_under(chunk: str, path: tuple[str, ...]) -> bool:
    """Whether `chunk` starts with a `[` header and every line of it that starts with `[` is a
    header at or under `path` (a plain `[...]` header: no array of tables)."""
    dotted = _dotted(path)
    if dotted is None or not chunk.lstrip(" \t\r\n").startswith("["):
        return False
    under = re.compile(r"\[" + re.escape(dotted) + r"[.\]]")
    for line in chunk.splitlines():
        line = line.lstrip(" \t")
        if line.startswith("[") and not under.match(line):
            return False
    return True


def _single_branch(parsed: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    """The value at `path` when `parsed` holds nothing but that branch, else None."""
    node: Any = parsed
    for key in path:
        if not isinstance(node, dict) or list(node) != [key]:
            return None
        node = node[key]
    return node


def _table_has_header(text: str, path: tuple[str, ...]) -> bool:
    """Whether `text` holds a header at or under `path` (see the module docstring)."""
    dotted = _dotted(path)
    return dotted is not None and re.search(
        r"(?m)^\[" + re.escape(dotted) + r"[.\]]", text) is not None


def appended(
    text: str, plain: Mapping[str, Any], joined: str, chunk: str,
    key_path: tuple[str, ...], first_new: int, load: Loader,
) -> dict[str, Any] | None:
    """The parse of `joined` (`text`, whitespace, then `chunk`: the entry at `key_path` as
    table headers) from `plain`, the parse of `text`; None when the conditions of the module
    docstring do not hold. `key_path[:first_new]` is in `plain` (tables), the rest is not.
    `load` parses a small text (the chunk) or gives None."""
    new_path = key_path[: first_new + 1]
    before = joined[: len(joined) - len(chunk)]
    if not joined.endswith(chunk) or (before and not before.endswith("\n")) \
            or not _plain_text(joined) or not _headers_under(chunk, new_path):
        return None
    if first_new and not _table_has_header(text, key_path[:first_new]):
        return None
    parsed = load(chunk)
    branch = None if parsed is None else _single_branch(parsed, new_path)
    if branch is None:
        return None
    result = dict(plain)
    node = result
    for key in key_path[:first_new]:
        child = node[key]
        if not isinstance(child, dict):
            return None
        node[key] = node = dict(child)
    node[key_path[first_new]] = branch
    return result


def cut_from_end(
    text: str, plain: Mapping[str, Any], start: int, at: int, chunk: str,
    key_path: tuple[str, ...],
) -> dict[str, Any] | None:
    """The parse of `text[:start]` when `text` ends with `chunk` at `at` (the entry at
    `key_path` as table headers, after line ends from `start`), from `plain`, the parse of
    `text`; None when the conditions of the module docstring do not hold."""
    kept = text[:start]
    if at + len(chunk) != len(text) or start > at or text[start:at].strip("\r\n") \
            or (at and text[at - 1] != "\n") or kept.endswith("\r") or not _plain_text(text) \
            or not _headers_under(chunk, key_path[: max(len(key_path) - 1, 1)]):
        return None
    parent: Any = plain
    for key in key_path[:-1]:
        parent = parent.get(key) if isinstance(parent, dict) else None
    if not isinstance(parent, dict) or key_path[-1] not in parent \
            or (len(key_path) > 1 and len(parent) < 2):
        return None
    return _without_leaf(plain, key_path)


def _without_leaf(plain: Mapping[str, Any], key_path: tuple[str, ...]) -> dict[str, Any]:
    result = dict(plain)
    if len(key_path) == 1:
        del result[key_path[0]]
        return result
    result[key_path[0]] = _without_leaf(plain[key_path[0]], key_path[1:])
    return result
