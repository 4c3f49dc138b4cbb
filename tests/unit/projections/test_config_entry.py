"""Config entries in real harness files: the diff is the owned entry and nothing else."""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

import pytest
import tomlkit

from tests.helpers import json_levels
from uze.projections import config_entry, config_json, json_spans, json_text
from uze.projections.config_entry import (
    MISSING,
    AddInfo,
    ConfigUnreadable,
    EntryExists,
    EntryMissing,
    KeyPathBlocked,
    UnsafeEdit,
    add_entry,
    read_entry,
    remove_entry,
    replace_entry,
)

DOCS = {"command": "npx", "args": ["-y", "@acme/docs-mcp"], "env": {"DOCS_TOKEN": "${DOCS_TOKEN}"}}

CLAUDE_MCP_JSON = b"""{
    "mcpServers": {
        "github": {
            "type": "http",
            "url": "https://api.githubcopilot.com/mcp/",
            "headers": {"Authorization": "Bearer ghp_SECRET"}
        },
        "fs": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]
        }
    }
}
"""

CLAUDE_USER_JSON = b"""{
  "numStartups": 42,
  "theme": "dark",
  "oauthAccount": {"emailAddress": "me@example.com", "accessToken": "sk-SECRET"},
  "projects": {
    "/home/me/other": {
      "allowedTools": [],
      "mcpServers": {"old": {"command": "old-server"}},
      "hasTrustDialogAccepted": true
    },
    "/home/me/proj": {
      "allowedTools": ["Bash(git status)"],
      "mcpServers": {},
      "history": [{"display": "fix the tests", "pastedContents": {}}]
    }
  },
  "mcpServers": {}
}"""

OPENCODE_JSONC = b"""{
  "$schema": "https://opencode.ai/config.json",
  // servers we share with the team
  "mcp": {
    "jira": {
      "type": "remote",
      "url": "https://jira.example.com/mcp", // staging
      "enabled": true,
    },
    /* disabled for now:
    "slack": {"type": "local", "command": ["slack-mcp"]},
    */
  },
  "theme": "opencode", // last key
}
"""

GEMINI_SETTINGS = (
    b'{\r\n\t"theme": "GitHub",\r\n\t"mcpServers": {\r\n\t\t"weather": {\r\n'
    b'\t\t\t"command": "weather-mcp",\r\n\t\t\t"timeout": 30000\r\n\t\t}\r\n\t},\r\n'
    b'\t"general": {"vimMode": true}\r\n}\r\n'
)

CODEX_CONFIG = b"""# Codex settings, kept by hand
model = "gpt-5-codex"   # the default
approval_policy = "on-request"

[projects."/home/me/proj"]
trust_level = "trusted"

[mcp_servers.github]
command = "github-mcp"
env = { GITHUB_TOKEN = "ghp_SECRET" }  # inline table

[mcp_servers.github.tools]
allow = ["issues"]


# a comment after odd spacing
[tui]
notifications   =   true
"""

CODEX_INLINE = b"""model = "o3"
mcp_servers = { github = { command = "github-mcp" } }  # all in one line

[tui]
notifications = true
"""


def _parse(data: bytes, fmt: str) -> Any:
    if fmt == "toml":
        return tomllib.loads(data.decode())
    return json.loads(data) if fmt == "json" else config_json.load(data.decode(), jsonc=True)


def _without(plain: Any, key_path: tuple[str, ...]) -> Any:
    parent = plain
    for key in key_path[:-1]:
        parent = parent[key]
    del parent[key_path[-1]]
    return plain


def _parse_or_empty(data: bytes, fmt: str) -> Any:
    return _parse(data, fmt) if data.strip() else {}


def _foreign(plain: Any, key_path: tuple[str, ...], first_new_key: int) -> Any:
    """`plain` without the entry and without the containers uze created for it, if empty."""
    chain = [plain]
    for key in key_path[:-1]:
        chain.append(chain[-1][key])
    del chain[-1][key_path[-1]]
    for depth in range(len(key_path) - 1, first_new_key, -1):
        if not chain[depth]:
            del chain[depth - 1][key_path[depth - 1]]
    return plain


def _round_trip(data: bytes, fmt: Any, key_path: tuple[str, ...], value: Any) -> bytes:
    """Add, check the result reads back and keeps every foreign key, remove, check the bytes."""
    new, info = add_entry(data, fmt, key_path, value)
    assert read_entry(new, fmt, key_path) == value
    assert _foreign(_parse(new, fmt), key_path, info.first_new_key) == _parse_or_empty(data, fmt)
    assert remove_entry(new, fmt, key_path, AddInfo.from_json(info.to_json())) == data
    return new


