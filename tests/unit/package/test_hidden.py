"""uze.package.hidden: what hides text from a person reading a package, by file and line."""

from __future__ import annotations

import pytest

from uze.package.hidden import hidden_text, hidden_warnings
from uze.package.tree import PackageFile

TAG = "".join(chr(0xE0000 + ord(c)) for c in "hi")
SCOTLAND = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"


def _scan(text: str, path: str = "skills/s/SKILL.md") -> list[str]:
    return hidden_text({path: PackageFile(path, text.encode("utf-8"), False)}, [path])


@pytest.mark.parametrize(("text", "found"), [
    (f"a\nb{TAG}\n", ["skills/s/SKILL.md:2: hides text from a reader: Unicode tag characters "
                      "(invisible; they spell 'hi')"]),
    ("x\u2067y\u2069", ["skills/s/SKILL.md:1: hides text from a reader: a bidi control U+2067 "
                        "(reorders what you read)"]),
    ("\u200b\u200b\u200b\u200b", ["skills/s/SKILL.md:1: hides text from a reader: a run of 4 "
                                  "zero-width characters"]),
    ("a\n<!-- never\nclosed", ["skills/s/SKILL.md:2: hides text from a reader: an HTML comment "
                               "(not shown once rendered): 'never closed'"]),
    ("<!--" + "x" * 100 + "-->", ["skills/s/SKILL.md:1: hides text from a reader: an HTML "
                                  "comment (not shown once rendered): '" + "x" * 80 + "…'"]),
    (f"Write for {SCOTLAND}.", []),
    ("Caf\u00e9 na\u00efve \u2014 \u00fcber\n" * 50, []),  # not ASCII, nothing that hides
    ("Caf\u00e9\n\u180e\u180e\u180e\u180e", ["skills/s/SKILL.md:2: hides text from a "
                                           "reader: a run of 4 zero-width characters"]),
    ("\ufeffA BOM, one zero-width \u200d joiner, a lone \u202c pop.", []),
])
def test_each_hiding_place_is_named_by_line(text: str, found: list[str]) -> None:
    assert _scan(text) == found
    assert hidden_warnings([*found, "skills/x: unknown key"]) == found


def test_comments_count_only_in_markdown_and_other_bytes_are_skipped() -> None:
    assert _scan("<!-- x -->", "skills/s/page.html") == []
    assert hidden_text({"a.md": PackageFile("a.md", b"\xff<!-- x -->", False)}, ["a.md"]) == []
    assert hidden_text({}, ["missing.md"]) == []


HIDING = [chr(c) for c in (0x180E, 0x200B, 0x200C, 0x200D, 0x202A, 0x202B, 0x202D, 0x202E,
                           0x2060, 0x2066, 0x2067, 0x2068, 0xFEFF, *range(0xE0000, 0xE0080))]


@pytest.mark.parametrize("around", ["", "plain ", "Caf\u00e9 \u2014 \u201cquoted\u201d ",
                                    "\U0001f600\ufe0f ", "\u1e9e\u2069\u2059 "])
def test_no_hiding_character_is_skipped_by_the_byte_test(around: str) -> None:
    """The bytes are looked at before they are decoded (a file that cannot hide anything is
    not decoded): each hiding character, alone or in a run of four, is still found, next to
    the characters whose UTF-8 forms share its first bytes (E1, E2 80, E2 81, EF, F3)."""
    for char in HIDING:
        text = f"{around}{char * 4}{around}"
        assert _scan(text, "skills/s/run.txt"), (hex(ord(char)), around)


def test_text_whose_bytes_only_resemble_a_hiding_character_is_clean() -> None:
    """The neighbours of the hiding characters in UTF-8 (an em dash, quotes, U+2069, U+2061,
    U+1E9E, U+FE0F, a character of plane 15 past the tags) hide nothing."""
    text = "\u2014\u201c\u201d\u2069\u2061\u1e9e\ufe0f\U000e0100\U000f0000\n" * 4
    assert _scan(text, "skills/s/run.txt") == []
