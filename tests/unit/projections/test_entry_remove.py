"""Removing an MCP entry from a file uze made: the file goes only when what is left is
hollow, and while another package's entry stays beside it the new text is not parsed to ask."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from uze.projections import config_entry as ce
from uze.projections import entry
from uze.transaction import Transaction


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The texts `entry.remove` asks `is_hollow` about."""
    texts: list[bytes] = []
    hollow = entry.is_hollow

    def recording(data: bytes, fmt: ce.ConfigFormat) -> bool:
        texts.append(data)
        return hollow(data, fmt)

    monkeypatch.setattr(entry, "is_hollow", recording)
    return texts


def _added(path: Path, document: dict[str, object], key_path: tuple[str, ...],
           fmt: ce.ConfigFormat = "json") -> tuple[bytes, ce.AddInfo]:
    """`document` written, then the entry added at `key_path` as install adds it."""
    before = json.dumps(document, indent=2).encode()
    data, info = ce.add_entry(before, fmt, key_path, {"command": "mine"})
    path.write_bytes(data)
    return before, info


def _remove(path: Path, key_path: tuple[str, ...], info: ce.AddInfo) -> bool:
    with Transaction(path.parent / "journal") as tx:
        return entry.remove(tx, path, "json", key_path, info, delete_if_empty=True)


def test_an_entry_beside_other_packages_entries_goes_without_a_parse_of_the_new_text(
    tmp_path: Path, asked: list[bytes]
) -> None:
    path = tmp_path / ".mcp.json"
    others = {f"s{i}": {"command": f"run-{i}"} for i in range(3)}
    before, info = _added(path, {"mcpServers": others}, ("mcpServers", "mine"))
    assert _remove(path, ("mcpServers", "mine"), info) is False
    assert path.read_bytes() == before
    assert asked == []


@pytest.mark.parametrize(("document", "left"), [
    ({}, False),  # the last entry out: the file uze made goes
    ({"hooks": {"Stop": []}}, False),  # shells another package's add left
    ({"mcpServers": {"empty": {}}}, False),  # an entry with nothing in it is hollow too
    ({"mine": {}}, True),  # a key of the user's own
])
def test_with_only_hollow_values_beside_it_the_new_text_decides(
    tmp_path: Path, asked: list[bytes], document: dict[str, object], left: bool
) -> None:
    path = tmp_path / ".mcp.json"
    before, info = _added(path, document, ("mcpServers", "mine"))
    assert _remove(path, ("mcpServers", "mine"), info) is not left
    assert path.exists() is left
    if left:
        assert path.read_bytes() == before
    assert asked == [before]  # the text left, as it was before the add


def test_content_beside_a_key_higher_on_the_way_keeps_the_file(
    tmp_path: Path, asked: list[bytes]
) -> None:
    """opencode.json: the schema line beside `mcp` is not hollow, so the file stays."""
    path = tmp_path / "opencode.json"
    before, info = _added(path, {"$schema": "https://opencode.ai/config.json"},
                          ("mcp", "mine"))
    assert _remove(path, ("mcp", "mine"), info) is False
    assert path.read_bytes() == before
    assert asked == []


def test_a_toml_element_holding_a_date_is_hashed_not_refused() -> None:
    """A user's `[[hooks]]` table may hold a TOML date, time or date-time; a digest of it is
    made (JSON has no form for one), distinct from the same text as a string."""
    import datetime

    from uze.projections.entry import value_digest

    day, moment = datetime.date(1979, 5, 27), datetime.datetime(1979, 5, 27, 7, 32)
    assert value_digest({"added": day}) == value_digest({"added": datetime.date(1979, 5, 27)})
    assert len({value_digest({"added": day}), value_digest({"added": "1979-05-27"}),
                value_digest({"added": moment}), value_digest({"at": datetime.time(7, 32)})}) == 4