def test_claude_mcp_json_gets_the_entry_last_in_its_own_four_space_style() -> None:
    new = _round_trip(CLAUDE_MCP_JSON, "json", ("mcpServers", "docs"), DOCS)
    expected = CLAUDE_MCP_JSON.replace(
        b'"."]\n        }\n',
        b'"."]\n        },\n'
        b'        "docs": {\n'
        b'            "command": "npx",\n'
        b'            "args": [\n'
        b'                "-y",\n'
        b'                "@acme/docs-mcp"\n'
        b"            ],\n"
        b'            "env": {\n'
        b'                "DOCS_TOKEN": "${DOCS_TOKEN}"\n'
        b"            }\n"
        b"        }\n",
    )
    assert new == expected


@pytest.mark.parametrize(
    ("key_path", "first_new_key"),
    [
        (("projects", "/home/me/proj", "mcpServers", "docs"), 3),
        (("projects", "/home/me/new", "mcpServers", "docs"), 1),
        (("mcpServers", "docs"), 1),
    ],
)
def test_claude_user_config_gets_the_entry_under_its_project(
    key_path: tuple[str, ...], first_new_key: int
) -> None:
    new = _round_trip(CLAUDE_USER_JSON, "json", key_path, DOCS)
    _new, info = add_entry(CLAUDE_USER_JSON, "json", key_path, DOCS)
    assert info.first_new_key == first_new_key
    assert b'"accessToken": "sk-SECRET"' in new
    assert not new.endswith(b"\n")


def test_an_empty_object_opens_onto_its_own_lines_and_closes_back() -> None:
    new, info = add_entry(CLAUDE_USER_JSON, "json", ("mcpServers", "docs"), {"url": "u"})
    assert new.endswith(b'  "mcpServers": {\n    "docs": {\n      "url": "u"\n    }\n  }\n}')
    assert info.tail == "\n  "
    assert remove_entry(new, "json", ("mcpServers", "docs"), info) == CLAUDE_USER_JSON


def test_opencode_jsonc_keeps_comments_and_trailing_commas() -> None:
    new = _round_trip(OPENCODE_JSONC, "jsonc", ("mcp", "docs"), {"type": "local"})
    assert new == OPENCODE_JSONC.replace(
        b"    */\n  },\n", b'    */\n    "docs": {\n      "type": "local"\n    },\n  },\n'
    )
    assert new.count(b"//") == OPENCODE_JSONC.count(b"//")
    assert b"/* disabled for now:" in new


def test_jsonc_member_after_a_line_comment_gets_its_comma_before_the_comment() -> None:
    doc = b'{\n  "a": 1 // about a\n}\n'
    new = _round_trip(doc, "jsonc", ("b",), 2)
    assert new == b'{\n  "a": 1, // about a\n  "b": 2\n}\n'


def test_jsonc_new_top_level_key_lands_after_the_last_comment() -> None:
    new = _round_trip(OPENCODE_JSONC, "jsonc", ("lsp",), {"go": {"disabled": True}})
    assert new.endswith(
        b'  "theme": "opencode", // last key\n  "lsp": {\n'
        b'    "go": {\n      "disabled": true\n    }\n  },\n}\n'
    )


def test_gemini_settings_keep_tabs_and_crlf() -> None:
    new = _round_trip(GEMINI_SETTINGS, "json", ("mcpServers", "docs"), DOCS)
    assert b"\n" not in new.replace(b"\r\n", b"")
    assert (
        b'\r\n\t\t"docs": {\r\n\t\t\t"command": "npx",\r\n\t\t\t"args": [\r\n\t\t\t\t"-y",' in new
    )


def test_codex_config_gets_tables_appended_and_everything_else_untouched() -> None:
    new = _round_trip(CODEX_CONFIG, "toml", ("mcp_servers", "docs"), DOCS)
    assert new == CODEX_CONFIG + (
        b'\n[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y", "@acme/docs-mcp"]\n\n'
        b'[mcp_servers.docs.env]\nDOCS_TOKEN = "${DOCS_TOKEN}"\n'
    )


