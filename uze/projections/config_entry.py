"""Config entries: one owned entry at a key path in a JSON, JSONC or TOML file.

Pure functions over bytes; the caller writes the result through its transaction. An entry is
the value at a key path such as `("mcpServers", "docs")`. `add_entry` creates the missing
objects or tables on the way and returns an `AddInfo` (kept in the receipt) that tells
`remove_entry` what else it added, so that `remove_entry(add_entry(d)) == d` byte for byte.
Every other byte keeps its place: key order, indentation, line endings, comments, trailing
commas, the final newline. Entries are compared by value (`read_entry(...) == value`), so a
harness that reformats its file does not make an entry look edited. A document that does not
parse raises `ConfigUnreadable` before anything is computed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final, TypeVar

from uze import memo
from uze.projections import config_json, config_toml, json_kept, json_text, parse_cache, snapshot
from uze.projections.config_common import FORMATS as FORMATS
from uze.projections.config_common import JSON_MODES as JSON_MODES
from uze.projections.config_common import MISSING as MISSING
from uze.projections.config_common import TOML_MODES as TOML_MODES
from uze.projections.config_common import AddInfo as AddInfo
from uze.projections.config_common import AddMode as AddMode
from uze.projections.config_common import ConfigUnreadable as ConfigUnreadable
from uze.projections.config_common import EntryExists as EntryExists
from uze.projections.config_common import EntryMissing as EntryMissing
from uze.projections.config_common import KeyPath as KeyPath
from uze.projections.config_common import KeyPathBlocked as KeyPathBlocked
from uze.projections.config_common import Missing as Missing
from uze.projections.config_common import UnsafeEdit as UnsafeEdit
from uze.projections.config_common import format_key_path as format_key_path
from uze.vocabulary import ConfigFormat


@contextmanager
def _parsing() -> Iterator[None]:
    try:
        yield
    except (config_json.JsonSyntax, config_toml.TomlSyntax) as error:
        raise ConfigUnreadable(error.line, error.col, error.problem) from error


_TEXTS: dict[int, tuple[bytes, str]] = {}
"""id of bytes `_decode` read or `_encoded` made -> (those bytes, their text): a command's
edits of a shared file pass its bytes from one to the next, and each would decode them again
(and hash the new string for the memo below): 56 times 55-193 KB per install at 200."""
_TEXTS_MAX: Final = 32
memo.per_package(_TEXTS.clear)


def _decode(data: bytes) -> str:
    found = _TEXTS.get(id(data))
    if found is not None and found[0] is data:
        return found[1]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        good = data[: error.start].decode("utf-8")
        line, col = config_json.position(good, len(good))
        raise ConfigUnreadable(line, col, "not valid UTF-8") from error
    _know(data, text)
    return text


def _encoded(text: str) -> bytes:
    """`text` as UTF-8, its text remembered for `_decode`."""
    data = text.encode("utf-8")
    _know(data, text)
    return data


def _know(data: bytes, text: str) -> None:
    if len(data) >= 4096:  # (small texts decode faster than they are looked up)
        _TEXTS[id(data)] = (data, text)
        while len(_TEXTS) > _TEXTS_MAX:
            del _TEXTS[next(iter(_TEXTS))]


def _check(fmt: str, key_path: KeyPath) -> None:
    if fmt not in FORMATS:
        raise ValueError(f"unknown config format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if not key_path or not all(isinstance(key, str) for key in key_path):
        raise ValueError(f"a key path is a non-empty tuple of strings, not {key_path!r}")


_PARSED: dict[tuple[str, str], tuple[object, config_json.Node | None]] = {}
_PARSED_MAX: Final = 64
_TEXT_BUDGET: Final = 2_000_000
"""Characters of text a memo keeps at most (besides the last entry): a settings file of 200
packages' hooks is 190 KB, its parse about 1.5 MB, and a converge of 200 packages makes
thousands of versions of such files (issue 32: peak RSS under 100 MB)."""

_V = TypeVar("_V")


def _remember(memo: dict[tuple[str, str], _V], key: tuple[str, str], value: _V) -> None:
    """Keep `value` as the newest entry of `memo`, dropping the oldest while the memo holds
    more than _PARSED_MAX entries or _TEXT_BUDGET characters of text."""
    memo.pop(key, None)
    memo[key] = value
    held = sum(len(text) for _fmt, text in memo)
    while len(memo) > 1 and (len(memo) > _PARSED_MAX or held > _TEXT_BUDGET):
        oldest = next(iter(memo))
        held -= len(oldest[1])
        del memo[oldest]


def _load(text: str, fmt: str) -> tuple[object, config_json.Node | None]:
    """The document as plain Python, and for JSON its parsed top-level value (None if none).

    Memoised by (format, text): one command inspects many entries of the same few files
    (every MCP server and hook group of every package), and parsing is pure. Callers treat the
    result as read-only (every edit works on the text and copies what it changes).
    """
    key = (fmt, text)
    found = _PARSED.get(key)
    if found is None:
        found = _parse(text, fmt)
    _remember(_PARSED, key, found)  # the newest: the next edit of that file starts from it
    _LAST[fmt] = (text, found[1])
    return found


def _parse(text: str, fmt: str) -> tuple[object, config_json.Node | None]:
    with _parsing():
        if fmt == "toml":
            return config_toml.load(text), None
        found = _base(text, fmt)
        shared = 0 if found is None else found[1] + json_text.common_suffix(
            text, found[0], min(len(text), len(found[0])) - found[1])
        if shared < len(text) // 2:  # no edit of this text parsed before: its first parse here
            kept = parse_cache.found(fmt, text)  # what the command that wrote it parsed
            root = json_kept.rebuild(kept, text, fmt == "jsonc") if kept is not None else None
            if root is not None:
                return root.value, root
        base = (found[0], found[2]) if found is not None else None
        root = config_json.parse(text, jsonc=fmt == "jsonc", base=base)
        return ({} if root is None else root.value), root


def _base(text: str, fmt: str) -> tuple[str, int, config_json.Node] | None:
    """The remembered parse of this format whose text starts with the most characters of
    `text` (an edit of the same file: the text before an add, or before a removal), if any,
    with the length of that shared start: its spans there are taken as they are (ADR 0099).
    Texts that part within their first 64 characters (another file's, or a text too
    small to matter) are passed over at the cost of comparing those."""
    best: tuple[str, int, config_json.Node] | None = None
    if fmt == "toml":
        return None
    head = text[:64]
    for (kind, older), (_value, root) in _PARSED.items():
        if kind == fmt and root is not None and older.startswith(head):
            common = json_text.common_prefix(text, older)
            if common > (best[1] if best else 0):
                best = (older, common, root)
    return best


_LAST: dict[str, tuple[str, config_json.Node | None]] = {}  # per format: `_load`'s last text
_EDITS: dict[int, tuple[bytes, str, str, config_json.Node]] = {}
"""id of the bytes an edit of this command made -> (those bytes, their format, a text and its
parse to read them on): what `config_kept` keeps the parse of when they are committed."""


def edited(data: bytes, result: bytes, fmt: str) -> None:
    """Note, right after an edit made `result` from `data`, the parse it read last (of `result`
    itself after an add's check read it back, else of `data`): `config_kept` reads `result`
    on it if committed. Of one file's chain of edits only the newest stays (each edit reads the
    bytes the one before made)."""
    _EDITS.pop(id(data), None)
    last = _LAST.get(fmt)
    if last is not None and last[1] is not None:
        _EDITS[id(result)] = (result, fmt, last[0], last[1])
        while len(_EDITS) > _PARSED_MAX:
            del _EDITS[next(iter(_EDITS))]


def _plain(text: str, fmt: str) -> object:
    """`_load(text, fmt)[0]`: the document as plain Python, memoised; callers treat it as
    read-only. A read costs what `json.loads` would (containers below the top level are
    decoded by the C scanner, their spans left for an edit), and a command that edits the
    file next starts from this very parse (ADR 0099)."""
    return _load(text, fmt)[0]


_DOCUMENTS: dict[tuple[int, str], tuple[bytes, object]] = {}
memo.per_package(_DOCUMENTS.clear)  # every read of a converge's installs: new bytes (ADR 0100)
_DOCUMENTS_BUDGET: Final = 1_000_000
"""Bytes of documents `_DOCUMENTS` keeps at most (besides the newest): an install of one
package into a project of 200 reads the settings files (up to 190 KB) again at each of its
edits, and each parse kept is about ten times its bytes (ADR 0107: 181 MB peak RSS when up to
64 were kept)."""


def plain_document(data: bytes, fmt: str) -> object:
    """`_plain(_decode(data), fmt)`, remembered for the very same bytes object: inside
    `snapshot.held` every reader of a shared file gets the one `bytes` read, so status decodes
    and hashes a settings file of 200 packages' entries once, not once per entry (kept until
    the block ends, `snapshot.parses`). Other bytes are kept, with their result so an id is
    never reused while remembered, up to `_DOCUMENTS_BUDGET` bytes: the newest first (a
    document dropped here is still found by its text in `_PARSED` while that keeps it)."""
    key = (id(data), fmt)
    block = snapshot.parses(data)
    if block is not None:
        if key not in block:
            block[key] = _plain(_decode(data), fmt)
        return block[key]
    found = _DOCUMENTS.get(key)
    if found is not None and found[0] is data:
        return found[1]
    document = _plain(_decode(data), fmt)
    _DOCUMENTS.pop(key, None)
    _DOCUMENTS[key] = (data, document)
    held = sum(len(kept) for kept, _document in _DOCUMENTS.values())
    while len(_DOCUMENTS) > 1 and (len(_DOCUMENTS) > _PARSED_MAX or held > _DOCUMENTS_BUDGET):
        oldest = next(iter(_DOCUMENTS))
        held -= len(_DOCUMENTS.pop(oldest)[0])
    return document


def _lookup(plain: object, key_path: KeyPath) -> object:
    node = plain
    for key in key_path:
        if not isinstance(node, dict) or key not in node:
            return MISSING
        node = node[key]
    return node


def read_entry(data: bytes, fmt: ConfigFormat, key_path: KeyPath) -> object:
    """The value at `key_path` as plain Python, or `MISSING`. Raises ConfigUnreadable."""
    _check(fmt, key_path)
    return _lookup(plain_document(data, fmt), key_path)


def read_document(data: bytes, fmt: ConfigFormat) -> object:
    """The whole document as plain Python (empty bytes: `{}`). Raises ConfigUnreadable."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown config format {fmt!r}; expected one of {', '.join(FORMATS)}")
    return plain_document(data, fmt)


