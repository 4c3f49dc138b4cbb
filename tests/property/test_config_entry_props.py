"""Config entries over generated JSON, JSONC and TOML documents.

Add then remove gives back the original bytes, and no key outside the owned entry changes.
"""

from __future__ import annotations

import json
import tomllib
from typing import Any

import tomlkit
from hypothesis import given
from hypothesis import strategies as st

from tests.property.jsonc import commented
from uze.projections import config_json
from uze.projections.config_entry import add_entry, read_entry, remove_entry, replace_entry

# Keys and strings with quotes, backslashes, dots, slashes, spaces and non-ASCII text.
_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]) | st.sampled_from('"\\./ #'),
    max_size=8,
)
_json_scalar = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | _text
)
json_values = st.recursive(
    _json_scalar,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=4),
    max_leaves=12,
)
json_docs = st.dictionaries(_text, json_values, max_size=6)
_indents = st.sampled_from([None, 0, 2, 4, "\t"])

_toml_scalar = (
    st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _text
)
toml_values = st.recursive(
    _toml_scalar | st.lists(_toml_scalar, max_size=3),
    lambda inner: (
        st.dictionaries(_text, inner, max_size=4)
        | st.lists(st.dictionaries(_text, inner, max_size=3), min_size=1, max_size=2)
    ),
    max_leaves=10,
)
_toml_table = st.dictionaries(_text, toml_values, max_size=4)
toml_docs = st.dictionaries(_text, toml_values, max_size=5)


def _dump_json(plain: Any, indent: Any, crlf: bool, final_newline: bool) -> bytes:
    text = json.dumps(plain, indent=indent, ensure_ascii=False) + ("\n" if final_newline else "")
    return (text.replace("\n", "\r\n") if crlf else text).encode()


def _key_path(draw: Any, plain: dict[str, Any], keys: st.SearchStrategy[str]) -> tuple[str, ...]:
    """A key path into `plain`: some existing objects, then one to three new keys."""
    path: list[str] = []
    node = plain
    while True:
        nested = sorted(key for key, value in node.items() if isinstance(value, dict))
        if not nested or not draw(st.booleans()):
            break
        path.append(draw(st.sampled_from(nested)))
        node = node[path[-1]]
    path.append(draw(keys.filter(lambda key: key not in node)))
    return (*path, *draw(st.lists(keys, max_size=2)))


def _foreign(plain: Any, key_path: tuple[str, ...], first_new_key: int) -> Any:
    """`plain` without the entry and the containers uze created for it, when left empty."""
    chain = [plain]
    for key in key_path[:-1]:
        chain.append(chain[-1][key])
    del chain[-1][key_path[-1]]
    for depth in range(len(key_path) - 1, first_new_key, -1):
        if not chain[depth]:
            del chain[depth - 1][key_path[depth - 1]]
    return plain


def _check(data: bytes, fmt: Any, key_path: tuple[str, ...], value: Any, parse: Any) -> None:
    new, info = add_entry(data, fmt, key_path, value)
    assert read_entry(new, fmt, key_path) == value
    assert _foreign(parse(new), key_path, info.first_new_key) == parse(data)
    assert remove_entry(new, fmt, key_path, info) == data


def _json_parse(data: bytes) -> Any:
    return json.loads(data) if data.strip() else {}


def _jsonc_parse(data: bytes) -> Any:
    return config_json.load(data.decode(), jsonc=True)


@given(json_docs, _indents, st.booleans(), st.booleans(), json_values, st.data())
def test_json_add_then_remove_gives_back_the_bytes_and_keeps_foreign_keys(
    plain: dict[str, Any], indent: Any, crlf: bool, final_newline: bool, value: Any, data: Any
) -> None:
    doc = _dump_json(plain, indent, crlf, final_newline)
    key_path = _key_path(data.draw, plain, _text)
    _check(doc, "json", key_path, value, _json_parse)


