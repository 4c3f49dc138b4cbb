"""Issue 28 item 5: input built to crash uze gets a clean answer. Deep folders and deeply nested
catalogs, manifests and locks are refused by location (exit 1) instead of a RecursionError; a
`strict: false` catalog entry whose folder is missing or is a file, and `--project` naming a
file, are refused by name (exit 1, and 2 for the option) instead of "internal error". Nothing
is written anywhere. Each test runs the real `uze` in a subprocess, as an attacker would.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, assert_no_traceback, assert_ok, snapshot
from tests.helpers import build_tree

pytestmark = pytest.mark.e2e

SKILL = "---\nname: s\ndescription: A skill.\n---\nBody.\n"
DEEP_FOLDERS = 1200  # past Python's recursion limit whatever the frames per level


def _package(root: Path, name: str = "pkg") -> Path:
    return build_tree(root / name, {
        "plugin.json": json.dumps({"name": name, "version": "1.0.0"}) + "\n",
        "skills/s/SKILL.md": SKILL,
    })


# The first folder of the package `skills/s/d/d/...` nested past the limit: its 65th level.
TOO_DEEP = "skills/s/" + "/".join(["d"] * 63)


def _deep_folder(base: Path, levels: int = DEEP_FOLDERS) -> None:
    """`levels` nested folders `d/d/...` below `base` with a file at the bottom, made level by
    level (pathlib's and os's own `makedirs` recurse)."""
    path = str(base)
    for _ in range(levels):
        path += "/d"
        os.mkdir(path)  # noqa: PTH102 (a str path, one level at a time)
    Path(path, "f.txt").write_text("x\n", encoding="utf-8")


@pytest.fixture(autouse=True)
def _remove_deep_folders(sandbox: Sandbox) -> Iterator[None]:
    """Removes every `d/d/...` tree bottom up after the test: pytest's own clean-up
    (shutil.rmtree) recurses, and would fail on the next run."""
    yield
    pending, found = [str(sandbox.root)], []
    while pending:
        folder = pending.pop()
        for entry in os.scandir(folder):
            if entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)
                found.append(entry.path)
    for folder in sorted(found, key=len, reverse=True):
        for entry in os.scandir(folder):
            if not entry.is_dir(follow_symlinks=False):
                os.unlink(entry.path)  # noqa: PTH108 (a DirEntry's str path)
        os.rmdir(folder)  # noqa: PTH106 (bottom up: every folder below is gone)


def _refused(result: subprocess.CompletedProcess[str], code: int, *needles: str) -> None:
    assert_no_traceback(result)
    assert result.returncode == code, result.stderr
    for needle in needles:
        assert needle in result.stderr, (needle, result.stderr)
    assert result.stderr.rstrip().splitlines()[-1].startswith("hint: "), result.stderr


@pytest.mark.parametrize("command", ["check", "install"])
def test_a_package_nesting_folders_a_thousand_deep_is_refused_by_location(
        sandbox: Sandbox, uze: Uze, command: str) -> None:
    source = _package(sandbox.root)
    _deep_folder(source / "skills" / "s")
    before = snapshot(sandbox)
    trust = ["--trust"] if command == "install" else []
    result = uze(command, source, "--harness", "claude_code", *trust)
    _refused(result, 1, f"{TOO_DEEP}: folders nested more than 64 levels deep",
             f"invalid package {source}: 1 problem")
    assert snapshot(sandbox) == before


def test_status_and_uninstall_walk_a_delivered_skill_someone_nested_a_thousand_folders_deep(
        sandbox: Sandbox, uze: Uze) -> None:
    """A hostile repository commits a deep tree inside a delivered skill folder: status walks
    it without recursing and reports the skill changed, and `uninstall --force` removes it
    whole (the trash is emptied without recursing too)."""
    assert_ok(uze("install", _package(sandbox.root), "--harness", "codex"))
    skill = next(p for p in (sandbox.project / ".agents" / "skills").iterdir())
    _deep_folder(skill)
    result = uze("status", "--json")
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr
    states = {p["state"] for pkg in json.loads(result.stdout)["packages"]
              for p in pkg["projections"] if p["kind"] == "skill"}
    assert states == {"drifted"}
    result = uze("uninstall", "pkg", "--force")
    assert result.returncode == 0, result.stderr
    assert not skill.exists()
    assert not (sandbox.project / ".uze" / "receipts").exists()


def _nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def test_a_marketplace_whose_catalog_nests_100000_deep_is_refused_by_name(
        sandbox: Sandbox, uze: Uze) -> None:
    market = build_tree(sandbox.root / "market", {
        ".claude-plugin/marketplace.json":
            '{"name": "m", "plugins": [], "metadata": {"x": ' + _nested(100_000) + "}}"})
    before = snapshot(sandbox)
    result = uze("marketplace", "add", market)
    _refused(result, 1, ".claude-plugin/marketplace.json", "nested more than 64 levels deep")
    assert snapshot(sandbox) == before


@pytest.mark.parametrize("name", ["uze.toml", "uze.lock"])
def test_a_committed_manifest_or_lock_nested_100000_deep_is_refused_by_name(
        sandbox: Sandbox, uze: Uze, name: str) -> None:
    """A cloned repository's uze.toml / uze.lock is input: `install` and `status` name it."""
    files = {"uze.toml": '[packages]\npkg = "./pkg"\n'}
    files[name] = ("[packages]\npkg = " if name == "uze.toml"
                   else 'version = 1\n[[package]]\nname = ') + _nested(100_000) + "\n"
    build_tree(sandbox.project, files)
    before = snapshot(sandbox)
    for command in ("install", "outdated"):
        result = uze(command)
        _refused(result, 1, f"uze: error: {name}: nested more than 64 levels deep")
        assert snapshot(sandbox) == before


