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
