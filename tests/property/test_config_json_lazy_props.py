"""The lazy JSON parse (containers through the C scanner, spans on first use; issue 32) reads
every document exactly as the parser that walks every value: the same spans, values, members,
commas and items, and the same error at the same line and column."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import json_levels
from tests.property.jsonc import commented
from tests.property.test_config_entry_props import json_docs, json_values
from uze.projections import config_json, json_kept, json_spans, json_text


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


def _expand_some(node: config_json.Node | None, draw: Any, depth: int = 0) -> None:
    """Ask for the spans of some containers (an edit's key path), leave the others lazy."""
    if node is None or depth > 4 or not draw(st.booleans()):
        return
    for child in [m.node for m in node.members] + node.items:
        _expand_some(child, draw, depth + 1)


_edits = st.sampled_from(["", ",", "}", "]", "{", "[", '"k": 1', ', "k": [1]', "1", " ", "\n",
                          "//x\n", "/* */", '{"a": {}}', "[[]]", "NaN", '"', "\\"])


@given(json_docs, st.sampled_from([None, 0, 2, "\t"]), st.booleans(), st.data())
def test_a_parse_on_an_older_parse_reads_as_the_full_walk(doc: Any, indent: Any, jsonc: bool,
                                                          data: Any) -> None:
    """ADR 0099: spans taken from the parse of an older text where both share their start,
    and moved where they share their end, give the same tree, values and errors as a parse
    from scratch, whatever the edit; so does a chain of such parses (a command's edits of one
    file, each parsed on the last), whatever was asked of each."""
    text = json.dumps(doc, indent=indent)
    if jsonc and indent is not None:
        text = commented(text, data.draw)
    try:
        root = config_json.parse(text, jsonc=jsonc)
    except config_json.JsonSyntax:
        return
    for _ in range(data.draw(st.integers(1, 4))):
        if root is None:
            return
        _expand_some(root, data.draw)
        at = data.draw(st.integers(0, len(text)))
        edited = text[:at] + data.draw(_edits) + text[at + data.draw(st.integers(0, 4)):]
        expected = _outcome(_eager, edited, jsonc)
        try:
            based = config_json.parse(edited, jsonc=jsonc, base=(text, root))
        except config_json.JsonSyntax as error:
            assert ("error", error.line, error.col, error.problem) == expected
            return
        assert _tree(based) == expected if data.draw(st.booleans()) else True
        text, root = edited, based
    assert _tree(root) == _outcome(_eager, text, jsonc)


def test_a_parse_on_an_older_parse_at_the_edges() -> None:
    """The old value ends one character before the shared prefix does, at it, after it; an
    edit inside a number, a string, a comment; a member or item added or removed before
    others, whose spans move."""
    cases = [('{"a": {"b": 1}, "c": 2}', '{"a": {"b": 12}, "c": 2}'),
             ('{"a": [1, 2], "c": 2}', '{"a": [1, 2, 3], "c": 2}'),
             ('{"a": [1, 2]}', '{"a": [1, 2]]}'), ('{"a": 10}', '{"a": 1}'),
             ('{"a": 1, "b": 2}', '{"a": 1, "b": 2, "c": 3}'),
             ('{"a": {"x": 1} // c\n}', '{"a": {"x": 1} // c, "y": 2\n}'),
             ('{"a": "x", "b": {"c": [1, {"d": 2}]}}', '{"a": "x", "b": {"c": [1, {"d": 2}, 3]}}'),
             ('{"a": "x", "b": {"c": [1, {"d": 2}]}}', '{"a": "x", "b": {"c": [1, {"d": 22}]}}'),
             ('{"a": [1, 2], "b": {"c": 1}}', '{"a": [1, 2, 3], "b": {"c": 1}}'),
             ('{"a": [1, 2, 3], "b": {"c": 1}}', '{"a": [1, 3], "b": {"c": 1}}'),
             ('{"a": {"x": [1], "y": 2}, "b": [{"c": 1}, 2]}',
              '{"a": {"x": [1], "w": 0, "y": 2}, "b": [{"c": 1}, 2]}'),
             ('{"a": {"x": [1], "y": 2}, "b": [{"c": 1}, 2]}',
              '{"a": {"y": 2}, "b": [{"c": 1}, 2]}'),
             ('{"a": [1, // c\n 2], "b": 1}', '{"a": [1, 0, // c\n 2], "b": 1}'),
             ('{"a": [[1], [2]], "b": [3]}', '{"a": [[1], [2], [3]], "b": [3]}'),
             ('{"a": [1], "b": 1, "c": {"d": [2, 3]}}',
              '{"a": [1, 5], "b": 1, "c": {"d": [2, 3]}}'),
             ('[[1], 2, [3, 4], 5]', '[[1, 0], 2, [3, 4], 5]'),
             ('{"a": 1, "b": [1, 2], "c": 3, "d": 4}', '{"a": 1, "c": 3, "d": 4}'),
             ('{"a": {"b": [{"c": 1}, {"d": 2}, {"e": 3}]}, "f": 1}',
              '{"a": {"b": [{"c": 1}, {"e": 3}]}, "f": 1}'),
             # children added after the last one of a container left lazy (ADR 0118)
             ('{"a": {"x": 1}, "c": 2}', '{"a": {"x": 1, "x": 2}, "c": 2}'),
             ('{"a": {"x": 1}, "c": 2}', '{"a": {"x": 1, "y": [1, {"z": "]"}]}, "c": 2}'),
             ('{"a": {"x": 1}, "c": 2}', '{"a": {"x": 1, "\\u0079\\"": 2}, "c": 2}'),
             ('{"a": [1, 2], "c": 2}', '{"a": [1, 2 3], "c": 2}'),
             ('{"a": [1, 2], "c": 2}', '{"a": [1, 2, ], "c": 2}'),
             ('{"a": [1, 2], "c": 2}', '{"a": [1, 2, // c\n 3], "c": 2}'),
             ('{"a": [1, 2], "c": 2}', '{"a": [1, 2, 3 /* c */], "c": 2}'),
             ('{"a": [1, 2], "c": 2}', '{"a": [1, 2, NaN], "c": 2}'),
             ('{"a": [1, 2], "c": 2}', '{"a": [1, 2, 3}, "c": 2}'),
             ('{"a": ["x\\\\", "]"], "c": 2}', '{"a": ["x\\\\", "]", "\\""], "c": 2}'),
             ('{"a": {"b": {"x": 1}}, "c": 2}', '{"a": {"b": {"x": 1, "y": {}}}, "c": 2}'),
             ('{"a": {"x": 1,\n}, "c": 2}', '{"a": {"x": 1,\n "y": 2}, "c": 2}'),
             ('{"a": [], "c": 2}', '{"a": [1], "c": 2}'),
             # the last child cut, or changed (the child before it the same)
             ('{"a": {"x": 1, "y": 2}, "c": 2}', '{"a": {"x": 1}, "c": 2}'),
             ('{"a": {"x": 1, "y": 2}, "c": 2}', '{"a": {"x": 1, "y": 3}, "c": 2}'),
             ('{"a": {"x": 1, "y": 2}, "c": 2}', '{"a": {"x": 12}, "c": 2}'),
             ('{"a": {"x": 1, "x": 2}, "c": 2}', '{"a": {"x": 1}, "c": 2}'),
             ('{"a": {"x": "1", "x": 2}, "c": 2}', '{"a": {"x": "1"}, "c": 2}'),
             ('{"a": {"\\u0078": "1", "x": 2}, "c": 2}', '{"a": {"\\u0078": "1"}, "c": 2}'),
             ('{"a": {"x": "\\n", "y": 2}, "c": 2}', '{"a": {"x": "\\n"}, "c": 2}'),
             ('{"a": {"x": "\\"y\\"", "y": 2}, "c": 2}', '{"a": {"x": "\\"y\\""}, "c": 2}'),
             ('{"a": {"x": [1], "y": "x", "x": 2}, "c": 2}', '{"a": {"x": [1], "y": "x"}, "c": 2}'),
             ('{"a": {"x": "\\"", "y": 2}, "c": 2}', '{"a": {"x": "\\""}, "c": 2}'),
             ('{"a": {"x": 1, "y": {"x": 1}}, "c": 2}', '{"a": {"x": 1}, "c": 2}'),
             ('{"a": [1, [2]], "c": 2}', '{"a": [1], "c": 2}'),
             ('{"a": [1, [2]], "c": 2}', '{"a": [1, [2, 3]], "c": 2}'),
             ('{"a": [[2]], "c": 2}', '{"a": [], "c": 2}'),
             ('{"a": {"y": 2}, "c": 2}', '{"a": {}, "c": 2}'),
             ('{"a": {"x": 1 /* c */, "y": 2}, "c": 2}', '{"a": {"x": 1 /* c */}, "c": 2}'),
             ('{"a": {"x": 1, // c\n "y": 2}, "c": 2}', '{"a": {"x": 1, // c\n "z": 2}, "c": 2}')]
    for jsonc in (False, True):
        for levels in (1, 2, 3, 9):  # containers below that many levels left lazy
            for before, after in cases:
                try:
                    root = config_json.parse(before, jsonc=jsonc)
                except config_json.JsonSyntax:
                    continue
                _expand_to(root, levels)
                kept = json_kept.encode(root)  # as the next command finds it (ADR 0112)
                rebuilt = json_kept.rebuild(kept, before, jsonc) if kept is not None else None
                for old in (root, rebuilt) if rebuilt is not None else (root,):
                    based = _outcome(lambda t, j, r=old, o=before: config_json.parse(
                        t, jsonc=j, base=(o, r)), after, jsonc)
                    assert based == _outcome(_eager, after, jsonc), (before, after, levels)
                    if based[0] == "error":
                        continue
                    new = config_json.parse(after, jsonc=jsonc, base=(before, old))
                    again = json_kept.encode(new) if new is not None else None
                    if again is not None and (last := json_kept.rebuild(again, after, jsonc)):
                        assert _tree(last) == based, (before, after, levels)  # spans carried


def _expand_to(node: config_json.Node | None, levels: int) -> None:
    if node is not None and levels:
        for child in [m.node for m in node.members] + node.items:
            _expand_to(child, levels - 1)


_tricky = st.text(alphabet='{}[]"\\/ ab\n\u00e9', max_size=8)
_nested = st.recursive(st.none() | st.integers() | _tricky,
                       lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(_tricky, inner, max_size=3), max_leaves=12)


@given(_nested, st.sampled_from([None, 1]), st.booleans())
def test_nesting_counts_the_levels_of_brackets(value: Any, indent: Any, ascii_only: bool) -> None:
    """ADR 0099: the depth check of the lazy parse, by string operations, is the nesting of
    the value's containers whatever brackets, quotes and backslashes its strings hold."""
    text = json.dumps({"k": value}, indent=indent, ensure_ascii=ascii_only)
    assert json_text.nesting(text) == json_levels({"k": value})
    start = text.index(":") + 1
    assert json_text.nesting(text, start, len(text) - 1) == json_levels(value)


def test_a_chain_of_parses_moves_what_was_moved() -> None:
    """A value moved by one edit and not asked for is moved again by the next: its members
    come from the first parse, moved by both edits (ADR 0099)."""
    texts = ['{"a": [1], "x": {"p": [1, 2], "q": 3}, "y": [{"z": 1}]}',
             '{"a": [1, 2], "x": {"p": [1, 2], "q": 3}, "y": [{"z": 1}]}',
             '{"a": [1, 2, 3], "x": {"p": [1, 2], "q": 3}, "y": [{"z": 1}]}',
             '{"a": [1, 3], "x": {"p": [1, 2], "q": 3}, "y": [{"z": 1}]}']
    root = config_json.parse(texts[0], jsonc=False)
    _expand_some(root, lambda _strategy: True)  # every span parsed: there to be moved
    for before, after in itertools.pairwise(texts):
        root = config_json.parse(after, jsonc=False, base=(before, root))  # x, y: not asked
        assert root is not None
    assert _tree(root) == _outcome(_eager, texts[-1], False)
