"""The lazy JSON parse (containers through the C scanner, spans on first use; issue 32) reads
every document exactly as the parser that walks every value: the same spans, values, members,
commas and items, and the same error at the same line and column."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.property.jsonc import commented
from tests.property.test_config_entry_props import json_docs, json_values
from uze.projections import config_json, json_spans


def _eager(text: str, jsonc: bool) -> config_json.Node | None:
    return json_spans._Parser(text, jsonc).document()  # lazy off: every value walked


def _tree(node: config_json.Node | None) -> Any:
    if node is None:
        return None
    return (node.start, node.end, node.value,
            [(m.key, m.key_start, m.colon, m.comma, _tree(m.node)) for m in node.members],
            [_tree(item) for item in node.items])


def _outcome(parse: Any, text: str, jsonc: bool) -> Any:
    try:
        root = parse(text, jsonc)
    except config_json.JsonSyntax as error:
        return ("error", error.line, error.col, error.problem)
    return _tree(root)  # a span read later never fails: the parse found every error


def _same(text: str, jsonc: bool) -> None:
    lazy = _outcome(lambda t, j: config_json.parse(t, jsonc=j), text, jsonc)
    assert lazy == _outcome(_eager, text, jsonc)


_noise = st.sampled_from(["", ",", "}", "]", "{", "[", "/", "//x\n", "/*", "NaN", "-",
                          "1e999", '"\\x"', '"\x01"', " ", "\n", "\ufeff", "00", "tru"])


@given(json_docs, st.sampled_from([None, 0, 2, "\t"]), st.booleans(), st.data())
def test_lazy_parse_reads_as_the_full_walk(doc: Any, indent: Any, jsonc: bool, data: Any) -> None:
    text = json.dumps(doc, indent=indent, ensure_ascii=data.draw(st.booleans()))
    if jsonc and indent is not None:
        text = commented(text, data.draw)
    _same(text, jsonc)
    at = data.draw(st.integers(0, len(text)))
    broken = text[:at] + data.draw(_noise) + text[at + data.draw(st.integers(0, 3)):]
    _same(broken, jsonc)


@given(json_values, st.booleans())
def test_lazy_parse_of_any_value(value: Any, jsonc: bool) -> None:
    _same(json.dumps({"a": [value, {"b": value}]}, indent=1), jsonc)


@pytest.mark.parametrize("text", [
    '{"a": {"b": NaN}}', '{"a": [Infinity]}', '{"a": {"x": 1, "x": 2}}', '{"a": [1,]}',
    '{"a": {"b": 1 /* c */}}', '{"a": [' + "9" * 5000 + "]}",
    '{"a": ' + "[" * 399 + "]" * 399 + "}", '{"a": ' + "[" * 400 + "]" * 400 + "}",
    '{"a": ' + "[" * 401 + "]" * 401 + "}", '{"a": ' + "[" * 5000 + "]" * 5000 + "}",
    '{"a": {"s": "\\ud800"}}', '{"a": {"s": "\t"}}',
    '{"a": {"b": [1, 2]}} x', '\ufeff{"a": {"b": 1}}', '{"a": {"b": 1}',
    '{"a" // c: x\n : 1}', '{"a": [1, // null\n 2], "b" /* : */ : 2}', '[1, // nope\n]',
    '{"a": 1, // "b": 2\n}', '{"a": 1, /* "b" */ "c": 2}',
])
def test_lazy_parse_edges(text: str) -> None:
    for jsonc in (False, True):
        _same(text, jsonc)
