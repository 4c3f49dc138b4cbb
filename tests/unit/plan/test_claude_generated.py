"""A package Claude Code does not get whole still reaches it as one plugin folder uze generates,
so Claude Code lists `<package>:<name>` (adr/0048). Pure planning: no harness run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import build_tree
from uze.harnesses import Location
from uze.package import Package, read_package
from uze.paths import Paths
from uze.plan import labels
from uze.plan.model import Plan, PlannedFile, PlannedTree
from uze.plan.planner import plan_install

SKILL = "---\nname: plan\ndescription: Plan things.\n---\nPlan.\n"
FILES = {
    "plugin.json": json.dumps({"name": "kit", "version": "2.0.0", "description": "A kit."}),
    "skills/plan/SKILL.md": SKILL,
    "skills/plan/run.sh": "#!/bin/sh\necho plan\n",
    "commands/git/sync.md": "---\ndescription: Sync\n---\nSync $ARGUMENTS.\n",
    "agents/team/planner.md": "---\nname: planner\ndescription: Leads.\ntools: Read\n---\nLead.\n",
    "mcp.json": json.dumps({"mcpServers": {"srv": {"command": "srv"}}}),
}


def _package(tmp_path: Path, files: dict[str, str] | None = None, name: str = "kit") -> Package:
    root = build_tree(tmp_path / name, files or FILES)
    if (root / "skills/plan/run.sh").exists():
        (root / "skills/plan/run.sh").chmod(0o755)
    return read_package(root)


def _plan(tmp_path: Path, package: Package, harnesses: tuple[str, ...],
          scope: str = "project") -> Plan:
    paths = Paths(home=tmp_path / "home", uze_home=tmp_path / "uze", env={})
    loc = Location(scope, tmp_path / "project", paths)  # type: ignore[arg-type]
    return plan_install(package, "0" * 64, loc, harnesses)


def _plugin(plan: Plan) -> PlannedTree:
    (tree,) = [a for a in plan.artifacts
               if isinstance(a, PlannedTree) and a.target.endswith(f"skills/{plan.package.name}")]
    return tree


@pytest.mark.parametrize("scope", ["project", "user"])
def test_claude_code_gets_one_generated_plugin_with_the_package_labels(
    tmp_path: Path, scope: str
) -> None:
    plan = _plan(tmp_path, _package(tmp_path), ("claude_code", "codex"), scope)
    plugin = _plugin(plan)
    root = tmp_path / "project" / ".claude" if scope == "project" else tmp_path / "home/.claude"
    assert plugin.path == root / "skills" / "kit" and plugin.harnesses == ("claude_code",)
    assert json.loads(plugin.files[".claude-plugin/plugin.json"]) == {
        "name": "kit", "version": "2.0.0", "description": "A kit."}
    assert set(plugin.files) == {".claude-plugin/plugin.json", "skills/plan/SKILL.md",
                                 "skills/plan/run.sh", "commands/git/sync.md",
                                 "agents/team/planner.md"}
    assert plugin.executables == frozenset({"skills/plan/run.sh"})
    assert plugin.files["commands/git/sync.md"] == FILES["commands/git/sync.md"].encode()
    assert b"name: planner\n" in plugin.files["agents/team/planner.md"]
    assert b"tools: Read\n" in plugin.files["agents/team/planner.md"]  # Claude keys kept
    skill = plugin.files["skills/plan/SKILL.md"]
    assert skill == SKILL.replace("name: plan\n", "").encode()  # listed by its folder
    rows = {(p.kind, p.resource): p for p in plan.projections if p.harness == "claude_code"}
    assert {k: p.label for k, p in rows.items() if p.kind != "mcp"} == {
        ("skill", "plan"): "kit:plan", ("command", "sync"): "kit:git:sync",
        ("agent", "planner"): "kit:team:planner"}
    in_plugin = [p for p in rows.values() if p.kind in ("skill", "command", "agent")]
    assert {p.path for p in in_plugin} == {plugin.path}
    trusted = "Claude Code loads a project's plugins once its workspace is trusted"
    assert all((trusted in p.reason) == (scope == "project") for p in in_plugin)
    assert rows[("mcp", "srv")].target.endswith("#mcpServers.srv")  # MCP stays where it was
    assert rows[("mcp", "srv")].label == "srv"
    codex = {p.resource: p.label for p in plan.projections if p.harness == "codex"}
    assert codex["plan"] == "kit-plan" and codex["planner"] == "kit-team-planner"
    assert not [a for a in plan.artifacts if isinstance(a, PlannedFile)
                and "claude_code" in a.harnesses]  # no loose command or agent file


@pytest.mark.parametrize("scope", ["project", "user"])
def test_opencode_gets_its_own_copy_outside_claude_codes_skill_root(
    tmp_path: Path, scope: str
) -> None:
    """OpenCode scans `.claude/skills/**/SKILL.md` but lists no SKILL.md without a `name`: it
    never sees the plugin's copy, and a flat copy in `.claude/skills` would be a second one for
    Claude Code, so OpenCode's copy goes to a root Claude Code does not read."""
    plan = _plan(tmp_path, _package(tmp_path), ("claude_code", "opencode"), scope)
    plugin = _plugin(plan)
    assert plugin.harnesses == ("claude_code",)
    (own,) = [a for a in plan.artifacts if isinstance(a, PlannedTree) and a is not plugin]
    assert own.harnesses == ("opencode",) and own.path.name == "kit-plan"
    assert own.path.parent != plugin.path.parent
    assert own.files["SKILL.md"].startswith(b"---\nname: kit-plan\n")
    opencode = next(p for p in plan.projections if (p.kind, p.harness) == ("skill", "opencode"))
    assert (opencode.label, opencode.route, opencode.path) == ("kit-plan", "native", own.path)
    assert b"name:" not in plugin.files["skills/plan/SKILL.md"]


