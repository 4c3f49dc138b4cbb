"""Array elements (hook groups) in JSON, JSONC and TOML: exact bytes in, exact bytes out."""

from __future__ import annotations

from typing import Any

import pytest

from uze.projections import config_entry, config_json
from uze.projections.config_array import (
    ElementInfo,
    NotAnArray,
    append_element,
    equal_to,
    find_element,
    read_array,
    remove_element,
)
from uze.projections.config_entry import AddInfo, ConfigUnreadable, KeyPathBlocked, UnsafeEdit

PRE = ("hooks", "PreToolUse")
GROUP = {
    "matcher": "^(?:Bash)$",
    "hooks": [{"type": "command", "command": "/w/a.py", "timeout": 35}],
}
KIMI = {"event": "PreToolUse", "matcher": "^(?:Bash)$", "command": "/w/a.py", "timeout": 35}

CLAUDE_SETTINGS = b"""{
  // my settings
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {"matcher": "Edit", "hooks": [{"type": "command", "command": "mine.sh"}]}, // mine
    ]
  }
}
"""


def _round_trip(data: bytes, fmt: Any, key_path: tuple[str, ...], value: Any) -> bytes:
    new, info = append_element(data, fmt, key_path, value)
    assert remove_element(new, fmt, key_path, equal_to(value), info) == data
    assert ElementInfo.from_json(info.to_json()) == info
    return new


def test_a_group_goes_after_the_users_own_with_comments_and_trailing_comma_kept() -> None:
    new = _round_trip(CLAUDE_SETTINGS, "jsonc", PRE, GROUP)
    assert new == CLAUDE_SETTINGS.replace(
        b"// mine\n",
        b'// mine\n      {\n        "matcher": "^(?:Bash)$",\n        "hooks": [\n          {\n'
        b'            "type": "command",\n            "command": "/w/a.py",\n'
        b'            "timeout": 35\n          }\n        ]\n      },\n',
    )


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (b"", b'{\n  "hooks": {\n    "PreToolUse": [\n      1\n    ]\n  }\n}\n'),
        (b'{"a": 1}', b'{"a": 1, "hooks": {"PreToolUse": [1]}}'),
        (b'{"hooks": {"PreToolUse": []}}', b'{"hooks": {"PreToolUse": [1]}}'),
        (b'{"hooks":{"PreToolUse":[0]}}', b'{"hooks":{"PreToolUse":[0,1]}}'),
        (
            b'{\r\n\t"hooks": {\r\n\t\t"PreToolUse": []\r\n\t}\r\n}\r\n',
            b'{\r\n\t"hooks": {\r\n\t\t"PreToolUse": [\r\n\t\t\t1\r\n\t\t]\r\n\t}\r\n}\r\n',
        ),
        (
            b'{\n    "hooks": {\n        "PreToolUse": [\n            0\n        ]\n    }\n}',
            b'{\n    "hooks": {\n        "PreToolUse": [\n            0,\n            1\n'
            b"        ]\n    }\n}",
        ),
    ],
    ids=["empty-file", "inline-no-hooks", "inline-empty-array", "tight", "crlf-tabs", "indent-4"],
)
def test_json_append_follows_the_document_style_and_undoes_exactly(
    before: bytes, after: bytes
) -> None:
    assert _round_trip(before, "json", PRE, 1) == after


def test_removing_an_element_keeps_one_appended_after_it() -> None:
    first, info = append_element(CLAUDE_SETTINGS, "jsonc", PRE, GROUP)
    second, _ = append_element(first, "jsonc", PRE, {"other": True})
    left = remove_element(second, "jsonc", PRE, equal_to(GROUP), info)
    assert read_array(left, "jsonc", PRE)[1:] == [{"other": True}]
    assert read_array(left, "jsonc", PRE)[0]["matcher"] == "Edit"


def test_a_created_array_stays_while_another_element_is_in_it() -> None:
    first, info = append_element(b'{"a": 1}', "json", PRE, 1)
    assert info.mode == "array"
    second, _ = append_element(first, "json", PRE, 2)
    assert remove_element(second, "json", PRE, equal_to(1), info) == (
        b'{"a": 1, "hooks": {"PreToolUse": [2]}}'
    )


def test_find_element_and_removal_by_index() -> None:
    new, info = append_element(CLAUDE_SETTINGS, "jsonc", PRE, GROUP)
    assert find_element(new, "jsonc", PRE, equal_to(GROUP)) == 1
    assert find_element(new, "jsonc", ("hooks", "Stop"), equal_to(GROUP)) is None
    assert remove_element(new, "jsonc", PRE, 1, info) == CLAUDE_SETTINGS