@pytest.mark.parametrize("ending", [b"", b"\n", b"\n\n"])
def test_codex_config_without_or_with_final_newlines_comes_back_exactly(ending: bytes) -> None:
    doc = CODEX_CONFIG.rstrip(b"\n") + ending
    new = _round_trip(doc, "toml", ("mcp_servers", "docs"), DOCS)
    assert b"notifications   =   true\n\n[mcp_servers.docs]" in new


def test_codex_config_with_crlf_stays_crlf() -> None:
    doc = CODEX_CONFIG.replace(b"\n", b"\r\n")
    new = _round_trip(doc, "toml", ("mcp_servers", "docs"), DOCS)
    assert b"\n" not in new.replace(b"\r\n", b"")


def test_codex_inline_mcp_table_is_extended_in_place() -> None:
    new = _round_trip(CODEX_INLINE, "toml", ("mcp_servers", "docs"), {"command": "docs"})
    assert new.startswith(
        b'model = "o3"\nmcp_servers = { github = { command = "github-mcp" }, '
        b'docs = {command = "docs"} }  # all in one line\n'
    )
    assert new.endswith(b"[tui]\nnotifications = true\n")


@pytest.mark.parametrize(
    ("key_path", "value"),
    [
        (("projects", "/home/me/new", "mcp_servers", "docs"), DOCS),
        (("model_reasoning_effort",), "high"),
        (("tui", "theme"), "dark"),
        (("features", "web_search"), True),
        (("mcp_servers", "docs"), {}),
        (("mcp_servers", "docs"), {"tools": [{"name": "a"}, {"name": "b"}], "n": 1}),
    ],
)
def test_codex_config_takes_any_entry_and_gives_it_back(
    key_path: tuple[str, ...], value: object
) -> None:
    _round_trip(CODEX_CONFIG, "toml", key_path, value)


@pytest.mark.parametrize("fmt", ["json", "jsonc", "toml"])
def test_a_missing_file_gets_a_fresh_document_and_loses_it_again(fmt: Any) -> None:
    key_path = ("mcp_servers" if fmt == "toml" else "mcpServers", "docs")
    new, info = add_entry(b"", fmt, key_path, DOCS)
    assert _parse(new, fmt) == {key_path[0]: {"docs": DOCS}}
    assert new.endswith(b"\n")
    assert remove_entry(new, fmt, key_path, info) == b""
    assert remove_entry(new.rstrip(b"\n"), fmt, key_path, info) == b""


def test_a_comment_only_jsonc_file_keeps_its_comment() -> None:
    doc = b"// settings go here"
    new = _round_trip(doc, "jsonc", ("mcp", "docs"), {"type": "local"})
    assert new.startswith(doc + b"\n{\n")


@pytest.mark.parametrize(
    ("doc", "fmt", "key_path"),
    [
        (CLAUDE_MCP_JSON, "json", ("mcpServers", "github")),
        (CLAUDE_USER_JSON, "json", ("projects", "/home/me/other", "mcpServers", "old")),
        (OPENCODE_JSONC, "jsonc", ("mcp", "jira")),
        (CODEX_CONFIG, "toml", ("mcp_servers", "github")),
        (CODEX_INLINE, "toml", ("mcp_servers", "github")),
    ],
)
def test_an_existing_entry_is_never_overwritten(doc: bytes, fmt: Any, key_path: Any) -> None:
    with pytest.raises(EntryExists, match="already exists"):
        add_entry(doc, fmt, key_path, DOCS)


@pytest.mark.parametrize(
    ("doc", "fmt", "key_path", "where"),
    [
        (b'{"mcpServers": []}', "json", ("mcpServers", "docs"), "mcpServers is list"),
        (b"[]", "json", ("mcpServers", "docs"), "the top level is list"),
        (b'mcp_servers = "x"\n', "toml", ("mcp_servers", "docs"), "mcp_servers is str"),
        (b"[[mcp_servers]]\na = 1\n", "toml", ("mcp_servers", "docs"), "mcp_servers is list"),
    ],
)
def test_a_key_path_through_a_plain_value_is_blocked(
    doc: bytes, fmt: Any, key_path: Any, where: str
) -> None:
    with pytest.raises(KeyPathBlocked, match=where):
        add_entry(doc, fmt, key_path, DOCS)


