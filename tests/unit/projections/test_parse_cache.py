"""ADR 0112: the parse of a big config text a command committed is kept for the next command by
the digest of the text, found for exactly that text only, and never for a TOML text that may
hold a date."""

from __future__ import annotations

import datetime
import json
import math
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from hypothesis import given, settings
from hypothesis import strategies as st

from uze.projections import (
    config_entry,
    config_kept,
    config_toml,
    json_kept,
    json_spans,
    parse_cache,
)
from uze.projections.config_common import AddInfo
from uze.projections.statcache import stat_key
from uze.transaction import Transaction


def _servers(count: int) -> str:
    return "".join(f'[mcp_servers.srv-{i:03d}]\ncommand = "npx"\nargs = ["-y", "pkg-{i}"]\n\n'
                   for i in range(count))


assert config_kept.keep  # registered: every commit keeps the parses of what it wrote


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Path]:
    parse_cache.use(tmp_path / "cache")
    yield tmp_path / "cache"
    parse_cache.use(None)


def _next_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget what this process remembers, as a new command starts; any tomllib parse fails."""
    config_toml._LOADED.clear()
    monkeypatch.setattr(config_toml, "_load", lambda text: pytest.fail("parsed again"))


def test_the_text_an_add_wrote_is_read_by_the_next_command_without_a_parse(
        cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = _servers(200).encode()
    value = {"command": "uvx", "args": ["docs-server"]}
    after, info = config_entry.add_entry(before, "toml", ("mcp_servers", "docs"), value)
    path = cache.parent / "config.toml"
    path.write_bytes(before)
    with Transaction(cache.parent / "journal") as tx:  # its commit keeps the parse
        tx.edit(path, after)

    _next_command(monkeypatch)
    assert config_entry.read_entry(after, "toml", ("mcp_servers", "docs")) == value
    assert config_toml.load(after.decode()) == tomllib.loads(after.decode())
    assert config_entry.remove_entry(after, "toml", ("mcp_servers", "docs"),
                                     AddInfo.from_json(info.to_json())) == before


def test_another_text_is_parsed(cache: Path) -> None:
    text = _servers(200)
    parse_cache.keep([("toml", text, tomllib.loads(text))])
    assert parse_cache.found("toml", text) == tomllib.loads(text)
    assert parse_cache.found("toml", text + "\n") is None
    assert parse_cache.found("toml", text.replace("pkg-7\"", "pkg-8\"")) is None
    assert parse_cache.found("json", text) is None
    assert parse_cache.found("toml", text) == tomllib.loads(text)


@pytest.mark.parametrize("extra", ["when = 1979-05-27T07:32:00Z\n", "day = 1979-05-27\n",
                                   "at = 07:32:00\n", 'note = "12:30 is lunch"\n'])
def test_a_text_that_may_hold_a_date_or_time_is_not_kept(cache: Path, extra: str) -> None:
    text = extra + _servers(200)
    parse_cache.keep([("toml", text, tomllib.loads(text))])
    assert parse_cache.found("toml", text) is None
    assert not (cache / "parses").exists()


def test_a_small_text_and_a_process_without_a_folder_keep_nothing(tmp_path: Path) -> None:
    parse_cache.use(None)
    big = _servers(200)
    parse_cache.keep([("toml", big, tomllib.loads(big))])
    assert parse_cache.found("toml", big) is None
    parse_cache.use(tmp_path / "cache")
    small = _servers(2)
    parse_cache.keep([("toml", small, tomllib.loads(small))])
    assert parse_cache.found("toml", small) is None and not (tmp_path / "cache").exists()
    parse_cache.use(None)


@pytest.mark.parametrize("damage", [lambda b: b"", lambda b: b[:-1],
                                    lambda b: b[:40] + b"x" + b[41:], lambda b: b[:32] + b"\x90"])
def test_a_damaged_file_reads_as_absent_until_the_next_keep_writes_it_again(
    cache: Path, damage: Any
) -> None:
    text = _servers(200)
    parse_cache.keep([("toml", text, tomllib.loads(text))])
    [kept] = (cache / "parses").iterdir()
    kept.write_bytes(damage(kept.read_bytes()))
    before = kept.stat()
    assert parse_cache.found("toml", text) is None
    assert stat_key(kept.stat()) == stat_key(before)  # reading writes nothing
    parse_cache.keep([("toml", text, tomllib.loads(text))])  # the next keep writes it again
    assert parse_cache.found("toml", text) == tomllib.loads(text)


def test_only_the_newest_texts_are_kept(cache: Path) -> None:
    texts = [_servers(200 + i) for i in range(parse_cache._KEPT + 2)]
    parse_cache.keep([("toml", text, tomllib.loads(text)) for text in texts[:3]])
    for text in texts[3:]:
        parse_cache.keep([("toml", text, tomllib.loads(text))])
    parse_cache.use(cache)
    assert [parse_cache.found("toml", text) is not None for text in texts] \
        == [False, False] + [True] * parse_cache._KEPT


_plain = st.recursive(
    st.text(max_size=12) | st.integers(-2**63, 2**63 - 1) | st.booleans()
    | st.floats(allow_nan=True),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) \
            and all(_same(a[key], b[key]) for key in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and a == b


@settings(max_examples=150)
@given(st.dictionaries(st.text(max_size=8), _plain, max_size=6))
def test_every_value_without_a_date_comes_back_as_it_was_kept(
        tmp_path_factory: pytest.TempPathFactory, value: dict[str, Any]) -> None:
    parse_cache.use(tmp_path_factory.mktemp("cache"))
    text = "x" * parse_cache.SMALLEST
    parse_cache.keep([("toml", text, value)])
    assert _same(parse_cache.found("toml", text), value)
    parse_cache.use(None)


@given(st.datetimes() | st.datetimes(timezones=st.timezones()) | st.dates() | st.times())
def test_every_toml_date_or_time_holds_what_the_check_looks_for(
        moment: datetime.datetime | datetime.date | datetime.time) -> None:
    text = tomlkit.dumps({"a": moment})
    assert tomllib.loads(text)["a"] is not None
    assert parse_cache._DATES.search(text)


def _settings(count: int) -> bytes:
    hooks = [{"matcher": "Bash", "hooks": [{"type": "command", "command": f"run {i} \\\"x\\\""}]}
             for i in range(count)]
    servers = {f"srv-{i:03d}": {"command": "npx", "args": ["-y", f"pkg-{i}"]} for i in range(count)}
    return json.dumps({"mcpServers": servers, "hooks": {"PreToolUse": hooks}}, indent=2).encode()


@pytest.mark.parametrize("fmt", ["json", "jsonc"])
def test_a_json_text_a_command_committed_is_read_by_the_next_without_a_parse(
        cache: Path, monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    """The spans the install's edits parsed are kept at commit; the next command reads, adds
    and cuts with them (no span parse at all) and writes the very bytes it would have."""
    before = _settings(150)
    value = {"command": "uvx", "args": ["docs"]}
    key_path = ("mcpServers", "docs")
    after, info = config_entry.add_entry(before, fmt, key_path, value)  # type: ignore[arg-type]
    more, _ = config_entry.add_entry(after, fmt, ("mcpServers", "more"), 1)  # type: ignore[arg-type]
    path = cache.parent / "settings.json"
    path.write_bytes(before)
    with Transaction(cache.parent / "journal") as tx:
        tx.edit(path, after)

    config_entry._PARSED.clear()
    config_entry._DOCUMENTS.clear()
    members: list[int] = []  # the members the parser reads (an expansion: every one)
    real = json_spans._Parser.member
    monkeypatch.setattr(json_spans._Parser, "member",
                        lambda self, *a, **k: members.append(self.pos) or real(self, *a, **k))
    assert config_entry.read_entry(after, fmt, key_path) == value  # type: ignore[arg-type]
    assert config_entry.add_entry(after, fmt, ("mcpServers", "more"), 1)[0] == more  # type: ignore[arg-type]
    assert config_entry.remove_entry(after, fmt, key_path, info) == before  # type: ignore[arg-type]
    root = config_entry._load(after.decode(), fmt)[1]
    assert root is not None and root.value == json.loads(after)
    assert len(members) < 10  # the new members, not the 150 servers or the hooks


def test_a_json_text_with_a_duplicate_key_is_not_kept(cache: Path) -> None:
    text = _settings(150).decode().replace('"mcpServers": {', '"mcpServers": {"srv-001": 0, ', 1)
    root = json_spans.parse(text, jsonc=False)
    assert root is not None
    assert len(root.members[0].node.members) == 151  # expanded: the duplicate is there
    assert json_kept.encode(root) is None


def test_a_parse_msgpack_cannot_hold_is_left_out_and_the_others_kept(cache: Path) -> None:
    lone = _settings(150).decode().replace('"srv-001"', '"\\ud800"', 1)
    fine = _settings(151).decode()
    parses = []
    for text in (lone, fine):
        root = json_spans.parse(text, jsonc=False)
        assert root is not None and len(root.members[0].node.members) >= 150  # keys encoded
        parses.append(("json", text, json_kept.encode(root)))
    parse_cache.keep(parses)
    parse_cache.use(cache)
    assert parse_cache.found("json", lone) is None
    assert parse_cache.found("json", fine) is not None


def test_kept_spans_that_do_not_fit_the_value_are_parsed_instead() -> None:
    """A kept container whose spans do not fit its value (nothing `encode` writes, but a
    cache is not trusted to be right) is expanded by the parser, as if nothing were kept."""
    text = _settings(20).decode()
    root = json_spans.parse(text, jsonc=False)
    assert root is not None
    servers = root.members[0].node
    expected = [(m.key, m.key_start, m.colon, m.comma, m.node.start, m.node.end)
                for m in servers.members]
    kept = json_kept.encode(root)
    assert kept is not None
    kept[1][1][0][5][1][0][0] = "not-a-server"  # the first server's key, spoilt
    rebuilt = json_kept.rebuild(kept, text, False)
    assert rebuilt is not None
    assert [(m.key, m.key_start, m.colon, m.comma, m.node.start, m.node.end)
            for m in rebuilt.members[0].node.members] == expected
