"""ADR 0112: a JSON parse written down by `json_kept.encode` and rebuilt from it for the same
text is the parse itself: the same spans, values, members, commas and items, expanded where
the parse was (so the next edit reuses them as it would have), whatever was asked of it and
whatever edits (with moved spans) made it."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.property.jsonc import commented
from tests.property.test_config_entry_props import json_docs
from tests.property.test_config_json_lazy_props import _eager, _edits, _expand_some, _outcome, _tree
from uze.projections import config_json, json_kept
from uze.projections.json_spans import Node


def _expanded(node: Node) -> set[tuple[int, int]]:
    """The spans of the containers whose members or items are parsed (a moved container whose
    old spans were: as if they were), building those whose kept spans are there to build
    (`json_kept`), parsing nothing."""
    if not node.expanded and len(node._lazy or ()) <= 3:
        return {(node.start, node.end)} if node._origin is not None else set()
    found = {(node.start, node.end)} if isinstance(node.value, dict | list) else set()
    for child in [m.node for m in node.members] + node.items:
        found |= _expanded(child)
    return found


def _values_shared(node: Node) -> bool:
    """Each expanded child's value is the very object its parent holds, as in a parse."""
    if not node.expanded:
        return True
    if isinstance(node.value, dict):
        return all(node.value[m.key] is m.node.value and _values_shared(m.node)
                   for m in node.members)
    if isinstance(node.value, list):
        return all(value is item.value and _values_shared(item)
                   for value, item in zip(node.value, node.items, strict=True))
    return True


@given(json_docs, st.sampled_from([None, 0, 2, "\t"]), st.booleans(), st.data())
def test_a_rebuilt_parse_is_the_parse(doc: Any, indent: Any, jsonc: bool, data: Any) -> None:
    text = json.dumps(doc, indent=indent)
    if jsonc and indent is not None and data.draw(st.booleans()):
        text = commented(text, data.draw)
    try:
        root = config_json.parse(text, jsonc=jsonc)
    except config_json.JsonSyntax:
        return
    for _ in range(data.draw(st.integers(0, 3))):  # a command's edits, each parsed on the last
        if root is None:
            return
        _expand_some(root, data.draw)
        at = data.draw(st.integers(0, len(text)))
        edited = text[:at] + data.draw(_edits) + text[at + data.draw(st.integers(0, 4)):]
        try:
            root = config_json.parse(edited, jsonc=jsonc, base=(text, root))
        except config_json.JsonSyntax:
            return
        text = edited
    if root is None:
        return
    _expand_some(root, data.draw)
    kept = json_kept.encode(root)
    if kept is None:  # a duplicate key in an expanded object
        return
    try:
        kept = msgspec.msgpack.decode(msgspec.msgpack.encode(kept))  # as the cache file holds it
    except UnicodeEncodeError:  # a lone surrogate: parse_cache.keep leaves such a parse out
        return
    rebuilt = json_kept.rebuild(kept, text, jsonc)
    if rebuilt is None:  # a comment or trailing comma: the C reader refuses, the caller parses
        assert jsonc
        return
    assert not [m for m in rebuilt.members if m.node.expanded  # the top level alone is built
                and isinstance(m.node.value, dict | list) and len(m.node.value)]
    assert _expanded(rebuilt) >= _expanded(root)  # nothing the next edit reuses parsed again
    assert _values_shared(rebuilt)
    assert _tree(rebuilt) == _tree(root) == _outcome(_eager, text, jsonc)


_numbers = st.sampled_from(["1e400", "-1e400", "-0", "-0.0", "1E5", "5e-324", "0.1e1",
                            "18446744073709551616", "-9223372036854775809", "1" * 5000,
                            '"\\ud800"', '"\\udc00x"', '"\\u0000\\/"', '{"a": 1, "a": 2}'])


@given(json_docs, st.sampled_from([None, 0, 2]), st.booleans(), _numbers)
def test_the_values_are_read_as_json_loads_reads_them(doc: Any, indent: Any, ascii_only: bool,
                                                      odd: str) -> None:
    """`rebuild` reads values with msgspec where it can: the very values `json.loads` gives,
    types and key order included (compared by repr: 1 is not 1.0, -0.0 is not 0.0), or a
    refusal that `json.loads` then reads, or refuses in turn."""
    for text in (json.dumps(doc, indent=indent, ensure_ascii=ascii_only), odd,
                 f'{{"x": [{odd}]}}'):
        try:
            expected = repr(json.loads(text))
        except ValueError:
            with pytest.raises(ValueError):
                json_kept._loads(text)
            continue
        assert repr(json_kept._loads(text)) == expected