@pytest.mark.parametrize(
    ("doc", "fmt", "where"),
    [
        (b'{\n  "a": 1\n  "b": 2\n}\n', "json", "3:3: expected ',' or '}'"),
        (b'{\n  "a": 1, // no\n}', "json", "2:11: comments are not allowed"),
        (b'{\n  "a": 1,\n}', "json", "2:9: trailing comma"),
        (b'{\n  "a": /* open\n}', "jsonc", "2:8: unterminated /\\* comment"),
        (b'{"a": "x', "jsonc", "1:7: unterminated string"),
        (b'{"a": 1}}', "json", "1:9: unexpected '}' after the end"),
        (b"{\xff}", "json", "1:2: not valid UTF-8"),
        (b"a = 1\n[t\n", "toml", "2:3: expected ']'"),
        (b"a = 1\na = 2\n", "toml", "2:6: cannot overwrite"),
        (b'a = "open', "toml", "1:10: "),
    ],
)
def test_a_file_that_does_not_parse_is_reported_with_line_and_column(
    doc: bytes, fmt: Any, where: str
) -> None:
    for call in (
        lambda: read_entry(doc, fmt, ("x",)),
        lambda: add_entry(doc, fmt, ("x",), {}),
        lambda: replace_entry(doc, fmt, ("x",), {}),
        lambda: remove_entry(doc, fmt, ("x",), AddInfo("tables" if fmt == "toml" else "member", 0)),
    ):
        with pytest.raises(ConfigUnreadable, match=where):
            call()


@pytest.mark.parametrize(
    ("doc", "fmt", "key_path"),
    [
        (CLAUDE_MCP_JSON, "json", ("mcpServers", "docs")),
        (OPENCODE_JSONC, "jsonc", ("mcp", "docs")),
        (CODEX_CONFIG, "toml", ("mcp_servers", "docs")),
    ],
)
def test_a_user_edit_to_the_entry_shows_through_read_entry(
    doc: bytes, fmt: Any, key_path: Any
) -> None:
    new, info = add_entry(doc, fmt, key_path, DOCS)
    edited = new.replace(b"@acme/docs-mcp", b"@acme/docs-mcp@2")
    assert read_entry(edited, fmt, key_path) == {**DOCS, "args": ["-y", "@acme/docs-mcp@2"]}
    assert remove_entry(edited, fmt, key_path, info) == doc


@pytest.mark.parametrize("indent", [None, 0, 1, 8, "\t"])
def test_reformatting_the_whole_json_file_is_not_drift(indent: Any) -> None:
    new, _info = add_entry(
        CLAUDE_USER_JSON, "json", ("projects", "/home/me/proj", "mcpServers", "docs"), DOCS
    )
    reformatted = json.dumps(json.loads(new), indent=indent, sort_keys=True).encode()
    assert (
        read_entry(reformatted, "json", ("projects", "/home/me/proj", "mcpServers", "docs")) == DOCS
    )


def test_reformatting_the_whole_toml_file_is_not_drift() -> None:
    new, info = add_entry(CODEX_CONFIG, "toml", ("mcp_servers", "docs"), DOCS)
    reformatted = tomlkit.dumps(tomllib.loads(new.decode())).encode()
    assert reformatted != new
    assert read_entry(reformatted, "toml", ("mcp_servers", "docs")) == DOCS
    removed = remove_entry(reformatted, "toml", ("mcp_servers", "docs"), info)
    assert tomllib.loads(removed.decode()) == tomllib.loads(CODEX_CONFIG.decode())


def test_a_sibling_the_user_adds_keeps_the_json_container_uze_created() -> None:
    key_path = ("projects", "/home/me/new", "mcpServers", "docs")
    new, info = add_entry(CLAUDE_USER_JSON, "json", key_path, DOCS)
    plain = json.loads(new)
    plain["projects"]["/home/me/new"]["allowedTools"] = ["Read"]
    edited = json.dumps(plain, indent=2).encode()
    removed = json.loads(remove_entry(edited, "json", key_path, info))
    assert removed["projects"]["/home/me/new"] == {"allowedTools": ["Read"]}
    assert (
        removed["projects"]["/home/me/proj"]
        == json.loads(CLAUDE_USER_JSON)["projects"]["/home/me/proj"]
    )


def test_a_sibling_the_user_adds_in_place_keeps_the_json_container_uze_created() -> None:
    new, info = add_entry(b'{\n  "a": 1\n}\n', "json", ("mcpServers", "docs"), {"url": "u"})
    edited = new.replace(b'"url": "u"\n    }\n', b'"url": "u"\n    },\n    "mine": {}\n')
    assert remove_entry(edited, "json", ("mcpServers", "docs"), info) == (
        b'{\n  "a": 1,\n  "mcpServers": {\n    "mine": {}\n  }\n}\n'
    )


