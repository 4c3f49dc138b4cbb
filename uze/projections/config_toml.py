"""TOML documents: one entry at a key path, added as text so the rest keeps every byte.

This is the TOML half of config entries (see `config_entry`). A table entry is appended at the
end of the document as `[a.b.name]` (plus sub-tables), rendered by tomlkit; removing it cuts
that exact text again. Where no header can be appended, the entry goes in as one
`key = value`: at the end of an inline table it extends, or where tomlkit places a plain value
in an existing table. Every cut or insertion is accepted only if the document then reads back
(with `tomllib`, as strict as the harnesses' parsers) unchanged outside the entry; when the
added text is no longer there as one piece, tomlkit deletes the key instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final, Literal

if TYPE_CHECKING:  # tomlkit is imported by the edits only: reading is tomllib (ADR 0013)
    import tomlkit
    from tomlkit.items import Table

from uze.projections import parse_cache, toml_tail
from uze.projections.config_json import detect_eol

TomlMode = Literal["tables", "item"]
_WHERE: Final = re.compile(r"(.*) \(at (?:line (\d+), column (\d+)|end of document)\)", re.DOTALL)
_TOMLKIT_WHERE: Final = re.compile(r" at line \d+ col \d+$")


class TomlSyntax(ValueError):
    """The text is not a TOML document; `line`/`col` are 1-based."""

    def __init__(self, line: int, col: int, problem: str) -> None:
        super().__init__(f"{line}:{col}: {problem}")
        self.line, self.col, self.problem = line, col, problem


def _end_position(text: str) -> tuple[int, int]:
    return text.count("\n") + 1, len(text) - (text.rfind("\n") + 1) + 1


_LOADED: dict[str, dict[str, Any]] = {}
remembered: Final = _LOADED.get  # the parse of a text this command made or derived, if kept
_LOADED_MAX: Final = 16


def load(text: str) -> dict[str, Any]:
    """The document as plain Python (tomllib types). Raises TomlSyntax.

    Memoised by text: an add parses the document with the entry, and its check that removing
    the entry gives the bytes back parses both again (issue 32); and kept for later commands
    by the text's digest (`parse_cache`, ADR 0112). Callers treat the result as read-only."""
    found = _LOADED.get(text)
    if found is None:
        found = parse_cache.found("toml", text)
    return _remember(text, _load(text) if found is None else found)  # type: ignore[return-value]


def _load(text: str) -> dict[str, Any]:
    import tomllib  # start-up: only a TOML file that exists is read (ADR 0106)

    try:
        return tomllib.loads(text)
    except ValueError as error:  # TOMLDecodeError, or a number too long to read
        match = _WHERE.fullmatch(str(error))
        problem = match.group(1) if match else str(error)
        problem = problem[:1].lower() + problem[1:]
        if match is None or match.group(2) is None:
            raise TomlSyntax(*_end_position(text), problem) from error
        raise TomlSyntax(int(match.group(2)), int(match.group(3)), problem) from error


def _parses(text: str) -> dict[str, Any] | None:
    try:
        return load(text)
    except TomlSyntax:
        return None


def _remember(text: str, parsed: dict[str, Any] | None) -> dict[str, Any] | None:
    if parsed is not None and text not in _LOADED:
        if len(_LOADED) >= _LOADED_MAX:
            _LOADED.pop(next(iter(_LOADED)))
        _LOADED[text] = parsed
    return parsed


def _edit(text: str) -> tomlkit.TOMLDocument:
    import tomlkit
    from tomlkit.exceptions import ParseError

    try:
        return tomlkit.parse(text)
    except ParseError as error:
        problem = _TOMLKIT_WHERE.sub("", str(error))
        raise TomlSyntax(error.line, error.col + 1, problem[:1].lower() + problem[1:]) from error


def _is_table_like(value: object) -> bool:
    if isinstance(value, list):
        return bool(value) and all(isinstance(item, dict) for item in value)
    return isinstance(value, dict)


def _table(value: Mapping[str, object]) -> Table:
    """A tomlkit table for `value`; plain values first, as TOML needs them before sub-tables."""
    import tomlkit

    table = tomlkit.table()
    for key, item in sorted(value.items(), key=lambda pair: _is_table_like(pair[1])):
        if isinstance(item, dict):
            table.append(key, _table(item))
        elif _is_table_like(item):
            array = tomlkit.aot()
            for element in item:  # type: ignore[attr-defined]
                array.append(_table(element))
            table.append(key, array)
        else:
            table.append(key, tomlkit.item(item))
    return table


def _render_tables(key_path: tuple[str, ...], value: Mapping[str, object], eol: str) -> str:
    """`[a.b.name]` with `value`'s keys (and sub-tables), as appended at a document's end."""
    import tomlkit

    doc = tomlkit.document()
    container: Any = doc
    for key in key_path[:-1]:
        parent = tomlkit.table(is_super_table=True)
        container.append(key, parent)
        container = parent
    container.append(key_path[-1], _table(value))
    return doc.as_string().replace("\n", eol)


