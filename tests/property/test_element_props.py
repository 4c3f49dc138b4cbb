"""Hook groups looked up by marker give the verdicts and removals of hashing every group.

Generated arrays hold groups with quotes, backslashes, NUL and non-printable characters
(which `repr` escapes), hand-copied groups with their keys reordered, other groups holding
our group's strings (another handler of the same wrapper), and markers taken from
a group's repr (across keys too), from one of its strings, or made up. `element.inspect` must
say what hashing every element said (matched / drifted / missing), with and without the
group's value, however often it is asked about the same array; removal must take out the
element hashing each from the end takes out, byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from uze import memo
from uze.projections import config_array as ca
from uze.projections import element
from uze.projections.config_entry import MISSING
from uze.projections.entry import value_digest

STOP = ("hooks", "Stop")
_text = st.text(alphabet=st.sampled_from("ab'\"\\\0\xa0\x7f/ ,:{}é"), max_size=6)
_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 40) | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=6,
)
_groups = st.dictionaries(_text, _values, min_size=1, max_size=3)


def _reordered(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _reordered(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [_reordered(item) for item in value]
    return value


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [*value, *(s for item in value.values() for s in _strings(item))]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def _slice(draw: Any, text: str) -> str:
    """A part of `text`, not empty unless `text` is."""
    start = draw(st.integers(0, max(len(text) - 1, 0)))
    return text[start : draw(st.integers(start + 1, max(len(text), start + 1)))]


@st.composite
def _cases(draw: Any) -> tuple[list[Any], Any, str]:
    """An array (as the file holds it), the value of the record's digest, and its marker."""
    items = draw(st.lists(_groups, max_size=12))
    mine = draw(_groups)
    for _ in range(draw(st.sampled_from([1, 1, 2, 3, 0]))):  # ours, hand copies of it, or none
        copy = _reordered(mine) if draw(st.booleans()) else mine
        items.insert(draw(st.integers(0, len(items))), copy)
    for _ in range(draw(st.sampled_from([1, 2, 3, 0]))):  # another group with our strings
        items.insert(draw(st.integers(0, len(items))), {**mine, "matcher": draw(_text)})
    if draw(st.booleans()) and items:  # an edit of ours
        at = draw(st.integers(0, len(items) - 1))
        items[at] = {**items[at], "matcher": draw(_text)}
    pools = [[repr(item) for item in items] + [repr(mine)],  # across keys too
             [repr(text) for text in _strings(mine)] + _strings(mine)]  # in one string
    marker = draw(st.sampled_from(draw(st.sampled_from([pool for pool in pools if pool]))))
    marker = _slice(draw, marker) if draw(st.booleans()) else marker
    marker = draw(st.sampled_from([marker, marker, marker, draw(_text), ""]))
    return items, mine, marker


def _hashing_every(items: list[Any], digest: str, marker: str) -> str:
    """The verdict of hashing every element (uze before issue 32's lookup by marker)."""
    if digest in {value_digest(item) for item in items}:
        return "matched"
    joined = "\0".join(repr(item) for item in items)
    return "drifted" if "\0" not in marker and marker in joined else "missing"


@contextmanager
def _near(count: int) -> Iterator[None]:
    """Look at only the last `count` elements one by one (the rest: by their joined reprs)."""
    was, element._NEAR = element._NEAR, count
    try:
        yield
    finally:
        element._NEAR = was
        memo.forget()


_nears = st.sampled_from([0, 0, 1, 2, 8])  # elements looked at one by one before the search


@given(case=_cases(), known=st.booleans(), asked=st.integers(1, 12), near=_nears,
       ascii_only=st.booleans(), slashes=st.booleans())
def test_inspect_says_what_hashing_every_group_said(
    tmp_path_factory: Any, case: tuple[list[Any], Any, str], known: bool, asked: int,
    near: int, ascii_only: bool, slashes: bool
) -> None:
    """The file as json.dumps writes it, with `\\u` escapes or characters as they are, and
    with `/` written `\\/` or not (the JSON text tells some markers are in no element)."""
    items, mine, marker = case
    path: Path = tmp_path_factory.mktemp("element") / "settings.json"
    text = json.dumps({"hooks": {"Stop": items}}, ensure_ascii=ascii_only)
    path.write_bytes((text.replace("/", "\\/") if slashes else text).encode())
    parsed = ca.read_array(path.read_bytes(), "json", STOP)
    digest = value_digest(mine)
    memo.forget()
    others = [value_digest(item) for item in items] + [value_digest({"x": asked})]
    with _near(near):
        for turn in range(asked):  # past `_FEW`: from every digest
            ask = digest if turn % 2 == 0 else others[turn % len(others)]
            value = mine if known and ask == digest else MISSING
            state = element.inspect(path, "json", STOP, ask, marker, value)
            assert state == _hashing_every(parsed, ask, marker)


@given(case=_cases(), near=_nears)
def test_removal_takes_out_what_hashing_from_the_end_took_out(
    case: tuple[list[Any], Any, str], near: int
) -> None:
    items, mine, marker = case
    data = json.dumps({"hooks": {"Stop": items}}, indent=2).encode()
    digest = value_digest(mine)
    info = ca.ElementInfo("element")
    before = ca.remove_element(data, "json", STOP, lambda v: value_digest(v) == digest, info)
    pick = ca.Pick(lambda found: element._last(found, digest, marker))
    with _near(near):
        assert ca.remove_element(data, "json", STOP, pick, info) == before