def test_a_sibling_the_user_adds_keeps_the_toml_table_uze_created() -> None:
    new, info = add_entry(b'model = "o3"\n', "toml", ("mcp_servers", "docs"), {"command": "d"})
    edited = new + b'\n[mcp_servers.mine]\ncommand = "m"\n'
    removed = remove_entry(edited, "toml", ("mcp_servers", "docs"), info)
    assert removed == b'model = "o3"\n\n[mcp_servers.mine]\ncommand = "m"\n'


def test_a_user_table_after_the_entry_stays_when_the_entry_goes() -> None:
    new, info = add_entry(CODEX_CONFIG, "toml", ("mcp_servers", "docs"), DOCS)
    edited = new + b'\n[profiles.fast]\nmodel = "o4-mini"\n'
    removed = remove_entry(edited, "toml", ("mcp_servers", "docs"), info)
    assert removed == CODEX_CONFIG + b'\n[profiles.fast]\nmodel = "o4-mini"\n'


def test_a_json_member_the_user_moved_is_still_removed_with_its_comma() -> None:
    new, info = add_entry(b'{"a": 1}', "json", ("docs",), 2)
    assert new == b'{"a": 1, "docs": 2}'
    assert remove_entry(b'{"docs": 2, "a": 1}', "json", ("docs",), info) == b'{"a": 1}'


@pytest.mark.parametrize(
    ("doc", "fmt", "key_path"),
    [
        (CLAUDE_MCP_JSON, "json", ("mcpServers", "docs")),
        (CLAUDE_MCP_JSON.replace(b"    ", b""), "json", ("mcpServers", "docs")),
        (b'{"mcpServers": {"a": 1}}', "json", ("mcpServers", "docs")),
        (OPENCODE_JSONC, "jsonc", ("mcp", "docs")),
        (CODEX_CONFIG, "toml", ("mcp_servers", "docs")),
        (CODEX_INLINE, "toml", ("mcp_servers", "docs")),
        (CODEX_CONFIG, "toml", ("tui", "theme")),
    ],
)
def test_replace_changes_the_value_in_place_and_remove_still_restores(
    doc: bytes, fmt: Any, key_path: Any
) -> None:
    first = {"command": "npx", "args": ["a"]} if key_path[-1] == "docs" else "light"
    second = (
        {"url": "https://docs.example.com/mcp", "env": {"X": "y"}}
        if key_path[-1] == "docs"
        else "dark"
    )
    new, info = add_entry(doc, fmt, key_path, first)
    replaced = replace_entry(new, fmt, key_path, second)
    assert read_entry(replaced, fmt, key_path) == second
    assert _without(_parse(replaced, fmt), key_path) == _without(_parse(new, fmt), key_path)
    assert remove_entry(replaced, fmt, key_path, info) == doc


def test_replace_of_a_missing_entry_raises() -> None:
    with pytest.raises(EntryMissing, match=r"no entry at mcpServers\.docs"):
        replace_entry(CLAUDE_MCP_JSON, "json", ("mcpServers", "docs"), DOCS)


def test_replace_of_a_reformatted_toml_entry_goes_through_tomlkit() -> None:
    doc = b'[mcp_servers.docs]\ncommand   =  "x"\n\n[other]\na = 1\n'
    replaced = replace_entry(doc, "toml", ("mcp_servers", "docs"), {"command": "y"})
    assert tomllib.loads(replaced.decode()) == {
        "mcp_servers": {"docs": {"command": "y"}},
        "other": {"a": 1},
    }


@pytest.mark.parametrize("fmt", ["json", "jsonc", "toml"])
def test_removing_an_entry_that_is_already_gone_changes_nothing(fmt: Any) -> None:
    doc = {"json": CLAUDE_MCP_JSON, "jsonc": OPENCODE_JSONC, "toml": CODEX_CONFIG}[fmt]
    info = AddInfo("tables" if fmt == "toml" else "member", 1)
    assert remove_entry(doc, fmt, ("mcp_servers", "docs"), info) == doc


