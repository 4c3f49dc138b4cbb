"""snapshot: inside `held()` a shared file is read and looked at once per command; outside it,
every reader sees the disk as it is now (issue 32 item 2), the same bytes while the file's stat
holds (ADR 0104)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from uze import memo
from uze.projections import config_entry, element, entry, snapshot, statcache
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


def _settle(path: Path) -> None:
    """Wait until `path` last changed clearly before now (the racy-git rule, statcache)."""
    while not statcache.settled(path.stat(), time.time_ns()):
        time.sleep(0.05)


def test_outside_held_a_settled_file_is_read_again_only_once_its_stat_changes(
    tmp_path: Path, opened: list[str]
) -> None:
    """ADR 0104: preflight looks up each of a package's entries in files holding every
    package's; while the file's stat holds, every read gets the one `bytes` object (so the
    parses memoised by its identity find it), and any write, in place or by rename, is seen."""
    path = tmp_path / "settings.json"
    path.write_bytes(b'{"a": 1}\n')
    _settle(path)
    first = snapshot.read(path)
    assert snapshot.read(path) is first
    assert opened == ["settings.json"]
    path.write_bytes(b'{"a": 2}\n')  # in place, the same size
    assert snapshot.read(path) == b'{"a": 2}\n'  # not settled: read every time
    assert snapshot.read(path) == b'{"a": 2}\n'
    assert opened == ["settings.json"] * 3
    (tmp_path / "new").write_bytes(b'{"a": 3}\n')
    (tmp_path / "new").replace(path)
    assert snapshot.read(path) == b'{"a": 3}\n'
    path.unlink()
    assert snapshot.read(path) == b""
    memo.forget()  # between two packages of a converge: nothing kept (ADR 0100)


def test_a_missing_hook_group_is_told_from_an_edited_one_in_one_pass(tmp_path: Path) -> None:
    """An array of every package's hook groups: a group of this package that is gone is
    `missing`; one still naming this package's wrapper but changed is `drifted`; a marker
    split across two groups is neither."""
    path = tmp_path / "settings.json"
    groups = [{"hooks": [{"command": f"uze-hook-p{i}"}]} for i in range(20)]
    path.write_text(json.dumps({"hooks": {"Stop": groups}}))
    digest = value_digest({"hooks": [{"command": "other"}]})
    states = [element.inspect(path, "json", ("hooks", "Stop"), digest, marker)
              for marker in ("uze-hook-p7", "uze-hook-p99", "p19'}]}\0{'hooks", "}, {")]
    assert states == ["drifted", "missing", "missing", "missing"]