def test_removing_an_element_that_is_gone_changes_nothing() -> None:
    _, info = append_element(CLAUDE_SETTINGS, "jsonc", PRE, GROUP)
    assert remove_element(CLAUDE_SETTINGS, "jsonc", PRE, equal_to(GROUP), info) == CLAUDE_SETTINGS
    assert remove_element(CLAUDE_SETTINGS, "jsonc", PRE, 7, info) == CLAUDE_SETTINGS


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (b'{"hooks": {"PreToolUse": {}}}', NotAnArray),
        (b'{"hooks": 3}', KeyPathBlocked),
        (b'{"hooks": ', ConfigUnreadable),
    ],
)
def test_json_refusals(data: bytes, error: type[Exception]) -> None:
    with pytest.raises(error):
        append_element(data, "json", PRE, GROUP)


KIMI_CONFIG = b"""# kimi
default_model = "k2"

[[hooks]]
event = "Stop"
command = "notify-send done"
"""


def test_toml_appends_one_hooks_table_at_the_end_and_cuts_it_again() -> None:
    new = _round_trip(KIMI_CONFIG, "toml", ("hooks",), KIMI)
    assert new == KIMI_CONFIG + (
        b'\n[[hooks]]\nevent = "PreToolUse"\nmatcher = "^(?:Bash)$"\ncommand = "/w/a.py"\n'
        b"timeout = 35\n"
    )


@pytest.mark.parametrize("data", [b"", b"x = 1", b"x = 1\r\n", b"[t]\r\ny = 2"])
def test_toml_append_round_trips_any_ending(data: bytes) -> None:
    new = _round_trip(data, "toml", ("hooks",), KIMI)
    assert read_array(new, "toml", ("hooks",)) == [KIMI]


def test_toml_removal_after_reformatting_takes_out_only_that_table() -> None:
    new, info = append_element(KIMI_CONFIG, "toml", ("hooks",), KIMI)
    edited = new.replace(b'command = "/w/a.py"', b'command   =   "/w/a.py"')
    left = remove_element(edited, "toml", ("hooks",), equal_to(KIMI), info)
    assert read_array(left, "toml", ("hooks",)) == [
        {"event": "Stop", "command": "notify-send done"}
    ]


@pytest.mark.parametrize(
    ("data", "value", "error"),
    [
        (b'hooks = [{event = "Stop"}]\n', KIMI, UnsafeEdit),
        (b"[hooks]\nx = 1\n", KIMI, NotAnArray),
        (b"", {"a": None}, TypeError),
        (b"", [1], TypeError),
    ],
)
def test_toml_refusals(data: bytes, value: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        append_element(data, "toml", ("hooks",), value)


@pytest.mark.parametrize(
    "bad",
    [
        {"mode": "array", "entry": None, "lead": "", "tail": ""},
        {"mode": "element", "entry": AddInfo("member", 0).to_json(), "lead": "", "tail": ""},
        {"mode": "nope", "entry": None, "lead": "", "tail": ""},
        {"mode": "table", "entry": None, "lead": "x", "tail": ""},
        {"mode": "table"},
    ],
)
def test_element_info_rejects_other_shapes(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        ElementInfo.from_json(bad)


def test_an_info_of_another_format_is_refused() -> None:
    _, info = append_element(b"", "toml", ("hooks",), KIMI)
    with pytest.raises(ValueError, match="does not fit"):
        remove_element(b"{}", "json", PRE, 0, info)


def test_appending_parses_the_document_and_the_result_once_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 8: no repeated parsing of the same config text within one command."""
    parsed: list[str] = []
    real = config_json.parse

    def counting(text: str, *, jsonc: bool, base: object = None) -> object:
        parsed.append(text)
        return real(text, jsonc=jsonc, base=base)  # type: ignore[arg-type]

    monkeypatch.setattr(config_json, "parse", counting)
    monkeypatch.setattr(config_entry, "_PARSED", {})
    data = b'{\n  "hooks": {\n    "PreToolUse": [\n      {"matcher": "Bash"}\n    ]\n  }\n}\n'
    result, info = append_element(data, "json", ("hooks", "PreToolUse"), {"matcher": "Edit"})
    assert sorted(parsed) == sorted([data.decode(), result.decode()])  # each text once
    assert remove_element(result, "json", ("hooks", "PreToolUse"), 1, info) == data
    assert len(parsed) == 2  # the removal re-used both parses