def test_read_entry_gives_plain_values_or_missing() -> None:
    assert read_entry(CODEX_CONFIG, "toml", ("mcp_servers", "github", "env")) == {
        "GITHUB_TOKEN": "ghp_SECRET"
    }
    assert read_entry(CODEX_CONFIG, "toml", ("model", "x")) is MISSING
    assert read_entry(b"", "json", ("mcpServers",)) is MISSING
    assert read_entry(b'{"a": null}', "json", ("a",)) is None
    assert read_entry(OPENCODE_JSONC, "jsonc", ("mcp", "jira", "enabled")) is True


def test_add_info_round_trips_through_json_and_rejects_other_shapes() -> None:
    info = AddInfo("member", 2, "", "\r\n\t")
    assert AddInfo.from_json(json.loads(json.dumps(info.to_json()))) == info
    for bad in (
        {"mode": "member", "first_new_key": 0, "lead": ""},
        {"mode": "zip", "first_new_key": 0, "lead": "", "tail": ""},
        {"mode": "member", "first_new_key": -1, "lead": "", "tail": ""},
        {"mode": "member", "first_new_key": True, "lead": "", "tail": ""},
        {"mode": "member", "first_new_key": 0, "lead": "x", "tail": ""},
        {"mode": "member", "first_new_key": 0, "lead": "", "tail": 3},
        ["member"],
    ):
        with pytest.raises(ValueError):
            AddInfo.from_json(bad)  # type: ignore[arg-type]


def test_an_add_record_of_another_format_is_refused() -> None:
    with pytest.raises(ValueError, match="does not fit"):
        remove_entry(CODEX_CONFIG, "toml", ("mcp_servers", "github"), AddInfo("member", 1))


@pytest.mark.parametrize(("fmt", "key_path"), [("yaml", ("a",)), ("json", ()), ("json", ("a", 1))])
def test_unknown_formats_and_bad_key_paths_are_refused(fmt: Any, key_path: Any) -> None:
    with pytest.raises(ValueError):
        read_entry(b"{}", fmt, key_path)


def test_toml_cannot_hold_null() -> None:
    with pytest.raises(TypeError, match="null"):
        add_entry(CODEX_CONFIG, "toml", ("mcp_servers", "docs"), {"env": {"A": None}})
    with pytest.raises(TypeError, match="null"):
        replace_entry(CODEX_CONFIG, "toml", ("mcp_servers", "github"), [1, None])


def test_json_cannot_hold_nan() -> None:
    with pytest.raises(ValueError):
        add_entry(b"{}", "json", ("a",), float("nan"))


def test_an_add_that_could_not_be_undone_exactly_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(config_json, "delete_member", lambda text, root, key_path, tail: text)
    with pytest.raises(UnsafeEdit, match=r"mcpServers\.docs"):
        add_entry(CLAUDE_MCP_JSON, "json", ("mcpServers", "docs"), DOCS)


def test_an_add_whose_result_no_longer_parses_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        config_json, "insert_member", lambda text, root, key_path, value: (text + "}", "")
    )
    with pytest.raises(UnsafeEdit):
        add_entry(CLAUDE_MCP_JSON, "json", ("mcpServers", "docs"), DOCS)


def test_key_paths_print_quoted_where_needed() -> None:
    assert config_entry.format_key_path(("projects", "/a b", "mcp_servers", "x")) == (
        'projects."/a b".mcp_servers.x'
    )


@pytest.mark.parametrize(
    ("doc", "where"),
    [
        (b'{"a": }', "1:7: expected a value, found '}'"),
        (b"{1: 2}", "1:2: expected a string key or '}', found '1'"),
        (b'{"a" 1}', "1:6: expected ':' after an object key"),
        (b"[1 2]", "1:4: expected ',' or ']' after an array item"),
        (b"[" * 500, "1:402: values are nested too deeply"),
    ],
)
def test_json_syntax_errors_name_what_was_expected(doc: bytes, where: str) -> None:
    with pytest.raises(ConfigUnreadable, match=re.escape(where)):
        read_entry(doc, "json", ("a",))


def test_a_lone_surrogate_is_written_as_an_escape() -> None:
    new, info = add_entry(b"{}", "json", ("a",), "\ud800")
    assert b'"\\ud800"' in new
    assert read_entry(new, "json", ("a",)) == "\ud800"
    assert remove_entry(new, "json", ("a",), info) == b"{}"


def test_indentation_comes_from_the_first_member_on_a_clean_line() -> None:
    doc = b'{"x": 0,\n  /* c */ "a": {\n    "b": 1\n  }\n}\n'
    new = _round_trip(doc, "jsonc", ("a", "c"), {"d": 1})
    assert new.endswith(b'    "b": 1,\n    "c": {\n      "d": 1\n    }\n  }\n}\n')


