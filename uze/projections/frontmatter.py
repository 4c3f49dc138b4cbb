"""Edit a Markdown file's YAML frontmatter as text, keeping every line uze does not change.

Used to render derived copies (e.g. a SKILL.md carrying a harness's policy keys); the store
copy never changes. Top-level keys are replaced or dropped with their indented continuation
lines; new keys are appended before the closing `---`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from uze.patterns import compile_later
from uze.projections.region import detect_eol

_KEY = re.compile(rb"^([A-Za-z0-9_$-]+)\s*:")
# A key and a text value PyYAML's dumper writes plain as `key: value` (one word: no space to
# fold at, no `: `, no quote, not a word YAML reads as true, false or null).
_PLAIN_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")
_PLAIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]{0,199}")
_NOT_TEXT = frozenset({"yes", "no", "y", "n", "true", "false", "on", "off", "null"})


_LINE_END = re.compile(rb"\r\n?|\n")  # where bytes.splitlines ends a line


def _split(text: bytes) -> tuple[list[bytes], bytes] | None:
    """The frontmatter's lines (`---` to `---`, line ends kept) and the body after them, or
    None without a frontmatter. Only the lines up to the closing `---` are split off (a
    SKILL.md of 2,000 lines is not split and joined again for its 5 lines of frontmatter)."""
    lines: list[bytes] = []
    start = 0
    while start < len(text):
        end = found.end() if (found := _LINE_END.search(text, start)) else len(text)
        lines.append(line := text[start:end])
        start = end
        if line.rstrip(b"\r\n") == b"---" and len(lines) > 1:
            return lines, text[end:]
        if len(lines) == 1 and line.rstrip(b"\r\n") != b"---":
            return None
    return None


def _rewrite(
    lines: list[bytes], set_keys: Mapping[str, object], drop: set[str], eol: bytes
) -> list[bytes]:
    """Replace set keys in place, drop dropped ones, append set keys that were absent."""
    out: list[bytes] = []
    pending = dict(set_keys)
    dropping = False
    for line in lines:
        match = _KEY.match(line)
        if match is not None:
            key = match.group(1).decode()
            dropping = key in drop or key in set_keys
            if key in pending:
                out.append(_render_key(key, pending.pop(key), eol))
        elif line[:1] not in (b" ", b"\t", b"-") and line.strip():
            dropping = False
        if not dropping:
            out.append(line)
    out.extend(_render_key(key, value, eol) for key, value in pending.items())
    return out


def _render_key(key: str, value: object, eol: bytes) -> bytes:
    """`key: value` as `yaml.safe_dump` writes it, each line ending in `eol`."""
    if (isinstance(value, str) and _PLAIN_KEY.fullmatch(key) and _PLAIN_WORD.fullmatch(value)
            and not value.endswith(":") and not {key.lower(), value.lower()} & _NOT_TEXT):
        return f"{key}: {value}".encode() + eol  # what safe_dump writes, without loading it
    import yaml  # start-up: YAML loads only for a value that is not one plain word (ADR 0051)

    dumped = yaml.safe_dump({key: value}, default_flow_style=False, sort_keys=False)
    return b"".join(line.encode() + eol for line in dumped.splitlines())


def edit_frontmatter(
    text: bytes, set_keys: Mapping[str, object], drop: Iterable[str] = ()
) -> bytes:
    """Return `text` with `set_keys` set and `drop` keys removed in its frontmatter.

    A file without frontmatter gets one. The body is returned byte for byte.
    """
    eol = detect_eol(text)
    parts = _split(text)
    head, body = (parts if parts else ([b"---" + eol, b"---" + eol], text))
    inner = _rewrite(head[1:-1], set_keys, set(drop), eol)
    return head[0] + b"".join(inner) + head[-1] + body


# A text PyYAML's dumper writes plain on one line: a letter first (no indicator, no number,
# date or null), then no `:` or `#` (no `: `, ` #`, sexagesimal), no quote, bracket or other
# indicator it would quote, and no trailing space.
_PLAIN_TEXT = compile_later(r"[A-Za-z](?:[A-Za-z0-9 _.,;()/'+=-]*[A-Za-z0-9_.)'-])?")
_WIDTH = 80  # PyYAML's best_width: a plain scalar past it is folded at a space


def plain_dump(head: Mapping[str, object]) -> str | None:
    """`yaml.safe_dump(head, sort_keys=False, allow_unicode=True)` without loading PyYAML,
    for a mapping of plain keys to texts that fit one line as plain scalars (an agent's name
    and description); None for anything else, which the caller dumps with PyYAML (issue 32
    item 4; tests/property holds it to PyYAML's own output)."""
    out = []
    for key, value in head.items():
        if not (isinstance(key, str) and isinstance(value, str) and _PLAIN_KEY.fullmatch(key)
                and _PLAIN_TEXT.fullmatch(value) and not {key.lower(), value.lower()} & _NOT_TEXT
                and len(key) + 2 + len(value) <= _WIDTH):
            return None
        out.append(f"{key}: {value}\n")
    return "".join(out) or None
