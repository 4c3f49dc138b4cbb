"""What Claude Code runs from a plugin it gets whole (uze.plan.verbatim, ADR 0055): odd shapes
are listed as written, never dropped, and nothing uze.trust lists already is listed twice."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import build_tree
from uze.package import read_package
from uze.plan import verbatim
from uze.trust import Execution


def _runs(tmp_path: Path, manifest: dict[str, object], files: dict[str, str] | None = None,
          listed: tuple[Execution, ...] = ()) -> list[str]:
    root = build_tree(tmp_path / "pkg", {
        ".claude-plugin/plugin.json": json.dumps({"name": "p", **manifest}), **(files or {})})
    return [run.describe() for run in verbatim.runs(read_package(root), listed)]


def test_a_plugin_with_only_inert_keys_runs_nothing_more(tmp_path: Path) -> None:
    assert _runs(tmp_path, {"version": "1.0.0", "author": {"name": "a"}, "category": "x",
                            "userConfig": {"k": {"type": "string"}}}) == []


def test_a_list_of_paths_and_records_is_read_each(tmp_path: Path) -> None:
    found = _runs(tmp_path, {"lspServers": ["./a.json", {"b": {"command": "b-ls"}}]},
                  {"a.json": json.dumps({"a": {"command": "a-ls", "args": ["--token", "s3"]}})})
    assert found[0].startswith("lsp a: a-ls --token <hidden>; secret args --token; a.json ")
    assert found[1] == "lsp b: b-ls"


def test_a_file_that_is_not_json_is_listed_as_written_with_its_digest(tmp_path: Path) -> None:
    found = _runs(tmp_path, {}, {".lsp.json": "not json"})
    assert len(found) == 1 and found[0].startswith("lsp .lsp.json: as written: null; .lsp.json ")


def test_a_remote_server_starts_nothing_and_is_not_listed(tmp_path: Path) -> None:
    assert _runs(tmp_path, {"mcpServers": {"r": {"type": "http", "url": "https://x"}}}) == []


def test_a_server_uze_lists_already_is_not_listed_twice(tmp_path: Path) -> None:
    listed = Execution("mcp", "db", "db-server", (), "", (), ())
    found = _runs(tmp_path, {"mcpServers": {"db": {"command": "db-server"}}}, listed=(listed,))
    assert found == []


def test_unknown_experimental_keys_and_monitor_shapes_are_listed(tmp_path: Path) -> None:
    found = _runs(tmp_path, {"experimental": {"themes": "./t", "future": {"run": "x"}},
                             "monitors": "./m.json"},
                  {"m.json": json.dumps({"not": "a list"})})
    assert found[0].startswith('monitor m.json: as written: {"not": "a list"}; m.json ')
    assert found[1].startswith("manifest experimental.future (uze does not read it")
    assert len(found) == 2