def test_codex_inline_table_gets_a_nested_entry_created_inline() -> None:
    key_path = ("mcp_servers", "docs", "env")
    new = _round_trip(CODEX_INLINE, "toml", key_path, {"A": "1"})
    assert b'docs = {env = {A = "1"}} }' in new


@pytest.mark.parametrize(
    ("moved", "expected"),
    [
        (
            b'mcp_servers = { docs = {command = "docs"}, github = { command = "github-mcp" } }',
            b'mcp_servers = { github = { command = "github-mcp" } }',
        ),
        (
            b'mcp_servers = { github = { command = "github-mcp" },docs = {command = "docs"} }',
            b'mcp_servers = { github = { command = "github-mcp" } }',
        ),
    ],
)
def test_an_inline_entry_the_user_moved_is_still_cut_cleanly(moved: bytes, expected: bytes) -> None:
    new, info = add_entry(CODEX_INLINE, "toml", ("mcp_servers", "docs"), {"command": "docs"})
    edited = new.replace(new.splitlines()[1], moved)
    removed = remove_entry(edited, "toml", ("mcp_servers", "docs"), info)
    assert removed == CODEX_INLINE.replace(CODEX_INLINE.splitlines()[1], expected)


@pytest.mark.parametrize(
    ("doc", "key_path", "reformat"),
    [
        (CODEX_CONFIG, ("mcp_servers", "docs"), (b'command = "npx"', b'command="npx"')),
        (CODEX_INLINE, ("mcp_servers", "docs"), (b'{command = "npx"', b'{ command = "npx"')),
        (CODEX_CONFIG, ("tui", "theme"), (b'theme = "x"', b'theme="x"')),
    ],
)
def test_a_reformatted_toml_entry_is_removed_through_tomlkit(
    doc: bytes, key_path: tuple[str, ...], reformat: tuple[bytes, bytes]
) -> None:
    value = "x" if key_path[-1] == "theme" else {"command": "npx"}
    new, info = add_entry(doc, "toml", key_path, value)
    assert reformat[0] in new
    removed = remove_entry(new.replace(*reformat), "toml", key_path, info)
    assert tomllib.loads(removed.decode()) == tomllib.loads(doc.decode())


def test_a_document_tomlkit_cannot_edit_is_reported_like_any_unreadable_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(text: str) -> None:
        raise tomlkit.exceptions.ParseError(3, 4, "Something odd")

    monkeypatch.setattr(tomlkit, "parse", refuse)
    with pytest.raises(ConfigUnreadable, match="3:5: something odd"):
        add_entry(CODEX_CONFIG, "toml", ("tui", "theme"), "dark")


def test_json_edits_need_the_containers_they_name() -> None:
    root = config_json.parse("{}", jsonc=False)
    assert root is not None
    with pytest.raises(KeyError):
        config_json.insert_member("{}", root, ("a", "b"), 1)
    with pytest.raises(KeyError):
        config_json.replace_value("{}", root, ("a",), 1)


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        (b"a = 1\nb = 2\n", b"a = 1\n"),
        (b"a = 1\nb = 2", b"a = 1\n"),
        (b"t = {a = 1, b = 2}\n", b"t = {a = 1}\n"),
    ],
)
def test_a_toml_key_value_is_cut_with_its_separator(doc: bytes, expected: bytes) -> None:
    key_path = ("t", "b") if doc.startswith(b"t") else ("b",)
    assert remove_entry(doc, "toml", key_path, AddInfo("item", len(key_path) - 1)) == expected


@pytest.mark.parametrize("depth", [399, 400, 401, 402])
def test_deep_nesting_reads_as_config_json_reads_it(depth: int) -> None:
    """The C json reader agrees with config_json up to its nesting limit, and past it
    config_json's own error is reported (issue 8: many packages make many brackets)."""
    doc = b'{"a": ' + b"[" * (depth - 1) + b"1" + b"]" * (depth - 1) + b"}"
    if depth <= config_json.MAX_DEPTH:
        found = read_entry(doc, "json", ("a",))
        for _ in range(depth - 1):
            assert isinstance(found, list) and len(found) == 1
            found = found[0]
        assert found == 1
    else:
        with pytest.raises(ConfigUnreadable, match="values are nested too deeply"):
            read_entry(doc, "json", ("a",))