@given(json_docs, _indents, st.booleans(), st.booleans(), json_values, st.data())
def test_jsonc_with_comments_and_trailing_commas_gives_back_the_bytes(
    plain: dict[str, Any], indent: Any, crlf: bool, final_newline: bool, value: Any, data: Any
) -> None:
    text = commented(json.dumps(plain, indent=indent, ensure_ascii=False), data.draw)
    text += "\n" if final_newline else ""
    doc = (text.replace("\n", "\r\n") if crlf else text).encode()
    key_path = _key_path(data.draw, plain, _text)
    _check(doc, "jsonc", key_path, value, _jsonc_parse)


@given(json_docs, _indents, st.booleans(), json_values, json_values, st.data())
def test_json_replace_keeps_foreign_keys_and_remove_still_gives_back_the_bytes(
    plain: dict[str, Any], indent: Any, crlf: bool, first: Any, second: Any, data: Any
) -> None:
    doc = _dump_json(plain, indent, crlf, True)
    key_path = _key_path(data.draw, plain, _text)
    new, info = add_entry(doc, "json", key_path, first)
    replaced = replace_entry(new, "json", key_path, second)
    assert read_entry(replaced, "json", key_path) == second
    assert _foreign(json.loads(replaced), key_path, 0) == _foreign(json.loads(new), key_path, 0)
    assert remove_entry(replaced, "json", key_path, info) == doc


def _toml_doc(plain: dict[str, Any], header: str, crlf: bool, ending: str) -> bytes:
    text = header + tomlkit.dumps(plain).rstrip("\n") + ending
    return (text.replace("\n", "\r\n") if crlf else text).encode()


def _toml_parse(data: bytes) -> Any:
    return tomllib.loads(data.decode())


_toml_headers = st.sampled_from(["", "# config\n", "# a\n\n", 'model = "o3" # c\n\n'])
_endings = st.sampled_from(["", "\n", "\n\n"])
_servers = st.dictionaries(_text, st.dictionaries(_text, _toml_scalar, max_size=3), max_size=3)


def _with_servers(plain: dict[str, Any], servers: dict[str, Any], inline: bool) -> dict[str, Any]:
    if not servers:
        return plain
    table = tomlkit.inline_table() if inline else tomlkit.table()
    table.update(servers)
    return {**plain, "mcp_servers": table}


@given(toml_docs, _toml_headers, st.booleans(), _endings, _toml_table, st.data())
def test_toml_add_then_remove_gives_back_the_bytes_and_keeps_foreign_keys(
    plain: dict[str, Any], header: str, crlf: bool, ending: str, value: Any, data: Any
) -> None:
    doc = _toml_doc(plain, header, crlf, ending)
    key_path = _key_path(data.draw, _toml_parse(doc), _text)
    _check(doc, "toml", key_path, value, _toml_parse)


@given(toml_docs, _servers, st.booleans(), st.booleans(), _toml_table, st.data())
def test_toml_server_tables_come_and_go_among_other_servers(
    plain: dict[str, Any], servers: Any, inline: bool, crlf: bool, value: Any, data: Any
) -> None:
    plain = {key: item for key, item in plain.items() if key != "mcp_servers"}
    doc = _toml_doc(_with_servers(plain, servers, inline), "# codex\n", crlf, "\n")
    name = data.draw(_text.filter(lambda key: key not in servers))
    _check(doc, "toml", ("mcp_servers", name), value, _toml_parse)


@given(toml_docs, _toml_headers, _toml_scalar | st.lists(_toml_scalar, max_size=3), st.data())
def test_toml_plain_values_come_and_go(
    plain: dict[str, Any], header: str, value: Any, data: Any
) -> None:
    doc = _toml_doc(plain, header, False, "\n")
    key_path = _key_path(data.draw, _toml_parse(doc), _text)
    _check(doc, "toml", key_path, value, _toml_parse)


@given(toml_docs, _toml_table, _toml_table, st.data())
def test_toml_replace_keeps_foreign_keys_and_remove_still_gives_back_the_bytes(
    plain: dict[str, Any], first: Any, second: Any, data: Any
) -> None:
    doc = _toml_doc(plain, "# c\n", False, "\n")
    key_path = _key_path(data.draw, _toml_parse(doc), _text)
    new, info = add_entry(doc, "toml", key_path, first)
    replaced = replace_entry(new, "toml", key_path, second)
    assert read_entry(replaced, "toml", key_path) == second
    assert remove_entry(replaced, "toml", key_path, info) == doc
