"""`uze status` and `uze list` read uze.toml and uze.lock; `uze status --check` is the CI gate
(issue 30 items 2, 3 and 6, adr/0062).

A lead installs a package from a folder in the project and commits; a teammate clones it into
another HOME and UZE_HOME (`.uze/` stays on the lead's machine), and sees what is declared
before installing; after a pull that moves the lock, status names the move and `uze install`
applies it; edits are named per file; the gate exits 1 on every kind of difference.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, as_json, assert_ok, person
from tests.gitserve import Repo, git
from tests.helpers import build_tree, tree_bytes

pytestmark = pytest.mark.e2e
HARNESS = ("--harness", "claude_code,codex")


def _package(name: str, version: str, body: str) -> dict[str, str]:
    return {f"plugins/{name}/plugin.json": f'{{"name": "{name}", "version": "{version}"}}\n',
            f"plugins/{name}/skills/one/SKILL.md":
                f"---\nname: one\ndescription: One.\n---\n{body}\n"}


@pytest.fixture
def team(uze: Uze, sandbox: Sandbox) -> tuple[Path, Path, dict[str, str]]:
    """(the lead's project, the teammate's fresh clone, the teammate's environment): two
    folder packages installed by the lead and committed."""
    lead = sandbox.project
    (lead / ".git").rmdir()
    git("init", "-q", ".", cwd=lead)
    build_tree(lead, {**_package("flow", "1.0.0", "v1"), **_package("notes", "2.0.0", "n")})
    for name in ("flow", "notes"):
        assert_ok(uze("install", f"./plugins/{name}", *HARNESS))
    git("add", "-A", cwd=lead)
    git("commit", "-q", "-m", "packages", cwd=lead)
    clone = sandbox.root / "mate" / "project"
    git("clone", "-q", lead, clone, cwd=sandbox.root)
    return lead, clone, person(sandbox.root, "mate")


def test_a_fresh_clone_shows_what_is_declared_and_the_one_command_that_installs_it(
        uze: Uze, team: tuple[Path, Path, dict[str, str]]) -> None:
    _lead, clone, mate = team
    assert not (clone / ".uze").exists()
    shown = assert_ok(uze("status", cwd=clone, env=mate)).stdout
    assert "No packages installed" not in shown
    assert "declare 2 packages" in shown
    assert re.search(r"flow 1\.0\.0 from \./plugins/flow: not installed here", shown), shown
    assert "fix: `uze install`" in shown
    listed = as_json(assert_ok(uze("list", "--json", cwd=clone, env=mate)))["packages"]
    assert [(p["name"], p["state"], p["fix"]) for p in listed] == [
        ("flow", "not installed", "`uze install`"), ("notes", "not installed", "`uze install`")]
    assert "not installed here" in assert_ok(uze("list", cwd=clone, env=mate)).stdout

    gate = uze("status", "--check", cwd=clone, env=mate)
    assert gate.returncode == 1, gate.stderr
    assert "flow 1.0.0 (tree " in gate.stdout and "2 differences" in gate.stdout
    assert gate.stdout.count("run `uze install`") == 2
    document = as_json(uze("status", "--check", "--json", cwd=clone, env=mate))
    assert {(d["name"], d["problem"]) for d in document["differences"]} == {
        ("flow", "not installed"), ("notes", "not installed")}
    assert {d["name"]: d["state"] for d in document["declared"]} == {
        "flow": "not installed", "notes": "not installed"}

    assert_ok(uze("install", cwd=clone, env=mate))
    assert git("status", "--porcelain", "--untracked-files=all", cwd=clone) == ""
    passed = assert_ok(uze("status", "--check", cwd=clone, env=mate))
    assert "2 packages installed as pinned" in passed.stdout
    assert as_json(uze("status", "--json", cwd=clone, env=mate))["differences"] == []


def test_after_a_pull_that_moves_the_lock_status_says_so_and_install_applies_it(
        uze: Uze, team: tuple[Path, Path, dict[str, str]]) -> None:
    lead, clone, mate = team
    assert_ok(uze("install", cwd=clone, env=mate))
    build_tree(lead, _package("flow", "1.1.0", "v2"))
    assert_ok(uze("install", "./plugins/flow"))
    git("commit", "-q", "-am", "flow 1.1.0", cwd=lead)
    git("pull", "-q", cwd=clone)

    shown = assert_ok(uze("status", cwd=clone, env=mate)).stdout
    assert re.search(r"uze\.lock moved flow to 1\.1\.0 \(tree [0-9a-f]{12}\) \(1\.0\.0 installed "
                     r"here\): run `uze install`", shown), shown
    assert "drifted" not in shown and "--force" not in shown
    gate = uze("status", "--check", "--json", cwd=clone, env=mate)
    assert gate.returncode == 1
    assert [(d["name"], d["problem"]) for d in as_json(gate)["differences"]] == [
        ("flow", "other pin")]

    assert_ok(uze("install", cwd=clone, env=mate))
    assert_ok(uze("status", "--check", cwd=clone, env=mate))
    skill = clone / ".claude/skills/flow/skills/one/SKILL.md"
    assert skill.read_text().endswith("v2\n")
    assert git("status", "--porcelain", "--untracked-files=all", cwd=clone) == ""


def test_the_gate_names_each_edited_file_each_waiting_new_version_and_the_undeclared(
        uze: Uze, team: tuple[Path, Path, dict[str, str]]) -> None:
    lead, _clone, _mate = team
    skill = ".claude/skills/flow/skills/one/SKILL.md"
    (lead / skill).write_text("mine\n")
    build_tree(lead, {".agents/skills/notes-one/SKILL.md.uze-new": "theirs\n"})
    gate = uze("status", "--check")
    assert gate.returncode == 1
    assert f"    {skill} (edited)" in gate.stdout
    assert "fix: `uze install --force` puts the locked bytes back" in gate.stdout
    assert ".agents/skills/notes-one/SKILL.md.uze-new: a new version waiting" in gate.stdout
    assert "<its folder>" not in gate.stdout
    found = {d["name"]: d for d in as_json(uze("status", "--json"))["differences"]}
    assert found["flow"]["files"] == [f"{skill} (edited)"]
    assert found["notes"]["waiting"] == [".agents/skills/notes-one/SKILL.md.uze-new"]

    (lead / ".agents/skills/notes-one/SKILL.md.uze-new").unlink()
    assert_ok(uze("install", "--force"))
    assert_ok(uze("status", "--check"))
    manifest = lead / "uze.toml"
    manifest.write_text(manifest.read_text().replace('notes = "./plugins/notes"\n', ""))
    gate = uze("status", "--check")
    assert gate.returncode == 1
    assert "notes is installed here but not declared in uze.toml: run `uze uninstall notes`" \
        in gate.stdout
    assert_ok(uze("uninstall", "notes"))
    assert_ok(uze("status", "--check"))
    lock = (lead / "uze.lock").read_bytes()
    git("checkout", "uze.lock", cwd=lead)
    gate = uze("status", "--check")
    assert gate.returncode == 1
    assert "uze.lock pins notes, uze.toml does not declare it: run `uze install`" in gate.stdout
    assert_ok(uze("install"))
    assert (lead / "uze.lock").read_bytes() == lock
    assert_ok(uze("status", "--check"))


def test_an_unreadable_lock_fails_the_gate_with_its_location(uze: Uze, sandbox: Sandbox) -> None:
    build_tree(sandbox.project, _package("flow", "1.0.0", "v1"))
    assert_ok(uze("install", "./plugins/flow", *HARNESS))
    lock = sandbox.project / "uze.lock"
    lock.write_text(lock.read_text() + "<<<<<<< HEAD\n")
    gate = uze("status", "--check")
    assert gate.returncode == 1 and gate.stderr == ""
    assert "uze.lock" in gate.stdout and "1 difference" in gate.stdout
    plain = assert_ok(uze("status"))
    assert "uze.lock" in plain.stdout


def test_update_reads_the_marketplace_catalog_again_and_outdated_writes_nothing(
        uze: Uze, sandbox: Sandbox) -> None:
    market = Repo(sandbox.root / "served" / "market.git")
    catalog = {"name": "team", "owner": {"name": "T"}, "plugins": [
        {"name": name, "source": f"./plugins/{name}"} for name in ("flow", "notes")]}
    market.commit({".claude-plugin/marketplace.json": json.dumps(catalog),
                   **_package("flow", "1.0.0", "v1"), **_package("notes", "2.0.0", "n")})
    assert_ok(uze("marketplace", "add", f"git+{market.url}"))
    for name in ("flow", "notes"):
        assert_ok(uze("install", f"{name}@team", *HARNESS))
    released = market.commit(_package("flow", "1.1.0", "v2"), "flow 1.1.0")

    before = tree_bytes(sandbox.uze_home), tree_bytes(sandbox.project)
    report = as_json(assert_ok(uze("outdated", "--json")))["packages"]
    assert {p["name"]: (p["state"], p["current_commit"]) for p in report} == {
        "flow": ("outdated", released), "notes": ("current", released)}  # per plugin (adr/0074)
    assert (tree_bytes(sandbox.uze_home), tree_bytes(sandbox.project)) == before

    done = assert_ok(uze("update", "flow"))
    assert re.search(r"flow: 1\.0\.0 -> 1\.1\.0 \([0-9a-f]{12} -> " + released[:12], done.stdout)
    assert f'commit = "{released}"' in (sandbox.project / "uze.lock").read_text()
    skill = sandbox.project / ".claude/skills/flow/skills/one/SKILL.md"
    assert skill.read_text().endswith("v2\n")
    registry = json.loads((sandbox.uze_home / "marketplaces" / "registry.json").read_text())
    assert registry["marketplaces"]["team"]["commit"] == released
    assert_ok(uze("status", "--check"))