def _first_new_key(plain: object, key_path: KeyPath) -> int:
    node = plain
    for index, key in enumerate(key_path):
        if not isinstance(node, dict):
            raise KeyPathBlocked(key_path, key_path[:index], node)
        if key not in node:
            return index
        node = node[key]
    raise EntryExists(key_path)


def _has_null(value: object) -> bool:
    if isinstance(value, dict):
        return any(_has_null(child) for child in value.values())
    if isinstance(value, list | tuple):
        return any(_has_null(child) for child in value)
    return value is None


def _refuse_null(value: object, fmt: str) -> None:
    if fmt == "toml" and _has_null(value):
        raise TypeError("TOML has no null value; leave the key out instead")


def _add_json(
    text: str, root: config_json.Node | None, key_path: KeyPath, first_new: int, value: object
) -> tuple[str, AddInfo]:
    nested = value
    for key in reversed(key_path[first_new + 1 :]):
        nested = {key: nested}
    if root is None:
        new, lead, tail = config_json.write_document(text, key_path[0], nested)
        return new, AddInfo("document", first_new, lead, tail)
    new, tail = config_json.insert_member(text, root, key_path[: first_new + 1], nested)
    return new, AddInfo("member", first_new, "", tail)


def add_entry(
    data: bytes, fmt: ConfigFormat, key_path: KeyPath, value: object
) -> tuple[bytes, AddInfo]:
    """Add `value` at `key_path`, creating the objects or tables on the way.

    Returns the new bytes and the `AddInfo` that `remove_entry` needs. Raises ConfigUnreadable,
    EntryExists (or its KeyPathBlocked), UnsafeEdit when removal could not give back `data`
    exactly, and TypeError/ValueError for a value the format cannot hold.
    """
    _check(fmt, key_path)
    text = _decode(data)
    plain, root = _load(text, fmt)
    first_new = _first_new_key(plain, key_path)
    _refuse_null(value, fmt)
    with _parsing():
        if fmt == "toml":
            new, mode, lead, tail = config_toml.add(text, key_path, first_new, value)
            info = AddInfo(mode, first_new, lead, tail)
        else:
            new, info = _add_json(text, root, key_path, first_new, value)
    result = _encoded(new)
    try:
        restored = remove_entry(result, fmt, key_path, info)
    except ConfigUnreadable as error:
        raise UnsafeEdit(key_path) from error
    _EDITS.pop(id(restored), None)  # the check's: never written
    if restored != data:  # also catches an entry that does not read back
        raise UnsafeEdit(key_path)
    edited(data, result, fmt)
    return result, info


