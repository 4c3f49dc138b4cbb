"""Array elements over generated JSON, JSONC and TOML documents.

Append then remove gives back the original bytes; foreign elements and keys never change;
one owner's element goes without disturbing another's appended after it.
"""

from __future__ import annotations

import json
from typing import Any

import tomlkit
from hypothesis import assume, given
from hypothesis import strategies as st

from tests.property.jsonc import commented
from uze.projections import config_json, config_toml
from uze.projections.config_array import append_element, equal_to, read_array, remove_element

_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]) | st.sampled_from('"\\./ #'),
    max_size=8,
)
_json_scalar = st.none() | st.booleans() | st.integers() | _text
json_values = st.recursive(
    _json_scalar,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=8,
)
json_docs = st.dictionaries(_text, json_values, max_size=4)
_toml_scalar = st.booleans() | st.integers(min_value=-(2**63), max_value=2**63 - 1) | _text
toml_tables = st.dictionaries(
    _text, _toml_scalar | st.lists(_toml_scalar, max_size=3), min_size=1, max_size=4
)
_indents = st.sampled_from([None, 0, 2, 4, "\t"])
KEY_PATH = ("hooks", "PreToolUse")


def _with_array(plain: dict[str, Any], shape: str, foreign: list[Any]) -> dict[str, Any]:
    if shape == "hooks-object":
        plain["hooks"] = {"SessionStart": foreign}
    elif shape == "array":
        plain["hooks"] = {"Stop": [], "PreToolUse": foreign}
    elif shape == "empty-array":
        plain["hooks"] = {"PreToolUse": []}
    else:
        plain.pop("hooks", None)
    return plain


def _document(draw: Any, fmt: str) -> bytes:
    plain = draw(json_docs)
    shape = draw(st.sampled_from(["none", "hooks-object", "array", "empty-array"]))
    plain = _with_array(plain, shape, draw(st.lists(json_values, max_size=3)))
    text = json.dumps(plain, indent=draw(_indents), ensure_ascii=False)
    if fmt == "jsonc":
        text = commented(text, draw)
    text += "\n" if draw(st.booleans()) else ""
    return (text.replace("\n", "\r\n") if draw(st.booleans()) else text).encode()


def _without_array(data: bytes) -> Any:
    """The JSON document without the PreToolUse array (and `hooks` when that leaves it empty)."""
    plain: Any = config_json.load(data.decode(), jsonc=True)
    plain.get("hooks", {}).pop("PreToolUse", None)
    if plain.get("hooks") == {}:
        del plain["hooks"]
    return plain


@given(st.sampled_from(["json", "jsonc"]), json_values, st.data())
def test_json_append_then_remove_gives_back_the_bytes(fmt: Any, value: Any, data: Any) -> None:
    doc = _document(data.draw, fmt)
    before = read_array(doc, fmt, KEY_PATH)
    new, info = append_element(doc, fmt, KEY_PATH, value)
    assert read_array(new, fmt, KEY_PATH) == [*before, value]
    assert _without_array(new) == _without_array(doc)
    assert remove_element(new, fmt, KEY_PATH, equal_to(value), info) == doc


@given(st.sampled_from(["json", "jsonc"]), json_values, json_values, st.data())
def test_removing_one_owner_element_keeps_the_other(
    fmt: Any, mine: Any, theirs: Any, data: Any
) -> None:
    doc = _document(data.draw, fmt)
    before = read_array(doc, fmt, KEY_PATH)
    first, info = append_element(doc, fmt, KEY_PATH, mine)
    second, _ = append_element(first, fmt, KEY_PATH, theirs)
    without_mine = remove_element(second, fmt, KEY_PATH, len(before), info)
    assert read_array(without_mine, fmt, KEY_PATH) == [*before, theirs]
    assert _without_array(without_mine) == _without_array(doc)


def _toml_document(draw: Any) -> bytes:
    doc = tomlkit.document()
    for key, value in draw(st.dictionaries(_text, _toml_scalar, max_size=3)).items():
        doc[key] = value
    foreign = draw(st.lists(toml_tables, max_size=2))
    names = _text.filter(lambda key: key != "hooks")
    for name, table in draw(st.dictionaries(names, toml_tables, max_size=2)).items():
        doc[name] = table
    if foreign:
        array = tomlkit.aot()
        for table in foreign:
            array.append(table)
        doc["hooks"] = array
    text = doc.as_string()
    text = text if draw(st.booleans()) else text.rstrip("\n")
    return (text.replace("\n", "\r\n") if draw(st.booleans()) else text).encode()


@given(toml_tables, toml_tables, st.data())
def test_toml_append_then_remove_gives_back_the_bytes_and_keeps_foreign_tables(
    mine: dict[str, Any], theirs: dict[str, Any], data: Any
) -> None:
    doc = _toml_document(data.draw)
    try:
        config_toml.load(doc.decode())
    except config_toml.TomlSyntax:
        assume(False)
    before = read_array(doc, "toml", ("hooks",))
    new, info = append_element(doc, "toml", ("hooks",), mine)
    assert read_array(new, "toml", ("hooks",)) == [*before, mine]
    assert remove_element(new, "toml", ("hooks",), equal_to(mine), info) == doc
    second, _ = append_element(new, "toml", ("hooks",), theirs)
    left = remove_element(second, "toml", ("hooks",), len(before), info)
    assert read_array(left, "toml", ("hooks",)) == [*before, theirs]
