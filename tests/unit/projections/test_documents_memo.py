"""The parse memo of `config_entry.plain_document` (ADR 0107): bytes a read-only command holds
(`snapshot.held`) are parsed once for the whole block, however many and large; any other bytes
are kept up to a byte budget, newest first, so a command that reads large settings files again
and again holds a few parses, not 64."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from uze.projections import config_entry, snapshot

BUDGET = 10_000  # the module's budget, made small so the documents can be too


@pytest.fixture(autouse=True)
def budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config_entry, "_DOCUMENTS_BUDGET", BUDGET)
    monkeypatch.setattr(config_entry, "_DOCUMENTS", {})


def _settings(i: int, size: int = 2_000) -> bytes:
    """A JSON document of about `size` bytes, different for each `i`."""
    return json.dumps({"n": i, "pad": "x" * size}).encode()


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    parsed: list[str] = []
    real = config_entry._plain

    def plain(text: str, fmt: str) -> object:
        parsed.append(text[:12])
        return real(text, fmt)

    monkeypatch.setattr(config_entry, "_plain", plain)
    return parsed


def test_other_bytes_are_kept_up_to_the_budget_newest_first(
        monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = _counted(monkeypatch)
    documents = [_settings(i) for i in range(20)]
    for data in documents:
        assert config_entry.plain_document(data, "json") == json.loads(data)
    held = [data for data, _document in config_entry._DOCUMENTS.values()]
    assert sum(map(len, held)) <= BUDGET
    assert held == documents[-len(held):]  # the newest ones
    assert len(held) == BUDGET // len(documents[0])
    parsed.clear()
    config_entry.plain_document(documents[-1], "json")
    assert parsed == []  # the newest: found by identity
    config_entry.plain_document(documents[0], "json")
    assert len(parsed) == 1  # dropped: parsed again


def test_a_document_larger_than_the_budget_is_still_kept_as_the_newest(
        monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = _counted(monkeypatch)
    data = _settings(0, size=3 * BUDGET)
    for _ in range(3):
        config_entry.plain_document(data, "json")
    assert len(parsed) == 1


def test_bytes_held_by_a_read_only_command_are_parsed_once_each(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = [tmp_path / f"settings-{i}.json" for i in range(12)]  # 24 KB: over the budget
    for i, path in enumerate(files):
        path.write_bytes(_settings(i))
    parsed = _counted(monkeypatch)
    with snapshot.held():
        for _ in range(3):  # as status does: every package's records, file after file
            for path in files:
                data = snapshot.read(path)
                assert config_entry.plain_document(data, "json") == json.loads(data)
        assert len(parsed) == len(files)
    assert snapshot._parses == {} and snapshot._ids == set()  # let go with the bytes
    assert snapshot.parses(files[0].read_bytes()) is None
