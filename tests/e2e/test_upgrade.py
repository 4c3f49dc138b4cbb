"""Upgrades decide per file: unedited -> replaced, edited -> kept (+ .uze-new if changed
upstream)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.helpers import DATA, run_uze, tree_bytes

pytestmark = pytest.mark.e2e


def _versions(root: Path) -> tuple[Path, Path]:
    v1, v2 = root / "v1", root / "v2"
    shutil.copytree(DATA / "seven", v1)
    shutil.copytree(DATA / "seven", v2)
    manifest = json.loads((v2 / "plugin.json").read_text())
    (v2 / "plugin.json").write_text(json.dumps({**manifest, "version": "3.0.0"}))
    (v2 / "AGENTS.md").write_text("Keep diffs small.\nRun the whole suite.\n")
    (v2 / "skills/lint/references/rules.md").write_text(
        "# Rules\n\n1. No unused imports.\n2. No prints.\n")
    lint = (v2 / "skills/lint/SKILL.md").read_text()
    (v2 / "skills/lint/SKILL.md").write_text(lint.replace("house rules", "house rules, strictly"))
    shutil.rmtree(v2 / "skills/logo")
    return v1, v2


def _install(sandbox: Sandbox, source: Path, *extra: str) -> dict:  # type: ignore[type-arg]
    done = run_uze("install", source, "--harness", "claude_code", "--json", *extra,
                   cwd=sandbox.project)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_unedited_artifacts_are_replaced_and_removed_ones_go(sandbox: Sandbox) -> None:
    v1, v2 = _versions(sandbox.root)
    _install(sandbox, v1)
    result = _install(sandbox, v2)
    skills = sandbox.project / ".claude/skills/seven/skills"  # its plugin folder (adr/0048)
    assert (skills / "lint/references/rules.md").read_bytes() == (
        v2 / "skills/lint/references/rules.md").read_bytes()
    assert not (skills / "logo").exists()
    assert "strictly" in (skills / "lint/SKILL.md").read_text()
    actions = {a["target"]: a["action"] for a in result["actions"]}
    assert actions[".claude/skills/seven"] == "replace"
    receipt = json.loads((sandbox.project / ".uze/receipts/seven.json").read_text())
    assert receipt["version"] == "3.0.0"


def test_an_edited_file_changed_upstream_is_kept_and_the_new_one_written_beside_it(
    sandbox: Sandbox,
) -> None:
    v1, v2 = _versions(sandbox.root)
    _install(sandbox, v1)
    lint = sandbox.project / ".claude/skills/seven/skills/lint"
    edited = (lint / "SKILL.md").read_bytes() + b"\nMy own note.\n"
    (lint / "SKILL.md").write_bytes(edited)
    result = _install(sandbox, v2)
    assert (lint / "SKILL.md").read_bytes() == edited
    assert "strictly" in (lint / "SKILL.md.uze-new").read_text()
    # the unedited file in the same folder still moves to the new version
    assert b"No prints" in (lint / "references/rules.md").read_bytes()
    merged = next(a for a in result["actions"] if a["target"] == ".claude/skills/seven")
    assert merged["action"] == "merge" and ".uze-new" in merged["detail"]
    status = json.loads(run_uze("status", "seven", "--json", cwd=sandbox.project).stdout)
    lint_row = next(p for p in status["packages"][0]["projections"] if p["resource"] == "lint")
    assert lint_row["state"] == "drifted"


def test_an_edited_region_is_kept_and_the_new_text_is_reported(sandbox: Sandbox) -> None:
    v1, v2 = _versions(sandbox.root)
    _install(sandbox, v1)
    claude_md = sandbox.project / "CLAUDE.md"
    edited = claude_md.read_bytes().replace(b"Keep diffs small.", b"Keep diffs tiny.")
    claude_md.write_bytes(edited)
    result = _install(sandbox, v2)
    assert claude_md.read_bytes() == edited
    kept = next(a for a in result["actions"] if a["target"] == "CLAUDE.md#seven")
    assert kept["action"] == "kept" and "Run the whole suite." in kept["new_value"]
    human = run_uze("install", v2, "--harness", "claude_code", cwd=sandbox.project)
    assert "kept CLAUDE.md#seven" in human.stdout and "Run the whole suite." in human.stdout


def test_an_edit_the_new_version_does_not_touch_is_kept_without_a_new_file(
    sandbox: Sandbox,
) -> None:
    v1, v2 = _versions(sandbox.root)
    _install(sandbox, v1)
    agent = sandbox.project / ".claude/skills/seven/agents/reviewer.md"
    agent.write_bytes(agent.read_bytes() + b"Be kind.\n")
    before = agent.read_bytes()
    _install(sandbox, v2)
    assert agent.read_bytes() == before
    assert not agent.with_name(agent.name + ".uze-new").exists()


def test_force_takes_the_new_version_of_every_edited_artifact(sandbox: Sandbox) -> None:
    v1, v2 = _versions(sandbox.root)
    _install(sandbox, v1)
    lint = sandbox.project / ".claude/skills/seven/skills/lint/SKILL.md"
    lint.write_bytes(lint.read_bytes() + b"mine\n")
    _install(sandbox, v2, "--force")
    assert b"mine" not in lint.read_bytes() and b"strictly" in lint.read_bytes()
    status = json.loads(run_uze("status", "--json", cwd=sandbox.project).stdout)
    projections = status["packages"][0]["projections"]
    assert {p["state"] for p in projections if p["route"] != "unsupported"} == {"matched"}


def test_uninstall_after_an_upgrade_restores_the_original_tree(sandbox: Sandbox) -> None:
    v1, v2 = _versions(sandbox.root)
    (sandbox.project / "CLAUDE.md").write_bytes(b"# Mine\r\n")
    before = tree_bytes(sandbox.project)
    _install(sandbox, v1)
    _install(sandbox, v2)
    assert run_uze("uninstall", "seven", cwd=sandbox.project).returncode == 0
    assert tree_bytes(sandbox.project) == before
