"""uze.plan.switches: what a plan with part of a package switched off plans (pure)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import DATA
from uze.errors import UzeError
from uze.harnesses import Location
from uze.package import read_package
from uze.paths import Paths
from uze.plan.model import Plan, PlannedElement, PlannedEntry, PlannedTree
from uze.plan.planner import plan_install
from uze.plan.switches import plan_switched
from uze.state.receipts import Off

BOTH = ("claude_code", "codex")


def _loc(tmp_path: Path, scope: str = "project") -> Location:
    paths = Paths(home=tmp_path / "home", uze_home=tmp_path / "uze", env={})
    return Location(scope, tmp_path / "project", paths)  # type: ignore[arg-type]


def _plan(tmp_path: Path, off: tuple[Off, ...], scope: str = "project",
          harnesses: tuple[str, ...] = BOTH) -> Plan:
    return plan_switched(read_package(DATA / "every-kind"), "0" * 64, _loc(tmp_path, scope),
                         harnesses, off)


def _targets(plan: Plan) -> set[str]:
    return {a.target for a in plan.artifacts}


def test_nothing_off_is_the_plain_plan(tmp_path: Path) -> None:
    plain = plan_install(read_package(DATA / "every-kind"), "0" * 64, _loc(tmp_path), BOTH)
    assert _plan(tmp_path, ()) == plain


@pytest.mark.parametrize(("scope", "settings"), [("project", ".claude/settings.json"),
                                                 ("user", "~/.claude/settings.json")])
def test_claude_code_keeps_its_plugin_folder_and_gets_enabled_plugins_false(
        tmp_path: Path, scope: str, settings: str) -> None:
    plan = _plan(tmp_path, (Off(harness="claude_code"),), scope)
    entry = next(a for a in plan.artifacts if isinstance(a, PlannedEntry)
                 and a.key_path[0] == "enabledPlugins")
    assert (entry.target, entry.key_path, entry.value) == (
        settings, ("enabledPlugins", "every-kind@skills-dir"), False)
    assert any(isinstance(a, PlannedTree) and a.target.endswith("skills/every-kind")
               for a in plan.artifacts)
    assert not any("claude_code" in a.harnesses for a in plan.artifacts
                   if a is not entry and not a.target.endswith("skills/every-kind"))
    off = {(p.resource, p.harness) for p in plan.projections}
    assert ("review", "claude_code") in off and plan.disabled == (Off(harness="claude_code"),)


def test_a_resource_off_everywhere_leaves_its_files_out(tmp_path: Path) -> None:
    plan = _plan(tmp_path, (Off(resource="review"),))
    assert ".agents/skills/every-kind-review" not in _targets(plan)
    folder = next(a for a in plan.artifacts if isinstance(a, PlannedTree)
                  and a.target == ".claude/skills/every-kind")
    assert not any(rel.startswith("skills/review/") for rel in folder.files)
    assert any(rel.startswith("skills/ship/") for rel in folder.files)


def test_consent_covers_the_whole_package_whatever_is_off(tmp_path: Path) -> None:
    whole = _plan(tmp_path, ())
    assert _plan(tmp_path, (Off(),)).trust == whole.trust
    assert _plan(tmp_path, (Off(harness="codex"),)).executions == whole.executions


def test_an_artifact_read_by_a_harness_left_on_is_refused(tmp_path: Path) -> None:
    harnesses = ("codex", "opencode")  # both read .agents/skills
    with pytest.raises(UzeError) as one:
        _plan(tmp_path, (Off(resource="review", harness="codex"),), harnesses=harnesses)
    assert "codex reads .agents/skills/every-kind-review with opencode" in one.value.message
    with pytest.raises(UzeError) as whole:
        _plan(tmp_path, (Off(harness="codex"),), harnesses=harnesses)
    assert "codex reads AGENTS.md with opencode" in whole.value.message
    assert whole.value.hint is not None and "--harness codex,opencode" in whole.value.hint
    both = _plan(tmp_path, (Off(resource="review", harness="codex"),
                            Off(resource="review", harness="opencode")), harnesses=harnesses)
    assert ".agents/skills/every-kind-review" not in _targets(both)


def _skill_switches(plan: Plan) -> list[tuple[str, tuple[str, ...], object, tuple[str, ...]]]:
    return [(a.target, a.key_path, a.value, a.harnesses) for a in plan.artifacts
            if isinstance(a, PlannedElement) and a.key_path[0] == "skills"]


@pytest.mark.parametrize(("scope", "home"), [("project", ""), ("user", "~/")])
def test_a_skill_off_by_the_harness_own_switch_keeps_the_folder_others_read(
        tmp_path: Path, scope: str, home: str) -> None:
    """adr/0098: Gemini CLI's `skills.disabled` in both scopes, Codex's `[[skills.config]]` in
    its user config.toml only (0.171.0 ignores it in .codex/config.toml): the shared folder
    stays for OpenCode, the projection is `disabled`, nothing else changes."""
    harnesses = ("codex", "gemini_cli", "opencode")
    plain = _plan(tmp_path, (), scope, harnesses)
    off = (Off(resource="review", harness="gemini_cli"),)
    gemini = _plan(tmp_path, off, scope, harnesses)
    assert _skill_switches(gemini) == [(f"{home}.gemini/settings.json", ("skills", "disabled"),
                                        "every-kind-review", ("gemini_cli",))]
    assert [a for a in gemini.artifacts if not isinstance(a, PlannedElement)
            or a.key_path[0] != "skills"] == list(plain.artifacts)
    assert gemini.disabled == off
    codex = (Off(resource="review", harness="codex"),)
    if scope == "project":
        with pytest.raises(UzeError):  # removal of the folder OpenCode reads: refused
            _plan(tmp_path, codex, scope, harnesses)
        return
    assert _skill_switches(_plan(tmp_path, codex, scope, harnesses)) == [
        ("~/.codex/config.toml", ("skills", "config"),
         {"name": "every-kind-review", "enabled": False}, ("codex",))]
    every = _plan(tmp_path, (*codex, *off, Off(resource="review", harness="opencode")), scope,
                  harnesses)  # removed for OpenCode: the folder goes, for all three then
    assert _skill_switches(every) == [] and f"{home}.agents/skills/every-kind-review" \
        not in _targets(every)


def test_off_spelled_in_the_lock_reads_back() -> None:
    for off in (Off(), Off(harness="codex"), Off(resource="review"),
                Off(resource="review", harness="codex")):
        assert Off.from_lock(off.locked()) == off
    assert Off(resource="review", harness="codex").spelled("kit") == "kit:review in codex"
