"""`json_tail.last_child` gives what the full children give: the last member or item, its
spans and value, and the comma before it, for a container the C scanner read (read back from
its end), one whose spans a kept parse describes (`json_kept`), and one already expanded; in
JSON and JSONC, with strings full of quotes, backslashes and brackets (issue 32, ADR 0118)."""

from __future__ import annotations

import itertools
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tests.property.jsonc import commented
from tests.property.test_config_entry_props import json_values
from uze.projections import config_json, json_kept, json_tail
from uze.projections.json_spans import Member, Node

_key_text = st.text(alphabet=st.sampled_from('ab"\\{}[]:, \u00e9\n/'), max_size=6)
_containers = st.dictionaries(_key_text, json_values, min_size=1, max_size=5) \
    | st.lists(json_values, min_size=1, max_size=5)


def _spans(child: Member | Node) -> Any:
    if isinstance(child, Member):
        return (child.key, child.key_start, child.colon, child.comma, _spans(child.node))
    return (child.start, child.end, child.value)


def _full(node: Node, text: str) -> Any:
    """The last child and the comma before it, from every child (what `last_child` spares)."""
    if node.members:
        members = node.members
        return _spans(members[-1]), members[-2].comma if len(members) > 1 else None
    items = node.items
    before = None
    if len(items) > 1:
        at = config_json._SPACE_OR_COMMENT.match(text, items[-2].end).end()  # type: ignore[union-attr]
        before = at if text.startswith(",", at) else None
    return _spans(items[-1]), before


def _answer(node: Node, text: str) -> Any:
    found = json_tail.last_child(node, text)
    assert found is not None
    child, before = found
    value = child.node.value if isinstance(child, Member) else child.value
    last = node.value[child.key] if isinstance(child, Member) else node.value[-1]  # type: ignore[index]
    assert value is last  # the very object the container's value holds, as in a parse
    return _spans(child), before


@given(_containers, st.sampled_from([None, 0, 2, "\t"]), st.booleans(), st.data())
def test_the_last_child_is_the_full_childrens_last(
    container: Any, indent: Any, jsonc: bool, data: Any
) -> None:
    text = json.dumps({"pad": [1, {"x": "]"}], "c": container, "z": 0}, indent=indent,
                      ensure_ascii=data.draw(st.booleans()))
    if jsonc and indent is not None:
        text = commented(text, data.draw)
    root = config_json.parse(text, jsonc=jsonc)
    assert root is not None
    node = config_json._object_at(root, ("c",))
    scanned = not node.expanded  # read whole by the C scanner: read back from its end
    assert scanned or jsonc
    answer = _answer(node, text)
    assert node.expanded != scanned  # read back, not taken from the children it spares
    fresh = config_json.parse(text, jsonc=jsonc)
    assert fresh is not None
    assert answer == _full(config_json._object_at(fresh, ("c",)), text)
    kept = json_kept.encode(fresh)  # its spans written down, as a commit keeps them
    assert kept is not None
    rebuilt = json_kept.rebuild(kept, text, jsonc)
    if rebuilt is not None:  # (None: the C reader does not read JSONC's comments)
        again = config_json._object_at(rebuilt, ("c",))
        assert not again.expanded
        assert _answer(again, text) == answer
        assert not again.expanded  # built alone: the other children still unbuilt


@given(st.lists(st.text(alphabet=st.sampled_from('"\\x]'), max_size=5), min_size=1, max_size=4))
def test_strings_ending_in_backslashes_are_read_back(strings: list[str]) -> None:
    text = json.dumps({"a": strings, "b": {s: s for s in strings}})
    root = config_json.parse(text, jsonc=False)
    assert root is not None
    for key in ("a", "b"):
        node = config_json._object_at(root, (key,))
        assert not node.expanded
        assert _answer(node, text) == _full(node, text)


def test_an_empty_container_has_no_last_child() -> None:
    text = '{"a": [], "b": {}, "c": [ ], "d": {\n}}'
    root = config_json.parse(text, jsonc=False)
    assert root is not None
    for key in "abcd":
        assert json_tail.last_child(config_json._object_at(root, (key,)), text) is None


def test_a_container_read_from_its_old_end_twice_with_a_trailing_comma() -> None:
    """A container `extended` made holds what the parser read (here a JSONC trailing comma),
    not only what the C scanner reads: its last child is not read back, its children are
    parsed, and the next edit's parse reuses them (it once raised a TypeError)."""
    texts = ['{"c": [1, 2], "z": 0}', '{"c": [1, 2, 3,], "z": 0}', '{"c": [1, 2, 3, 4], "z": 0}']
    root = config_json.parse(texts[0], jsonc=True)
    for older, text in itertools.pairwise(texts):
        assert root is not None
        root = config_json.parse(text, jsonc=True, base=(older, root))  # nothing asked between
    assert _tree(root) == _tree(config_json.parse(texts[-1], jsonc=True))


def _tree(node: Node | None) -> object:
    if node is None:
        return None
    return (node.start, node.end, node.value,
            [(m.key, m.key_start, m.colon, m.comma, _tree(m.node)) for m in node.members],
            [_tree(item) for item in node.items])