def replace_entry(data: bytes, fmt: ConfigFormat, key_path: KeyPath, value: object) -> bytes:
    """Replace the value at `key_path` in place; the `AddInfo` of its add stays valid.

    Raises ConfigUnreadable, EntryMissing, and TypeError/ValueError for a value the format
    cannot hold.
    """
    _check(fmt, key_path)
    text = _decode(data)
    plain, root = _load(text, fmt)
    if _lookup(plain, key_path) is MISSING:
        raise EntryMissing(key_path)
    _refuse_null(value, fmt)
    with _parsing():
        if root is None:  # TOML: an empty JSON document has no entry to replace
            return config_toml.replace(text, key_path, value).encode("utf-8")
        result = _encoded(config_json.replace_value(text, root, key_path, value))
    edited(data, result, fmt)
    return result


def _cut_index(plain: object, key_path: KeyPath, first_new: int) -> int | None:
    """Index in `key_path` of the key to delete; None when the entry is gone.

    That is the highest container uze created that holds nothing but the entry's branch.
    """
    chain = [plain]
    for key in key_path:
        node = chain[-1]
        if not isinstance(node, dict) or key not in node:
            return None
        chain.append(node[key])
    cut = len(key_path) - 1
    while cut > first_new and len(chain[cut]) == 1:  # type: ignore[arg-type]
        cut -= 1
    return cut