def _as_tables(key_path: tuple[str, ...], value: object, eol: str) -> str | None:
    """The entry as appended table headers, or None for a plain value at the top level."""
    if isinstance(value, dict):
        return _render_tables(key_path, value, eol)
    if len(key_path) > 1:  # `[parent]` may be new, or only implied by a `[parent.child]`
        return _render_tables(key_path[:-1], {key_path[-1]: value}, eol)
    return None


def _separator(text: str, eol: str) -> str:
    if not text.strip(" \t\r\n"):
        return ""
    if not text.endswith("\n"):
        return eol + eol
    return "" if text.endswith(("\n\n", "\n\r\n")) else eol


def _inline(value: object) -> Any:
    """A tomlkit value that fits anywhere, inside inline tables too: tables become inline."""
    import tomlkit

    if isinstance(value, list | tuple):
        array = tomlkit.array()
        array.extend(_inline(item) for item in value)
        return array
    if not isinstance(value, dict):
        return tomlkit.item(value)
    table = tomlkit.inline_table()
    for key, item in value.items():
        table.append(key, _inline(item))
    return table


def _key_value(key: str, value: object) -> str:
    """`key = value` on one line, tables inline."""
    return str(_inline({key: value}).as_string()[1:-1])


def _container(doc: tomlkit.TOMLDocument, key_path: tuple[str, ...]) -> Any:
    container: Any = doc
    for key in key_path:
        container = container[key]
    return container


def _leaf(plain: Mapping[str, Any], key_path: tuple[str, ...]) -> Any:
    node: Any = plain
    for key in key_path:
        node = node[key]
    return node


def _without(plain: Mapping[str, Any], key_path: tuple[str, ...]) -> dict[str, Any]:
    """`plain` without the entry at `key_path` and without tables left empty along that path."""
    result = dict(plain)
    if len(key_path) == 1:
        result.pop(key_path[0], None)
        return result
    child = plain.get(key_path[0])
    if isinstance(child, dict):
        child = _without(child, key_path[1:])
        if child:
            result[key_path[0]] = child
        else:
            del result[key_path[0]]
    return result


def _same_elsewhere(candidate: str, key_path: tuple[str, ...], expected: dict[str, Any]) -> bool:
    """Whether `candidate` parses and differs from the original only at `key_path`."""
    parsed = _parses(candidate)
    return parsed is not None and _without(parsed, key_path) == expected


def _into_inline_table(
    text: str, key_path: tuple[str, ...], first_new: int, value: object
) -> str | None:
    """Append `key = value` inside the inline table at `key_path[:first_new]`.

    Each `}` is tried until the document reads back with the entry in place and nothing else
    changed; None when none fits.
    """
    entry = _key_value(key_path[first_new], value)
    expected = _without(load(text), key_path)
    for close in (match.start() for match in re.finditer("}", text)):
        point = close
        while point > 0 and text[point - 1] in " \t":
            point -= 1
        candidate = text[:point] + ("" if text[point - 1] == "{" else ", ") + entry + text[point:]
        parsed = _parses(candidate)
        if parsed is not None and _has(parsed, key_path) and _without(parsed, key_path) == expected:
            return candidate
    return None


def _has(plain: Mapping[str, Any], key_path: tuple[str, ...]) -> bool:
    node: Any = plain
    for key in key_path:
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    return True


def _margins(text: str, new: str, entry: str) -> tuple[str, str]:
    """The whitespace around `entry` when `new` is `text` with it inserted, else ("", "")."""
    prefix, high = 0, len(text)  # the longest common prefix, by bisection
    while prefix < high:
        middle = (prefix + high + 1) // 2
        prefix, high = (middle, high) if new[:middle] == text[:middle] else (prefix, middle - 1)
    inserted = new[prefix : prefix + len(new) - len(text)]
    if new[:prefix] + new[prefix + len(inserted) :] != text or entry not in inserted:
        return "", ""
    lead, _, tail = inserted.partition(entry)
    if (lead + tail).strip(" \t\r\n"):
        return "", ""
    return lead, tail


def add(
    text: str, key_path: tuple[str, ...], first_new: int, value: object
) -> tuple[str, TomlMode, str, str]:
    """Add the entry; return (new text, mode, lead, tail).

    Mode "tables": the entry was appended as table headers after `lead`. Mode "item": it went
    inside the document as `key = value` (in an inline table, or placed by tomlkit) with the
    whitespace `lead` and `tail` around it.
    """
    from tomlkit.items import InlineTable

    eol = detect_eol(text)
    tables = _as_tables(key_path, value, eol)
    if tables is not None:
        lead = _separator(text, eol)
        new = text + lead + tables
        if new not in _LOADED:  # read from `text`'s parse where it can be (ADR 0105)
            _remember(new, toml_tail.appended(text, load(text), new, tables, key_path,
                                              first_new, _parses))
        if _parses(new) is not None:
            return new, "tables", lead, ""
    nested: object = value
    for key in reversed(key_path[first_new + 1 :]):
        nested = {key: nested}
    doc = _edit(text)
    container = _container(doc, key_path[:first_new])
    if isinstance(container, InlineTable):
        extended = _into_inline_table(text, key_path, first_new, nested)
        if extended is not None:
            return extended, "item", "", ""
    container[key_path[first_new]] = _inline(nested)
    new = doc.as_string()
    return (new, "item", *_margins(text, new, _key_value(key_path[first_new], nested)))