def test_a_wide_shallow_document_is_read_by_the_c_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = json.dumps({"hooks": [{"matcher": str(i), "hooks": [{"x": [i]}]} for i in range(500)],
                      "a": {"b": 1}}).encode()
    """More brackets than the nesting limit, five levels deep: a read walks the two top-level
    members and the C scanner reads each whole (ADR 0099: its depth is checked by string
    operations), not the 500 hook groups one by one."""
    assert doc.count(b"[") + doc.count(b"{") > config_json.MAX_DEPTH
    calls: list[int] = []
    member = json_spans._Parser.member
    monkeypatch.setattr(json_spans._Parser, "member",
                        lambda self, *args: calls.append(self.pos) or member(self, *args))

    assert read_entry(doc, "json", ("a", "b")) == 1
    assert len(calls) == 2


@pytest.mark.parametrize(
    ("text", "fmt", "found"),
    [
        ('{"a": "https://x/*y*/"}', "jsonc", False),
        ('{"a": "say \\"//\\" here"}', "jsonc", False),
        ('{\n  // note\n  "a": 1}', "jsonc", True),
        ('{"a": 1 /* note */}', "jsonc", True),
        ('a = "#1"\nb = \'#2\'\nc = """\n# 3\n"""\n', "toml", False),
        ('a = 1 # note\n', "toml", True),
    ],
)
def test_has_comment_sees_comments_outside_strings_only(text: str, fmt: str, found: bool) -> None:
    from uze.projections.config_entry import has_comment

    assert has_comment(text, fmt) is found  # type: ignore[arg-type]


@pytest.mark.parametrize(("text", "within"), [
    ("[" * 400 + "]" * 400, True), ("[" * 401 + "]" * 401, True), ("[" * 402 + "]" * 402, False),
    ("[" * 400 + "1" + "]" * 400, True), ("[" * 401 + "1" + "]" * 401, False),
    ('{"a": "[[[[", "b": [{"c": "x\\\\\\"]"}]}', True),
    ('[' + '"]]]",' * 500 + '{"a": [[]]}]', True),
])
def test_the_nesting_check_agrees_with_the_walk_of_every_value(text: str, within: bool) -> None:
    """ADR 0099: the depth of brackets by string operations (`json_text.nesting`) counts the
    levels of the value, strings and escapes aside; within the limit, no value is deeper than
    it (the walk agrees); past it the parser decides, reading the value or refusing it."""
    from uze.projections.config_entry import read_document
    from uze.projections.json_text import nesting

    value = json.loads(text)
    assert nesting(text) == json_levels(value)
    assert _walk_within(value) is within
    if nesting(text) <= config_json.MAX_DEPTH:
        assert within
    if within:
        assert read_document(text.encode(), "json") == value
    else:
        with pytest.raises(config_entry.ConfigUnreadable, match="nested too deeply"):
            read_document(text.encode(), "json")



def _walk_within(value: object) -> bool:
    pending = [(value, 0)]
    while pending:
        node, depth = pending.pop()
        children = list(node.values()) if isinstance(node, dict) else node \
            if isinstance(node, list) else []
        if children and depth >= config_json.MAX_DEPTH:
            return False
        pending.extend((child, depth + 1) for child in children)
    return True


def test_an_expansion_inside_a_checked_span_counts_no_brackets_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A container the C scanner read had its nesting checked at its depth (`decoded`): its
    members and items, read when an edit asks for them, lie inside it and are within the
    limit at their own depth, so the brackets are not counted again for each of them."""
    doc = json.dumps({"hooks": {"Pre": [{"m": str(i), "hooks": [{"x": [i]}]} for i in range(300)],
                                "Post": [{"m": str(i), "hooks": [[[i]]]} for i in range(300)]}})
    counted: list[tuple[int, int | None]] = []
    real = json_text.nesting
    monkeypatch.setattr(json_text, "nesting",
                        lambda text, start=0, end=None: counted.append((start, end))
                        or real(text, start, end))
    root = json_spans.parse(doc, jsonc=False)
    assert root is not None and len(counted) == 1  # the "hooks" value, read whole
    hooks = root.members[0].node
    assert [m.key for m in hooks.members] == ["Pre", "Post"]
    assert [len(m.node.items) for m in hooks.members] == [300, 300]
    assert len(counted) == 1
    assert hooks.members[1].node.items[7].value == {"m": "7", "hooks": [[[7]]]}
