"""Text from a package is shown inert: control characters escaped, long values cut (ADR 0021)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from uze.inert import LIMIT, inert
from uze.package.names import version_problem


@pytest.mark.parametrize(("raw", "shown"), [
    ("plain 1.0.0", "plain 1.0.0"),
    ("\x1b[2K\rok", "\\x1b[2K\\rok"),
    ("a\nb", "a\\nb"),
    ("nul\x00", "nul\\x00"),
    ("c1\x85\x9b", "c1\\x85\\x9b"),
    ("del\x7f", "del\\x7f"),
    ("bidi\u202egnp.exe", "bidi\\u202egnp.exe"),
    ("line\u2028sep", "line\\u2028sep"),
    ("tab\t", "tab\\t"),
])
def test_control_characters_are_escaped(raw: str, shown: str) -> None:
    assert inert(raw) == shown


def test_a_block_keeps_its_line_feeds_but_nothing_else() -> None:
    assert inert("one\x1b\ntwo\r", lines=True) == "one\\x1b\ntwo\\r"


def test_an_overlong_value_is_cut_with_a_marker() -> None:
    assert inert("x" * (LIMIT + 5)) == "x" * LIMIT + "…[+5 chars]"
    assert inert("abcdef", 4) == "abcd…[+2 chars]"


@given(st.text())
def test_nothing_a_terminal_acts_on_survives(text: str) -> None:
    shown = inert(text)
    assert not any(ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f for c in shown)
    assert not any(c in shown for c in "\u202e\u2066\u2028\u200f")


@pytest.mark.parametrize("version", ["1.0.0", "0.0.0", "2.1.0-rc.1+build.5", "v3", "2024.01.02"])
def test_ordinary_versions_are_valid(version: str) -> None:
    assert version_problem(version) is None


@pytest.mark.parametrize("version", ["", "1.0\x1b[2K", "1.0\n", "1" * 65, " 1.0", "1.0 beta",
                                     "-1", "1/0"])
def test_versions_that_could_fool_a_reader_are_refused(version: str) -> None:
    problem = version_problem(version)
    assert problem is not None and "\x1b" not in problem and len(problem) < 200