_STRINGS: Final = {
    "toml": re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\''),
    "json": re.compile(r'"(?:[^"\\]|\\.)*"'),
}
_COMMENT: Final = {"toml": re.compile("#"), "json": re.compile(r"//|/\*")}


def has_comment(text: str, fmt: ConfigFormat) -> bool:
    """Whether the document holds a comment (`#` in TOML, `//` or `/*` in JSONC) outside its
    strings: text a user wrote, which uze never removes with its own entry."""
    kind = "toml" if fmt == "toml" else "json"
    return _COMMENT[kind].search(_STRINGS[kind].sub("", text)) is not None


def remove_entry(data: bytes, fmt: ConfigFormat, key_path: KeyPath, info: AddInfo) -> bytes:
    """Remove the entry at `key_path` and what `add_entry` created with it (`info`).

    Containers uze created stay when they hold anything else. With no edits since the add, the
    result equals the bytes before the add. Returns `data` unchanged when the entry is gone.
    Raises ConfigUnreadable, and ValueError when `info` belongs to another format.
    """
    _check(fmt, key_path)
    if (info.mode in TOML_MODES) != (fmt == "toml"):
        raise ValueError(f"a {info.mode!r} add record does not fit a {fmt} document")
    text = _decode(data)
    plain, root = _load(text, fmt)
    cut = _cut_index(plain, key_path, info.first_new_key)
    if cut is None:
        return data
    assert isinstance(plain, dict)  # _cut_index found the entry: the document is an object
    member_path = key_path[: cut + 1]
    # Appended tables hold the entry alone wherever the cut falls; other margins belong to
    # the member add inserted, which is the one cut only while nothing was added beside it.
    whole = cut == info.first_new_key or info.mode == "tables"
    margins = (info.lead, info.tail) if whole else ("", "")
    with _parsing():
        if root is None:  # TOML: an empty JSON document has no entry to cut
            trimmed = config_toml.remove(text, key_path, member_path, info.mode, margins)
        elif info.mode == "document" and cut == 0 and len(plain) == 1 \
                and not has_comment(text[root.start:root.end], fmt):  # the user's, inside it
            trimmed = config_json.delete_document(text, root, info.lead, info.tail)
        else:  # a "document" tail follows the whole object, not this member
            tail = margins[1] if info.mode == "member" else ""
            trimmed = config_json.delete_member(text, root, member_path, tail)
    result = _encoded(trimmed)
    if root is not None:
        edited(data, result, fmt)
    return result