def _occurrences(text: str, chunk: str) -> list[int]:
    """Offsets where `chunk` starts, last first."""
    found, end = [], len(text)
    while chunk and (at := text.rfind(chunk, 0, end)) >= 0:
        found.append(at)
        end = at + len(chunk) - 1
    return found


def _entry_spans(text: str, at: int, end: int, lead: str, tail: str) -> Iterator[tuple[int, int]]:
    """Spans `add` may have inserted around `key = value` at [at, end), likeliest first.

    Within `lead` and `tail`, after `, `, before `, `, as a line, alone.
    """
    if (lead or tail) and text[:at].endswith(lead) and text.startswith(tail, end):
        yield at - len(lead), end + len(tail)
    if text[at - 2 : at] == ", ":
        yield at - 2, end
    if text[at - 1 : at] == ",":
        yield at - 1, end
    if text[end : end + 2] == ", ":
        yield at, end + 2
    eol = detect_eol(text)
    if (at == 0 or text[at - 1] == "\n") and text.startswith(eol, end):
        yield at, end + len(eol)
    yield at, end


def _cut_tables(text: str, key_path: tuple[str, ...], lead: str) -> str | None:
    plain = load(text)
    chunk = _as_tables(key_path, _leaf(plain, key_path), detect_eol(text))
    expected = _without(plain, key_path)
    for at in _occurrences(text, chunk) if chunk is not None else []:
        if at and text[at - 1] != "\n":
            continue
        start = at - len(lead) if lead and text[:at].endswith(lead) else at
        candidate = text[:start] + text[at + len(chunk) :]  # type: ignore[arg-type]
        if candidate not in _LOADED:  # the entry's text at the end: read from `plain`
            _remember(candidate, toml_tail.cut_from_end(text, plain, start, at, chunk,  # type: ignore[arg-type]
                                                        key_path))
        if _same_elsewhere(candidate, key_path, expected):
            return candidate
    return None


def _cut_key_value(text: str, member_path: tuple[str, ...], lead: str, tail: str) -> str | None:
    plain = load(text)
    entry = _key_value(member_path[-1], _leaf(plain, member_path))
    expected = _without(plain, member_path)
    for at in _occurrences(text, entry):
        for start, end in _entry_spans(text, at, at + len(entry), lead, tail):
            candidate = text[:start] + text[end:]
            if _same_elsewhere(candidate, member_path, expected):
                return candidate
    return None


def remove(
    text: str,
    key_path: tuple[str, ...],
    member_path: tuple[str, ...],
    mode: str,
    margins: tuple[str, str],
) -> str:
    """Remove the entry's member at `member_path` (the entry or a table uze created for it).

    The text `add` inserted, with the `margins` (lead, tail) it added around it, is cut out
    again when it is still there as one piece; otherwise tomlkit deletes the key, keeping the
    rest of the document as it is.
    """
    if mode == "tables":
        trimmed = _cut_tables(text, key_path, margins[0])
    else:
        trimmed = _cut_key_value(text, member_path, *margins)
    if trimmed is not None:
        return trimmed
    doc = _edit(text)
    del _container(doc, member_path[:-1])[member_path[-1]]
    return doc.as_string()


def _rewrites(
    key_path: tuple[str, ...], old: object, new: object, eol: str
) -> Iterator[tuple[str, str]]:
    """(old text, new text) pairs: as appended tables, then as one `key = value`."""
    old_tables, new_tables = _as_tables(key_path, old, eol), _as_tables(key_path, new, eol)
    if old_tables is not None and new_tables is not None:
        yield old_tables, new_tables
    yield _key_value(key_path[-1], old), _key_value(key_path[-1], new)


def replace(text: str, key_path: tuple[str, ...], value: object) -> str:
    """Replace the entry's value where it is written, as tables or as `key = value`.

    Goes through tomlkit when neither form is there as one piece.
    """
    from tomlkit.items import Table

    plain = load(text)
    expected = _without(plain, key_path)
    for old, new in _rewrites(key_path, _leaf(plain, key_path), value, detect_eol(text)):
        for at in _occurrences(text, old):
            candidate = text[:at] + new + text[at + len(old) :]
            if _same_elsewhere(candidate, key_path, expected):
                return candidate
    doc = _edit(text)
    container = _container(doc, key_path[:-1])
    inline = not isinstance(container[key_path[-1]], Table)
    container[key_path[-1]] = _inline(value) if inline else value
    return doc.as_string()
