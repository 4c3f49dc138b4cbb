"""uze.toml's reader of the form `render_manifest` writes against `tomllib` (ADR 0110): whatever
it takes, it reads as `tomllib` does; what `render_manifest` writes it takes.

The sources hold quotes, backslashes, control characters, DEL, non-ASCII text, the characters
of a surrogate escape and ` = `; the names include TOML's words (`true`, `inf`); the edited
manifests break the form anywhere."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import spliced
from uze.errors import UzeError
from uze.sources import manifest
from uze.sources.manifest import parse_manifest, render_manifest

_text = st.lists(st.sampled_from(["a", "Z", "0", ".", "/", " ", "é", "\u2028", "\x00", "\U0001f600",
                                  '"', "\\", "\x7f", "\t", "\n", "\\ud800", "\\u", "#", "]",
                                  " = ", "\r"]),
                 max_size=8).map("".join)
_names = st.from_regex(r"[a-z0-9]{1,4}(-[a-z0-9]{1,3})?", fullmatch=True) | st.sampled_from(
    ["true", "false", "inf", "nan", "1", "0x1", "1e2", "packages"])
_declared = st.dictionaries(_names, _text | st.text(max_size=6), max_size=5)


def _tomllib(text: str) -> dict[str, Any] | None:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


@given(_declared)
def test_what_render_manifest_writes_reads_as_tomllib_reads_it(declared: dict[str, str]) -> None:
    text = render_manifest(declared).decode()
    expected = _tomllib(text)
    assert manifest._rendered(text) == expected
    # json.dumps leaves DEL raw, which TOML refuses (a source holding one is never declared)
    assert expected == {"packages": declared} or "\x7f" in text


_edits = st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 3),
                            st.sampled_from(['"', "\\", "\\u", "d800", "\t", "\n", " ", "#", "[",
                                             "]", "=", ",", "x", "\x7f", "é", "'", "\r", ".",
                                             "-", "a = \"b\"\n", "\n[packages]\n"])),
                  min_size=1, max_size=3)


@given(_declared, _edits)
def test_an_edited_manifest_is_taken_only_as_tomllib_reads_it(
        declared: dict[str, str], edits: list[tuple[int, int, str]]) -> None:
    text = spliced(render_manifest(declared).decode(), edits)
    found = manifest._rendered(text)
    if found is not None:
        assert found == _tomllib(text)


def test_a_manifest_of_many_packages_is_read_without_tomllib(
        monkeypatch: pytest.MonkeyPatch) -> None:
    declared = {f"p{i:03}": f"./packages/p{i:03}" for i in range(200)}
    declared["flow"] = "git+https://example.com/acme/flow.git@v1#skill=a&skill=b"
    raw = render_manifest(declared)

    def refused(text: str) -> None:
        raise AssertionError("tomllib read a manifest in uze's own form")

    monkeypatch.setattr(tomllib, "loads", refused)
    assert parse_manifest(raw, "uze.toml") == dict(sorted(declared.items()))


@pytest.mark.parametrize("text", [
    'p = "./p"\np = "./q"\n',  # a name twice
    'p = "./p"  # mine\n',
    "p = './p'\n",
    'p="./p"\n',
    'p = "./p"\r\n',
    'p = "./p"',  # no line end
    'p = "./\\U0001f600"\n',
    'p = "./p\\/q"\n',
    'p = "./' + "a" * 5000 + "\n",  # no closing quote: given up at once, no backtracking
    'P = "./p"\n',
])
def test_any_other_form_is_left_to_tomllib_with_its_message(text: str) -> None:
    raw = (manifest.HEADER + "[packages]\n" + text).encode()
    assert manifest._rendered(raw.decode()) is None
    try:
        expected: object = parse_manifest(raw, "uze.toml")
    except UzeError as exc:
        expected = exc.message
    manifest._parse_manifest.cache_clear()
    data = _tomllib(raw.decode())
    if data is None:
        assert isinstance(expected, str) and "not valid TOML" in expected
    elif isinstance(expected, dict):
        assert expected == data["packages"]