def test_a_skills_policy_keys_are_kept_and_its_name_dropped_in_the_plugin(tmp_path: Path) -> None:
    files = {**FILES, "skills/plan/SKILL.md": "---\nname: plan\ndescription: Plan.\n"
             "invoke:\n  model: false\n---\nPlan.\n"}
    plugin = _plugin(_plan(tmp_path, _package(tmp_path, files), ("claude_code",)))
    assert plugin.files["skills/plan/SKILL.md"] == (
        b"---\ndescription: Plan.\ndisable-model-invocation: true\n---\nPlan.\n")


def test_two_packages_with_one_skill_name_never_share_a_name_in_a_harness(
    tmp_path: Path
) -> None:
    packages = [_package(tmp_path, {**FILES, "plugin.json": json.dumps({"name": name})}, name)
                for name in ("one", "two")]
    names = set()
    for package in packages:
        plan = _plan(tmp_path, package, ("claude_code", "opencode"))
        names |= {p.label for p in plan.projections if p.kind == "skill"}
        assert b"name:" not in _plugin(plan).files["skills/plan/SKILL.md"]  # OpenCode: unseen
    assert names == {"one:plan", "one-plan", "two:plan", "two-plan"}


def test_a_package_with_nothing_claude_code_lists_gets_no_plugin_folder(tmp_path: Path) -> None:
    files = {"plugin.json": FILES["plugin.json"], "mcp.json": FILES["mcp.json"]}
    plan = _plan(tmp_path, _package(tmp_path, files), ("claude_code",))
    assert not [a for a in plan.artifacts if isinstance(a, PlannedTree)]


def test_every_label_comes_from_the_one_label_module(tmp_path: Path) -> None:
    package = _package(tmp_path)
    plan = _plan(tmp_path, package, ("claude_code", "opencode", "codex"))
    (skill,), (command,), (agent,) = package.skills, package.commands, package.agents
    for p in plan.projections:
        if p.kind == "skill":
            assert p.label == labels.skill(p.harness, package, skill)
        elif p.kind == "agent":
            assert p.label == labels.agent(p.harness, package, agent)
        elif p.kind == "command":
            surface = p.harness != "codex"  # Codex gets a command as a user-invoked skill
            assert p.label == labels.command(p.harness, package, command, surface=surface)
