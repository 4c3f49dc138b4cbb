"""A cloned repository's files are input (issue 19, items 1-4 and 16; ADR 0020).

Each case runs the real `uze` in a fresh HOME, UZE_HOME and project (the sandbox fixture), and
asserts the exit code, the message, no traceback, and the bytes of the whole sandbox (project,
HOME, UZE_HOME and the folders beside them that an escape would reach) before and after.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import EVERY_KIND, assert_no_traceback
from tests.helpers import DATA, run_uze, tree_bytes
from uze.projections.statcache import DigestCache

pytestmark = pytest.mark.e2e
SEVEN = DATA / "seven"
MINIMAL = DATA / "minimal"
NOBODY = 65534


def _world(sandbox: Sandbox) -> dict[str, bytes | str]:
    """Every byte under the sandbox root: project, HOME, UZE_HOME and what lies beside them."""
    return tree_bytes(sandbox.root)


def _assert_untouched(sandbox: Sandbox, before: dict[str, bytes | str]) -> None:
    """Every byte as `before`. Allowed besides: the lock files a command takes before it can
    read what it then refuses, and the empty journal folders of a rolled-back change (uze's
    bookkeeping in UZE_HOME, never a user's file)."""
    after = _world(sandbox)
    extra = {k: v for k, v in after.items() if k not in before}
    assert {k: after.get(k) for k in before} == before
    for key, value in extra.items():
        lock = key.startswith("uze-home/locks") and value in ("dir", b"\0mode=644")
        assert lock or (key.startswith("uze-home/journal") and value == "dir"), key


def _uze(sandbox: Sandbox, *args: str | Path, env: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess[str]:
    if args and args[0] == "install" and "--trust" not in args:
        args = (*args, "--trust")  # these cases are about state, not consent (ADR 0021)
    result = run_uze(*args, cwd=sandbox.project, env=env)
    assert_no_traceback(result)
    return result


def _refused(result: subprocess.CompletedProcess[str], *texts: str) -> None:
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    assert "uze: error: " in result.stderr and "hint: " in result.stderr, result.stderr
    for text in texts:
        assert text in result.stderr, result.stderr


def _install(sandbox: Sandbox, package: Path = SEVEN, harness: str = "claude_code,codex") -> None:
    done = _uze(sandbox, "install", package, "--harness", harness, "--trust")
    assert done.returncode == 0, done.stderr


def _digest(path: Path) -> str:
    return DigestCache(None).digest(path, path.lstat())


def _receipt(sandbox: Sandbox, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((sandbox.project / f".uze/receipts/{name}.json").read_text())
    return data


def _write_receipt(sandbox: Sandbox, file: str, data: dict[str, Any]) -> Path:
    path = sandbox.project / ".uze/receipts" / f"{file}.json"
    path.write_text(json.dumps(data, indent=2))
    return path


# --- item 1: receipts are validated before any use -----------------------------------------

@pytest.mark.parametrize("command", [
    ("uninstall", "tidy"), ("uninstall", "--force", "tidy"), ("status",), ("status", "--json"),
    ("list",), ("uninstall", "--dry-run", "tidy"),
])
def test_a_receipt_whose_name_climbs_out_of_the_receipts_folder_deletes_nothing(
    sandbox: Sandbox, command: tuple[str, ...]
) -> None:
    """`{"name": "../../package"}` in tidy.json once made `uninstall tidy` delete package.json."""
    _install(sandbox, MINIMAL)
    (sandbox.project / "package.json").write_text('{"private": true}\n')
    hostile = {**_receipt(sandbox, "minimal"), "name": "../../package"}
    path = _write_receipt(sandbox, "tidy", hostile)
    before = _world(sandbox)
    done = _uze(sandbox, *command)
    _refused(done, f"cannot read receipt {path}", "name: '../../package' is not this file's")
    _assert_untouched(sandbox, before)


def test_a_longer_climbing_name_cannot_reach_home(sandbox: Sandbox) -> None:
    _install(sandbox, MINIMAL)
    victim = sandbox.home / ".profile.json"
    victim.write_text("{}\n")
    climb = os.path.relpath(victim.with_suffix(""), sandbox.project / ".uze/receipts")
    path = _write_receipt(sandbox, "tidy", {**_receipt(sandbox, "minimal"), "name": climb})
    before = _world(sandbox)
    _refused(_uze(sandbox, "uninstall", "tidy"), f"cannot read receipt {path}", "name:")
    _assert_untouched(sandbox, before)


def test_a_receipt_under_a_valid_but_different_name_is_refused(sandbox: Sandbox) -> None:
    _install(sandbox, MINIMAL)
    path = _write_receipt(sandbox, "tidy", {**_receipt(sandbox, "minimal"), "name": "minimal"})
    before = _world(sandbox)
    _refused(_uze(sandbox, "uninstall", "tidy"), str(path), "name: 'minimal' is not this file's")
    _assert_untouched(sandbox, before)


def test_a_receipt_with_an_invalid_package_name_is_refused(sandbox: Sandbox) -> None:
    _install(sandbox, MINIMAL)
    (sandbox.project / ".uze/receipts/minimal.json").unlink()
    path = _write_receipt(sandbox, "Tidy", {**_receipt_like(sandbox), "name": "Tidy"})
    before = _world(sandbox)
    _refused(_uze(sandbox, "status"), str(path), "invalid name 'Tidy'")
    _assert_untouched(sandbox, before)


def _receipt_like(sandbox: Sandbox) -> dict[str, Any]:
    return {"artifacts": [], "harnesses": ["codex"], "name": "x", "projections": [],
            "schema_version": 1, "scope": "project", "status": "complete",
            "tree": "0" * 64, "version": "1.0.0"}


def _victims(sandbox: Sandbox) -> dict[str, tuple[str, dict[str, Any]]]:
    """Hand-made artifacts naming files outside the places uze writes, each matching its bytes
    (so that, were it trusted, uninstall would remove it)."""
    bashrc = sandbox.home / ".bashrc"
    bashrc.write_text("export PATH=$HOME/bin:$PATH\n")
    outside = sandbox.root / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine\n")
    package = sandbox.project / "package.json"
    package.write_text('{"private": true}\n')
    src = sandbox.project / "src"
    src.mkdir()
    (src / "main.py").write_text("print('hi')\n")
    agents = sandbox.project / "AGENTS.md"
    agents.write_text("# mine\n")
    file = {"type": "file", "harnesses": ["codex"]}
    tree = {"type": "tree", "harnesses": ["codex"], "executables": []}
    return {
        "home-bashrc": ("'~/.bashrc' is not a relative path",
                        {**file, "target": "~/.bashrc", "digest": _digest(bashrc)}),
        "absolute": (f"{str(bashrc)!r} is not a relative path",
                     {**file, "target": str(bashrc), "digest": _digest(bashrc)}),
        "dot-dot": ("'../outside' has an empty, `.` or `..` part",
                    {**tree, "target": "../outside",
                     "files": {"keep.txt": _digest(outside / "keep.txt")}}),
        "project-file": ("'package.json' is not a place uze writes",
                         {**file, "target": "package.json", "digest": _digest(package)}),
        "project-folder": ("'src' is not a place uze writes",
                           {**tree, "target": "src",
                            "files": {"main.py": _digest(src / "main.py")}}),
        "whole-project": ("'.' has an empty, `.` or `..` part",
                          {**tree, "target": ".", "files": {}}),
        "skills-root": ("'.claude/skills' is not a place uze writes",
                        {**tree, "target": ".claude/skills", "files": {}}),
        "tree-file-climbs": ("files: '../../package.json' has an empty",
                             {**tree, "target": ".agents/skills/x",
                              "files": {"../../package.json": _digest(package)}}),
        "region-in-a-tree-place": ("'.claude/skills/x' is not a place uze writes",
                                   {"type": "region", "target": ".claude/skills/x", "region": "x",
                                    "digest": _digest(agents), "harnesses": ["codex"]}),
    }


VICTIMS = ("home-bashrc", "absolute", "dot-dot", "project-file", "project-folder",
           "whole-project", "skills-root", "tree-file-climbs", "region-in-a-tree-place")


@pytest.mark.parametrize("command", [
    ("uninstall", "seven"), ("uninstall", "--force", "seven"), ("status",), ("status", "seven"),
    ("install", str(SEVEN), "--harness", "codex"),
])
@pytest.mark.parametrize("victim", VICTIMS)
def test_a_receipt_naming_a_place_uze_does_not_write_is_refused_whole(
    sandbox: Sandbox, victim: str, command: tuple[str, ...]
) -> None:
    """`install` of the same-named package once removed such an artifact as "dropped"."""
    _install(sandbox, SEVEN, "codex")
    why, record = _victims(sandbox)[victim]
    receipt = _receipt(sandbox, "seven")
    receipt["artifacts"].append(record)
    path = _write_receipt(sandbox, "seven", receipt)
    before = _world(sandbox)
    done = _uze(sandbox, *command)
    index = len(receipt["artifacts"]) - 1
    _refused(done, f"cannot read receipt {path}", f"artifacts.{index}.", why, "nothing was changed")
    _assert_untouched(sandbox, before)


def test_a_project_receipt_that_says_user_scope_is_refused(sandbox: Sandbox) -> None:
    _install(sandbox, SEVEN, "codex")
    path = _write_receipt(sandbox, "seven", {**_receipt(sandbox, "seven"), "scope": "user"})
    before = _world(sandbox)
    _refused(_uze(sandbox, "uninstall", "seven"), str(path), "scope: 'user'")
    _assert_untouched(sandbox, before)


def test_a_user_receipt_naming_a_file_in_home_outside_the_harness_homes_is_refused(
    sandbox: Sandbox
) -> None:
    done = _uze(sandbox, "install", SEVEN, "--scope", "user", "--harness", "codex")
    assert done.returncode == 0, done.stderr
    bashrc = sandbox.home / ".bashrc"
    bashrc.write_text("alias ll='ls -l'\n")
    path = sandbox.uze_home / "receipts/seven.json"
    receipt = json.loads(path.read_text())
    receipt["artifacts"].append({"type": "file", "target": "~/.bashrc", "digest": _digest(bashrc),
                                 "harnesses": ["codex"]})
    path.write_text(json.dumps(receipt))
    before = _world(sandbox)
    for command in (("uninstall", "--scope", "user", "seven"), ("status", "--scope", "user")):
        _refused(_uze(sandbox, *command), str(path), "'~/.bashrc' is not a place uze writes")
    _assert_untouched(sandbox, before)


@pytest.mark.parametrize("name", ["../../package", "a/b", "Seven"])
def test_an_uninstall_argument_that_is_not_a_package_name_reads_no_file(
    sandbox: Sandbox, name: str
) -> None:
    _install(sandbox, MINIMAL)
    (sandbox.project / "package.json").write_text(json.dumps(_receipt(sandbox, "minimal")))
    before = _world(sandbox)
    done = _uze(sandbox, "uninstall", name)
    assert done.returncode == 2, done.stderr
    assert "invalid package name" in done.stderr and "uze: error:" in done.stderr
    _assert_untouched(sandbox, before)


# --- item 2: uze's own state files are validated ---------------------------------------------

CONFLICTED = "<<<<<<< HEAD\n{\"dirs\": [], \"files\": []}\n=======\n{}\n>>>>>>> theirs\n"


@pytest.mark.parametrize("content, why", [
    (CONFLICTED, "JSON is malformed"),
    ('{"dirs": ["src"], "files": [], "schema_version": 1}', "'src' is not a folder uze creates"),
    ('{"dirs": ["../.."], "files": [], "schema_version": 1}', "'../..' has an empty"),
    ('{"dirs": [], "files": ["package.json"], "schema_version": 1}', "'package.json' is not a "),
    ('{"dirs": {"a": 1}, "schema_version": 1}', "Expected `array`"),
    ('{"dirs": [], "files": [], "schema_version": 1, "extra": 1}', "unknown field `extra`"),
    ('[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]', "Expected `object`"),
    ('{"schema_version": 7}', "written by a newer uze (schema 7)"),
])
@pytest.mark.parametrize("command", [("uninstall", "seven"), ("install", str(SEVEN))])
def test_a_damaged_created_record_is_named_and_nothing_is_written(
    sandbox: Sandbox, content: str, why: str, command: tuple[str, ...]
) -> None:
    _install(sandbox, SEVEN, "codex")
    created = sandbox.project / ".uze/created.json"
    created.write_text(content)
    (sandbox.project / "AGENTS.md").write_text("# now edited\n")  # the install has work to do
    before = _world(sandbox)
    done = _uze(sandbox, *command, "--harness", "codex") if command[0] == "install" \
        else _uze(sandbox, *command)
    _refused(done, f"cannot read {created}", why)
    _assert_untouched(sandbox, before)


def test_a_folder_where_the_created_record_goes_is_named(sandbox: Sandbox) -> None:
    _install(sandbox, SEVEN, "codex")
    created = sandbox.project / ".uze/created.json"
    created.unlink()
    created.mkdir()
    before = _world(sandbox)
    _refused(_uze(sandbox, "uninstall", "seven"), f"cannot read {created}", "Is a directory")
    _assert_untouched(sandbox, before)


@pytest.mark.parametrize("content, why", [
    ("garbage", "JSON is malformed"),
    ('{"projects": "x"}', "Expected `array`"),
    ('{"projects": ["relative/path"]}', "'relative/path' is not an absolute path"),
    ("[]", "Expected `object`"),
])
@pytest.mark.parametrize("command", [("install", str(SEVEN), "--harness", "codex"),
                                     ("store", "gc")])
def test_a_damaged_projects_registry_is_named_and_nothing_is_written(
    sandbox: Sandbox, content: str, why: str, command: tuple[str, ...]
) -> None:
    registry = sandbox.uze_home / "projects.json"
    registry.write_text(content)
    before = _world(sandbox)
    _refused(_uze(sandbox, *command), f"cannot read {registry}", why, "projects")
    _assert_untouched(sandbox, before)


def test_a_receipts_path_that_is_a_file_is_named(sandbox: Sandbox) -> None:
    (sandbox.project / ".uze").mkdir()
    (sandbox.project / ".uze/receipts").write_text("not a folder\n")
    before = _world(sandbox)
    _refused(_uze(sandbox, "status"), f"cannot read {sandbox.project / '.uze/receipts'}",
             "not a folder")
    _assert_untouched(sandbox, before)


def test_a_folder_named_like_a_receipt_is_named(sandbox: Sandbox) -> None:
    _install(sandbox, MINIMAL)
    odd = sandbox.project / ".uze/receipts/odd.json"
    odd.mkdir()
    before = _world(sandbox)
    _refused(_uze(sandbox, "status"), f"cannot read receipt {odd}", "Is a directory")
    _assert_untouched(sandbox, before)


@pytest.mark.parametrize("body, why", [
    ('{"artifacts": [[[[[[[[[[[[]]]]]]]]]]]]}', "artifacts"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('"a string"', "not a JSON object"),
    ('{"name": "seven", "name": "seven"}', "Object missing required field"),
], ids=["nested-artifacts", "deep", "string", "fields-missing"])
def test_a_nested_or_odd_receipt_is_named(sandbox: Sandbox, body: str, why: str) -> None:
    _install(sandbox, SEVEN, "codex")
    path = sandbox.project / ".uze/receipts/seven.json"
    path.write_text(body)
    before = _world(sandbox)
    for command in (("status",), ("uninstall", "seven"), ("install", str(SEVEN))):
        _refused(_uze(sandbox, *command), f"cannot read receipt {path}", why)
    _assert_untouched(sandbox, before)


@pytest.mark.parametrize("value", ["abc", "-1", "nan", "inf", ""])
@pytest.mark.parametrize("command", [("status",), ("status", "--json"), ("install", str(SEVEN))])
def test_a_lock_timeout_that_is_not_seconds_is_named(
    sandbox: Sandbox, value: str, command: tuple[str, ...]
) -> None:
    before = _world(sandbox)
    done = _uze(sandbox, *command, env={**os.environ, "UZE_LOCK_TIMEOUT": value})
    _refused(done, f"UZE_LOCK_TIMEOUT={value!r} is not a number of seconds")
    _assert_untouched(sandbox, before)


def _journal(sandbox: Sandbox, lines: list[str]) -> Path:
    folder = sandbox.uze_home / "journal/user/0123456789abcdef"
    folder.mkdir(parents=True)
    (folder / "ops.jsonl").write_text("".join(line + "\n" for line in lines))
    return folder / "ops.jsonl"


@pytest.mark.parametrize("lines, why", [
    (["not json", '{"op": "mkdir", "path": "/x"}'], "line 1 is not JSON"),
    (["[]"], "line 1: not an operation uze journals"),
    (['{"op": "chmod", "path": "/x"}'], "line 1: not an operation uze journals"),
    (['{"op": "write", "path": "relative"}'], "path 'relative' is not an absolute path"),
    (['{"op": "write", "path": "HOME/.bashrc"}'], "outside the places uze writes in user scope"),
    (['{"op": "write", "path": "HOME/.claude/x", "backup": "../../../../HOME/.bashrc"}'],
     "backup '../../../../HOME/.bashrc' is not one uze names"),
])
def test_a_damaged_or_hostile_journal_is_named_and_nothing_is_undone(
    sandbox: Sandbox, lines: list[str], why: str
) -> None:
    (sandbox.home / ".bashrc").write_text("mine\n")
    journal = _journal(sandbox, [line.replace("HOME", str(sandbox.home)) for line in lines])
    before = _world(sandbox)
    why = why.replace("HOME", str(sandbox.home))
    _refused(_uze(sandbox, "status"), f"cannot read {journal}", why)
    _assert_untouched(sandbox, before)


# --- item 3: links in a project are not followed -------------------------------------------

LINKED = [  # (folder made a link, package, harnesses)
    (".claude", SEVEN, "claude_code"),
    (".claude/skills", SEVEN, "claude_code"),
    (".opencode/agents", SEVEN, "opencode"),  # Claude Code's agents are in its plugin folder
    (".agents", SEVEN, "codex"),
    (".agents/skills", SEVEN, "codex"),
    (".codex", EVERY_KIND, "codex"),
    (".gemini", SEVEN, "gemini_cli"),
    (".opencode", SEVEN, "opencode"),
    (".opencode/plugins", EVERY_KIND, "opencode"),
    (".kimi-code", SEVEN, "kimi_code"),
    (".uze", SEVEN, "codex"),
    (".uze/packages", EVERY_KIND, "codex"),
    (".uze/hooks", EVERY_KIND, "claude_code"),
    (".uze/receipts", SEVEN, "codex"),
]


@pytest.fixture
def victim(sandbox: Sandbox) -> Iterator[Path]:
    """A folder outside the project that a link would redirect writes into (standing in for
    ~/.claude or /etc), with a file of its own."""
    folder = sandbox.root / "victim"
    folder.mkdir()
    (folder / "own.txt").write_text("not uze's\n")
    yield folder


@pytest.mark.parametrize("link, package, harness", LINKED, ids=[c[0] for c in LINKED])
def test_install_through_a_linked_folder_in_the_project_writes_nothing(
    sandbox: Sandbox, victim: Path, link: str, package: Path, harness: str
) -> None:
    at = sandbox.project / link
    at.parent.mkdir(parents=True, exist_ok=True)
    at.symlink_to(victim, target_is_directory=True)
    before = _world(sandbox)
    done = _uze(sandbox, "install", package, "--harness", harness, "--trust")
    _refused(done, f"refusing to go through a symbolic link: {at} ", "uze never follows a link")
    _assert_untouched(sandbox, before)


def test_a_link_to_the_users_own_harness_home_is_not_followed(sandbox: Sandbox) -> None:
    (sandbox.home / ".claude/skills").mkdir(parents=True)
    (sandbox.project / ".claude").symlink_to(sandbox.home / ".claude")
    before = _world(sandbox)
    _refused(_uze(sandbox, "install", SEVEN, "--harness", "claude_code"),
             f"symbolic link: {sandbox.project / '.claude'} ")
    _assert_untouched(sandbox, before)


@pytest.mark.parametrize("link", [".claude", ".claude/skills", ".uze", ".uze/receipts"])
@pytest.mark.parametrize("command", [("uninstall", "seven"), ("uninstall", "--force", "seven"),
                                     ("status",), ("install", str(SEVEN))])
def test_a_folder_swapped_for_a_link_after_install_is_not_followed(
    sandbox: Sandbox, link: str, command: tuple[str, ...]
) -> None:
    _install(sandbox, SEVEN, "claude_code")
    at = sandbox.project / link
    moved = sandbox.root / "moved"
    at.rename(moved)
    at.symlink_to(moved, target_is_directory=True)
    before = _world(sandbox)
    done = _uze(sandbox, *command, *(("--harness", "claude_code") if command[0] == "install"
                                     else ()))
    _refused(done, "symbolic link")
    assert str(at) in done.stderr
    _assert_untouched(sandbox, before)


# --- item 4: ownership and permissions of existing files -----------------------------------

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")


@needs_root
@pytest.mark.parametrize("mode", [0o444, 0o644, 0o640])
def test_a_file_another_user_owns_and_may_not_be_written_is_not_replaced(
    sandbox: Sandbox, mode: int
) -> None:
    agents = sandbox.project / "AGENTS.md"
    agents.write_text("# the owner's\n")
    os.chown(agents, NOBODY, NOBODY)
    agents.chmod(mode)
    before = _world(sandbox)
    _refused(_uze(sandbox, "install", SEVEN, "--harness", "codex"),
             f"AGENTS.md belongs to another user (uid {NOBODY})")
    _assert_untouched(sandbox, before)
    assert agents.stat().st_uid == NOBODY


@needs_root
def test_a_read_only_file_in_a_read_only_folder_is_not_replaced(sandbox: Sandbox) -> None:
    folder = sandbox.project
    agents = folder / "AGENTS.md"
    agents.write_text("# read only\n")
    agents.chmod(0o444)
    folder.chmod(0o555)
    try:
        before = _world(sandbox)
        _refused(_uze(sandbox, "install", SEVEN, "--harness", "codex"), "AGENTS.md is read-only")
        _assert_untouched(sandbox, before)
    finally:
        folder.chmod(0o755)


@needs_root
def test_a_file_another_user_lets_us_write_keeps_its_owner(sandbox: Sandbox) -> None:
    agents = sandbox.project / "AGENTS.md"
    agents.write_text("# shared\n")
    os.chown(agents, NOBODY, NOBODY)
    agents.chmod(0o666)
    _install(sandbox, SEVEN, "codex")
    assert "uze:begin seven" in agents.read_text()
    assert (agents.stat().st_uid, agents.stat().st_gid) == (NOBODY, NOBODY)
    assert agents.stat().st_mode & 0o777 == 0o666


@needs_root
def test_an_upgrade_that_would_replace_a_file_given_away_is_rolled_back(sandbox: Sandbox) -> None:
    _install(sandbox, SEVEN, "codex")
    agents = sandbox.project / "AGENTS.md"
    os.chown(agents, NOBODY, NOBODY)
    newer = sandbox.root / "seven-2"
    shutil.copytree(SEVEN, newer)
    (newer / "AGENTS.md").write_text("Changed instructions.\n")
    before = _world(sandbox)
    _refused(_uze(sandbox, "install", newer, "--harness", "codex"),
             f"cannot write {agents}", "belongs to another user")
    _assert_untouched(sandbox, before)


def test_a_file_where_a_folder_goes_is_a_clean_error(sandbox: Sandbox) -> None:
    (sandbox.project / ".claude").mkdir()
    (sandbox.project / ".claude/skills").write_text("a file, not a folder\n")
    before = _world(sandbox)
    done = _uze(sandbox, "install", SEVEN, "--harness", "claude_code")
    _refused(done, ".claude/skills")
    _assert_untouched(sandbox, before)


@pytest.mark.parametrize("name", ["uze.toml", "uze.lock"])
@pytest.mark.parametrize("command", [("install", str(SEVEN), "--harness", "claude_code,codex"),
                                     ("install",), ("uninstall", "seven")])
def test_a_manifest_or_lock_swapped_for_a_link_is_never_written_through(
    sandbox: Sandbox, name: str, command: tuple[str, ...]
) -> None:
    """uze.toml and uze.lock are written in every transaction that declares, pins or forgets a
    package (a re-install the shortcut answers and `uze install` alone included): a link put in
    their place, here to a file in HOME, is refused and the file it points at keeps its bytes."""
    _install(sandbox)
    at = sandbox.project / name
    victim = sandbox.home / "victim.txt"
    victim.write_text("the user's own file\n")
    at.unlink()
    at.symlink_to(victim)
    before = _world(sandbox)
    done = _uze(sandbox, *command)
    assert victim.read_text() == "the user's own file\n"
    if done.returncode == 0:  # a command that had nothing to write there
        _assert_untouched(sandbox, before)
    else:
        _refused(done, "symbolic link")
        _assert_untouched(sandbox, before)