@pytest.fixture
def strict_false_market(sandbox: Sandbox, uze: Uze) -> Path:
    """A registered folder marketplace whose `strict: false` entries name a folder that does
    not exist and a file."""
    market = build_tree(sandbox.root / "market", {
        "plugins/afile": "not a folder\n",
        ".claude-plugin/marketplace.json": json.dumps({"name": "m", "plugins": [
            {"name": "gone", "source": "./plugins/gone", "strict": False, "skills": ["./s"]},
            {"name": "afile", "source": "./plugins/afile", "strict": False}]})})
    assert_ok(uze("marketplace", "add", market))
    return market


@pytest.mark.parametrize(("entry", "problem"), [
    ("gone", "plugins/gone: no such folder"),
    ("afile", "plugins/afile: not a folder (a package is a folder)"),
])
def test_a_strict_false_entry_whose_folder_is_missing_or_a_file_is_refused_by_name(
        sandbox: Sandbox, uze: Uze, strict_false_market: Path, entry: str, problem: str) -> None:
    before = snapshot(sandbox)
    result = uze("install", f"{entry}@m", "--harness", "claude_code", "--trust")
    _refused(result, 1, problem, "uze: error: invalid package")
    assert snapshot(sandbox) == before


def test_a_strict_false_entry_nesting_folders_a_thousand_deep_is_refused_by_location(
        sandbox: Sandbox, uze: Uze) -> None:
    market = build_tree(sandbox.root / "market", {
        "plugins/deep/skills/s/SKILL.md": SKILL,
        ".claude-plugin/marketplace.json": json.dumps({"name": "m", "plugins": [
            {"name": "deep", "source": "./plugins/deep", "strict": False}]})})
    _deep_folder(market / "plugins" / "deep" / "skills" / "s")
    assert_ok(uze("marketplace", "add", market))
    before = snapshot(sandbox)
    result = uze("install", "deep@m", "--harness", "claude_code", "--trust")
    _refused(result, 1, f"{TOO_DEEP}: folders nested more than 64 levels deep")
    assert snapshot(sandbox) == before


@pytest.mark.parametrize("command", [["install", "PKG", "--harness", "codex"], ["status"],
                                     ["uninstall", "pkg"], ["list"]])
def test_project_naming_a_file_is_a_usage_error_naming_it(
        sandbox: Sandbox, uze: Uze, command: list[str]) -> None:
    source = _package(sandbox.root)
    afile = sandbox.root / "notes.txt"
    afile.write_text("mine\n", encoding="utf-8")
    before = snapshot(sandbox)
    argv = [str(source) if arg == "PKG" else arg for arg in command]
    result = uze(*argv, "--project", afile)
    _refused(result, 2, f"uze: error: --project {afile}: not a folder")
    assert snapshot(sandbox) == before
    assert afile.read_text(encoding="utf-8") == "mine\n"


LONG = "a" * 5000  # past the system's file name limit: looking it up fails with ENAMETOOLONG


@pytest.mark.parametrize(("argv", "code", "needle"), [
    (["install", LONG], 2, "uze: error: invalid source"),
    (["install", f"./{LONG}"], 1, "uze: error: invalid package"),  # the path fills the line
    (["check", LONG], 1, "uze: error: invalid package"),
    (["status", "--project", f"/tmp/{LONG}"], 2, "File name too long"),
], ids=["install-name", "install-path", "check", "project"])
def test_a_name_too_long_to_look_up_is_refused_by_name(
        sandbox: Sandbox, uze: Uze, argv: list[str], code: int, needle: str) -> None:
    before = snapshot(sandbox)
    _refused(uze(*argv), code, needle)
    assert snapshot(sandbox) == before


@pytest.mark.parametrize(("harness", "config", "text"), [
    ("claude_code", ".mcp.json", '{"x": ' + "1" * 5000 + "}\n"),
    ("codex", ".codex/config.toml", "x = " + "1" * 5000 + "\n"),
])
def test_a_committed_harness_config_holding_a_huge_number_is_refused_by_name(
        sandbox: Sandbox, uze: Uze, harness: str, config: str, text: str) -> None:
    """A number longer than Python converts (4300 digits) in a config uze edits."""
    source = build_tree(sandbox.root / "srv", {
        "plugin.json": '{"name": "srv", "version": "1.0.0"}',
        "mcp.json": json.dumps({"mcpServers": {"srv": {"command": "node", "args": ["s.js"]}}})})
    build_tree(sandbox.project, {config: text})
    before = snapshot(sandbox)
    _refused(uze("install", source, "--harness", harness, "--trust"), 1,
             f"uze: error: cannot safely edit {config}: it does not parse")
    assert snapshot(sandbox) == before
