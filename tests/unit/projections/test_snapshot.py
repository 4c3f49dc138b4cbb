"""snapshot: inside `held()` a shared file is read and looked at once per command; outside it,
every reader sees the disk as it is now (issue 32 item 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from uze.projections import config_entry, element, entry, snapshot
from uze.projections.entry import value_digest


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every file opened for reading through Path.read_bytes, in order."""
    seen: list[str] = []
    real = Path.read_bytes

    def counting(self: Path) -> bytes:
        seen.append(self.name)
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", counting)
    return seen


def test_inside_held_a_file_is_read_once_and_outside_each_time(tmp_path: Path,
                                                               opened: list[str]) -> None:
    path = tmp_path / "opencode.json"
    path.write_bytes(b'{"mcp": {}}\n')
    with snapshot.held():
        first = snapshot.read(path)
        path.write_bytes(b'{"mcp": {"x": 1}}\n')
        assert snapshot.read(path) is first  # the command's one view of the file
        with snapshot.held():  # nested: the same view
            assert snapshot.read(path) is first
    assert opened == ["opencode.json"]
    assert snapshot.read(path) == b'{"mcp": {"x": 1}}\n'
    assert snapshot.read(path) == b'{"mcp": {"x": 1}}\n'
    assert opened == ["opencode.json"] * 3
    assert snapshot.read(tmp_path / "absent.json") == b""


def test_shape_tells_a_file_from_a_link_a_folder_and_nothing(tmp_path: Path) -> None:
    (tmp_path / "file").write_bytes(b"x")
    (tmp_path / "folder").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "file")
    shapes = {name: snapshot.shape(tmp_path / name)
              for name in ("file", "folder", "link", "absent", "file/below")}
    assert shapes == {"file": "file", "folder": "other", "link": "other", "absent": "missing",
                      "file/below": "missing"}
    with snapshot.held():
        assert snapshot.shape(tmp_path / "file") == "file"
        (tmp_path / "file").unlink()
        assert snapshot.shape(tmp_path / "file") == "file"  # looked at once per command
    assert snapshot.shape(tmp_path / "file") == "missing"


def test_every_entry_of_a_shared_file_is_inspected_from_one_read(tmp_path: Path,
                                                                 opened: list[str]) -> None:
    """Status on many packages: each package's entries and hook groups in the same settings
    file are looked up in one read and one parse of it, and each state is still exact."""
    servers = {f"s{i}": {"command": f"run-{i}"} for i in range(50)}
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"mcpServers": servers,
                                "hooks": {"Stop": [{"id": 1}, {"id": 2}]}}))
    with snapshot.held():
        states = [entry.inspect(path, "json", ("mcpServers", name), value_digest(value))
                  for name, value in servers.items()]
        states.append(entry.inspect(path, "json", ("mcpServers", "s0"), value_digest({})))
        states.append(entry.inspect(path, "json", ("mcpServers", "gone"), value_digest({})))
        states.append(element.inspect(path, "json", ("hooks", "Stop"), value_digest({"id": 2}),
                                      "uze-hook"))
    assert states == ["matched"] * 50 + ["drifted", "missing", "matched"]
    assert opened == ["settings.json"]


def test_the_same_bytes_object_is_parsed_once_and_equal_bytes_are_not_confused() -> None:
    data = b'{"a": {"b": 1}}'
    first = config_entry.read_document(data, "json")
    assert config_entry.read_document(data, "json") is first
    other = bytes(bytearray(b'{"a": {"b": 2}}'))
    assert config_entry.read_entry(other, "json", ("a", "b")) == 2
    assert config_entry.read_entry(data, "json", ("a", "b")) == 1
