"""Regions: insert then remove gives back the original bytes, for any surrounding text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from uze.projections.region import insert_region, region_body, remove_region, replace_region_body

# Text made of lines that are never markers, with any mix of line endings and final newline.
_line = st.text(alphabet=st.characters(blacklist_characters="\r\n", blacklist_categories=["Cs"]),
                max_size=20)
_eol = st.sampled_from(["\n", "\r\n", ""])
user_text = st.lists(st.tuples(_line, _eol), max_size=8).map(
    lambda parts: "".join(a + b for a, b in parts).encode()
)
body = st.lists(_line.filter(lambda s: "uze:" not in s), max_size=5).map(
    lambda ls: "\n".join(ls).encode())
region_id = st.from_regex(r"[a-z0-9]+(-[a-z0-9]+)*", fullmatch=True)


@given(user_text, body)
def test_insert_then_remove_gives_back_the_original_bytes(text: bytes, content: bytes) -> None:
    new, lead = insert_region(text, "pkg", content)
    assert remove_region(new, "pkg", lead) == text


@given(user_text, body)
def test_bytes_before_a_region_are_never_changed(text: bytes, content: bytes) -> None:
    new, _lead = insert_region(text, "pkg", content)
    assert new.startswith(text)


@given(user_text, st.lists(body, min_size=1, max_size=4), st.randoms())
def test_regions_removed_in_any_order_give_back_the_original_bytes(
    text: bytes, bodies: list[bytes], rng: object
) -> None:
    current, leads = text, {}
    for index, content in enumerate(bodies):
        current, leads[f"p{index}"] = insert_region(current, f"p{index}", content)
    order = list(leads)
    rng.shuffle(order)  # type: ignore[attr-defined]
    for rid in order:
        current = remove_region(current, rid, leads[rid])
        for other in leads:
            if other != rid and other in order[order.index(rid) + 1 :]:
                assert region_body(current, other) is not None
    assert current == text


@given(user_text, body, body)
def test_two_owners_regions_are_independent(text: bytes, first: bytes, second: bytes) -> None:
    one, _lead_a = insert_region(text, "a", first)
    two, _lead_b = insert_region(one, "b", second)
    assert region_body(two, "a") == region_body(one, "a")
    changed = replace_region_body(two, "a", second)
    assert region_body(changed, "b") == region_body(two, "b")


@given(user_text, body, body)
def test_replacing_a_body_keeps_every_byte_outside_the_region(text: bytes, old: bytes,
                                                              new: bytes) -> None:
    inserted, lead = insert_region(text, "pkg", old)
    replaced = replace_region_body(inserted, "pkg", new)
    assert remove_region(replaced, "pkg", lead) == text
    expected, _ = insert_region(text, "pkg", new)
    assert replaced == expected


@given(user_text, body, region_id)
def test_inserting_an_existing_region_again_is_refused(text: bytes, content: bytes,
                                                       rid: str) -> None:
    once, _lead = insert_region(text, rid, content)
    try:
        insert_region(once, rid, content)
    except ValueError:
        return
    raise AssertionError("a second region with the same id was inserted")
