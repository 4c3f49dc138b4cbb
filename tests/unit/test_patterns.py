"""uze.patterns: a module-level pattern compiled the first time it is used (issue 32)."""

from __future__ import annotations

import copy
import re

import pytest

from uze.patterns import compile_later


def test_nothing_is_compiled_until_the_pattern_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[object] = []
    real = re.compile
    monkeypatch.setattr(re, "compile", lambda *args: compiled.append(args) or real(*args))
    pattern = compile_later(r"(?P<word>[a-z]+)-(\d+)", re.IGNORECASE)
    assert compiled == []
    assert pattern.fullmatch("Ab-12") is not None
    assert pattern.sub(r"\2", "x-1 y-2") == "1 2"
    assert [m.group("word") for m in pattern.finditer("a-1 B-2")] == ["a", "B"]
    assert (pattern.pattern, pattern.groups, pattern.flags & re.IGNORECASE) == (
        r"(?P<word>[a-z]+)-(\d+)", 2, re.IGNORECASE)
    assert compiled == [(r"(?P<word>[a-z]+)-(\d+)", re.IGNORECASE)]  # once, at the first use


def test_bytes_patterns_and_copies_work_as_compiled_ones() -> None:
    marker = compile_later(rb"^<!-- (\S+) -->$", re.MULTILINE)
    assert marker.search(b"x\n<!-- end -->\n") is not None
    assert copy.copy(marker).findall(b"<!-- a -->\n<!-- b -->") == [b"a", b"b"]
    assert "compile_later" in repr(marker)


def test_a_bad_pattern_fails_where_it_is_first_used() -> None:
    broken = compile_later(r"(unclosed")
    with pytest.raises(re.error):
        broken.match("x")
    with pytest.raises(AttributeError):
        broken._private  # noqa: B018 (no pattern attribute starts with an underscore)
