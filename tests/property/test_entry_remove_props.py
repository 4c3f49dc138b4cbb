"""Removing an entry: whenever the document before holds something not hollow beside the
entry's way (`entry._keeps_content`), the text left is not hollow either, so skipping the
parse of it decides as `is_hollow` would have (in JSON, JSONC and TOML, with shells, empty
entries and keys of the user's own beside it)."""

from __future__ import annotations

from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

from tests.property.test_config_entry_props import _dump_json, _key_path, _toml_doc
from uze.projections import config_entry as ce
from uze.projections import entry

_keys = st.sampled_from(["mcpServers", "hooks", "mcp", "a", "b"])
_values = st.recursive(
    st.just([]) | st.just({}) | st.integers(0, 3) | st.just("x") | st.lists(st.just(1), max_size=1),
    lambda inner: st.dictionaries(_keys, inner, max_size=3),
    max_leaves=6,
)
_documents = st.dictionaries(_keys, _values, max_size=4)


def _decides_alike(before: bytes, fmt: ce.ConfigFormat, key_path: tuple[str, ...]) -> None:
    try:
        added, info = ce.add_entry(before, fmt, key_path, {"command": "mine"})
    except (ce.EntryExists, ce.UnsafeEdit, TypeError, ValueError):
        assume(False)
        raise
    left = ce.remove_entry(added, fmt, key_path, info)
    hollow = not left or entry.is_hollow(left, fmt)
    if entry._keeps_content(ce.read_document(added, fmt), key_path):
        assert not hollow


@given(_documents, st.data(), st.sampled_from(["json", "jsonc"]), st.booleans())
def test_json_content_beside_the_entry_means_a_file_that_is_not_hollow(
    plain: dict[str, Any], data: Any, fmt: Any, indented: bool
) -> None:
    before = _dump_json(plain, 2 if indented else None, False, True) if plain else b""
    _decides_alike(before, fmt, _key_path(data.draw, plain, _keys))


@given(_documents, st.data())
def test_toml_content_beside_the_entry_means_a_file_that_is_not_hollow(
    plain: dict[str, Any], data: Any
) -> None:
    _decides_alike(_toml_doc(plain, "", False, "\n"), "toml", _key_path(data.draw, plain, _keys))
