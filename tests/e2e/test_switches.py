"""`uze disable` and `uze enable` through the real uze (ADR 0087): Claude Code switched off by
its own `enabledPlugins`, Codex by removing what uze owns; everything written back byte for
byte from the store; an edit kept and named; the switch kept by re-install, status, uze.lock
and a clone's `uze install`; bad input refused with nothing written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import EVERY_KIND, HARNESSES, Uze, as_json, assert_ok, person, snapshot
from tests.helpers import tree_bytes

pytestmark = pytest.mark.e2e
NAME = "every-kind"
PLUGIN = ".claude/skills/every-kind"
RECEIPT = ".uze/receipts/every-kind.json"


def _receipt(project: Path) -> dict[str, Any]:
    """The receipt without its `seq` counters (the order of config adds, which only grows)."""
    data = json.loads((project / RECEIPT).read_bytes())
    for artifact in data["artifacts"]:
        artifact.pop("seq", None)
    return dict(data)


def _without_receipt(tree: dict[str, bytes | str]) -> dict[str, bytes | str]:
    return {k: v for k, v in tree.items() if k != RECEIPT}


def _states(uze: Uze) -> dict[tuple[str, str, str], str]:
    document = as_json(assert_ok(uze("status", NAME, "--json")))
    return {(p["kind"], p["resource"], p["harness"]): p["state"]
            for p in document["packages"][0]["projections"]}


def test_disable_in_claude_code_by_its_setting_and_in_codex_by_removal_then_enable_restores(
        sandbox: Sandbox, uze: Uze) -> None:
    project = sandbox.project
    assert_ok(uze("install", EVERY_KIND, *HARNESSES))
    installed, receipt = snapshot(sandbox), _receipt(project)
    plugin = tree_bytes(project / PLUGIN)
    codex = {k: v for k, v in installed["project"].items() if k.startswith((".agents", ".codex"))}

    out = assert_ok(uze("disable", NAME, "--harness", "claude_code")).stdout

    assert out.startswith("Disabled every-kind in claude_code\n")
    settings = json.loads((project / ".claude/settings.json").read_bytes())
    assert settings == {"enabledPlugins": {"every-kind@skills-dir": False}}  # its hooks gone
    assert tree_bytes(project / PLUGIN) == plugin  # the plugin stays, switched off
    assert not (project / ".mcp.json").exists() and not (project / "CLAUDE.md").exists()
    now = snapshot(sandbox)["project"]
    assert {k: v for k, v in now.items() if k.startswith((".agents", ".codex"))} == codex
    states = _states(uze)
    assert {s for (_k, _r, h), s in states.items() if h == "claude_code"} == {"disabled"}
    assert {s for (_k, _r, h), s in states.items() if h == "codex"} <= {"matched", "undelivered"}
    assert 'disabled = ["*@claude_code"]\n' in (project / "uze.lock").read_text()
    assert_ok(uze("status", "--check"))  # switched off is as uze.toml + uze.lock say

    out = assert_ok(uze("disable", NAME, "--harness", "codex")).stdout

    assert "removed: .agents/skills/every-kind-review" in out
    left = snapshot(sandbox)["project"]
    assert not any(k.startswith((".agents", ".codex", ".uze/packages", ".uze/hooks"))
                   for k, v in left.items() if v != "dir")  # folders uze made stay, empty
    assert tree_bytes(project / PLUGIN) == plugin
    assert set(_states(uze).values()) == {"disabled"}
    glance = assert_ok(uze("status")).stdout
    assert "switched off (uze enable)" in glance and "off" in glance.splitlines()[1]
    assert 'disabled = ["*@claude_code", "*@codex"]\n' in (project / "uze.lock").read_text()

    out = assert_ok(uze("enable", NAME)).stdout

    assert out.startswith("Enabled every-kind\n") and "written back: CLAUDE.md#every-kind" in out
    after = snapshot(sandbox)
    assert _without_receipt(after["project"]) == _without_receipt(installed["project"])
    assert after["home"] == installed["home"]
    assert _receipt(project) == receipt
    assert "already enabled: nothing changed" in assert_ok(uze("enable", NAME)).stdout


def test_one_resource_everywhere_then_in_one_harness(sandbox: Sandbox, uze: Uze) -> None:
    project = sandbox.project
    assert_ok(uze("install", EVERY_KIND, *HARNESSES))
    installed = snapshot(sandbox)["project"]

    assert_ok(uze("disable", f"{NAME}:review"))

    assert not (project / ".agents/skills/every-kind-review").exists()
    assert not (project / PLUGIN / "skills/review").exists()
    assert (project / PLUGIN / "skills/ship/SKILL.md").is_file()
    states = _states(uze)
    assert states[("skill", "review", "claude_code")] == "disabled"
    assert states[("skill", "review", "codex")] == "disabled"
    assert states[("skill", "ship", "codex")] == "matched"

    assert_ok(uze("enable", f"{NAME}:review", "--harness", "claude_code"))

    assert (project / PLUGIN / "skills/review").is_dir()
    assert not (project / ".agents/skills/every-kind-review").exists()
    assert 'disabled = ["review@codex"]\n' in (project / "uze.lock").read_text()

    assert_ok(uze("enable", f"{NAME}:review"))

    assert _without_receipt(snapshot(sandbox)["project"]) == _without_receipt(installed)


def test_an_edited_artifact_is_kept_and_named(sandbox: Sandbox, uze: Uze) -> None:
    project = sandbox.project
    assert_ok(uze("install", EVERY_KIND, *HARNESSES))
    skill = project / ".agents/skills/every-kind-ship/SKILL.md"
    skill.write_bytes(skill.read_bytes() + b"mine\n")
    edited = skill.read_bytes()

    out = assert_ok(uze("disable", f"{NAME}:ship")).stdout

    assert "kept (edited): .agents/skills/every-kind-ship" in out
    assert "now belongs to you" in out
    assert skill.read_bytes() == edited
    assert not (project / PLUGIN / "skills/ship").exists()  # unedited: switched off


def test_the_switch_survives_reinstall_and_reaches_a_clone(sandbox: Sandbox, uze: Uze) -> None:
    project = sandbox.project
    shutil.copytree(EVERY_KIND, project / "pkgs" / NAME)
    assert_ok(uze("install", f"./pkgs/{NAME}", *HARNESSES))
    assert_ok(uze("disable", NAME, "--harness", "claude_code"))
    switched = snapshot(sandbox)["project"]

    assert_ok(uze("install", f"./pkgs/{NAME}", *HARNESSES))  # re-install keeps it
    assert_ok(uze("install", "--trust"))  # so does a converge

    assert _without_receipt(snapshot(sandbox)["project"]) == _without_receipt(switched)
    clone = sandbox.root / "clone"
    clone.mkdir()
    (clone / ".git").mkdir()
    shutil.copytree(project / "pkgs", clone / "pkgs")
    for name in ("uze.toml", "uze.lock"):
        shutil.copy(project / name, clone / name)

    assert_ok(uze("install", "--trust", cwd=clone, env=person(sandbox.root, "mate")))

    assert json.loads((clone / ".claude/settings.json").read_bytes()) == {
        "enabledPlugins": {"every-kind@skills-dir": False}}
    assert not (clone / "CLAUDE.md").exists() and (clone / ".agents/skills").is_dir()
    assert (clone / "uze.lock").read_bytes() == (project / "uze.lock").read_bytes()


BAD = {
    "unknown package": (("disable", "every-knd"), 1, "did you mean 'every-kind'?"),
    "unknown resource": (("disable", "every-kind:reviw"), 1, "did you mean 'review'?"),
    "harness not installed": (("disable", NAME, "--harness", "gemini"), 2,
                              "it is installed for claude_code, codex"),
    "unknown harness": (("enable", NAME, "--harness", "codx"), 2, "did you mean 'codex'?"),
    "empty resource": (("disable", "every-kind:"), 2, "NAME:RESOURCE"),
}


@pytest.mark.parametrize(("args", "code", "hint"), BAD.values(), ids=BAD.keys())
def test_bad_input_is_refused_with_nothing_written(
        sandbox: Sandbox, uze: Uze, args: tuple[str, ...], code: int, hint: str) -> None:
    assert_ok(uze("install", EVERY_KIND, *HARNESSES))
    before = snapshot(sandbox)

    result = uze(*args)

    assert result.returncode == code, result.stderr
    assert result.stderr.startswith("uze: error: ") and hint in result.stderr
    assert snapshot(sandbox) == before


def test_dry_run_writes_nothing_and_json_names_each_action(sandbox: Sandbox, uze: Uze) -> None:
    assert_ok(uze("install", EVERY_KIND, *HARNESSES, "--scope", "user"))
    before = snapshot(sandbox)

    dry = assert_ok(uze("disable", NAME, "--harness", "claude", "--scope", "user", "--dry-run"))

    assert dry.stdout.startswith("Dry run, nothing written: would switch off every-kind in "
                                 "claude_code\n")
    assert snapshot(sandbox) == before
    document = as_json(assert_ok(uze("disable", NAME, "--harness", "claude", "--scope", "user",
                                      "--json")))

    assert document["disabled"] == [{"resource": "", "harness": "claude_code"}]
    assert {"target": '~/.claude/settings.json#enabledPlugins."every-kind@skills-dir"',
            "action": "create", "detail": ""} in document["actions"]
    settings = json.loads((sandbox.home / ".claude/settings.json").read_bytes())
    assert settings["enabledPlugins"] == {"every-kind@skills-dir": False}
    assert (sandbox.home / ".claude/skills/every-kind/.claude-plugin/plugin.json").is_file()
