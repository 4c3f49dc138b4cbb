"""Which packages Claude Code gets whole as its own plugin, and the labels it lists (adr/0041).
Pure planning: a package read from a tree written here, no harness run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import build_tree
from uze.harnesses import Location
from uze.package import read_package
from uze.paths import Paths
from uze.plan import claude_plugin
from uze.plan.model import PlannedTree
from uze.plan.planner import plan_install

MANIFEST = json.dumps({"name": "kit", "version": "1.0.0"})
FILES = {
    ".claude-plugin/plugin.json": MANIFEST,
    "skills/plan/SKILL.md": "---\nname: plan\ndescription: Plan.\n---\nPlan.\n",
    "commands/git/sync.md": "---\ndescription: Sync\n---\nSync.\n",
    "agents/team/planner.md": "---\nname: lead\ndescription: Leads.\n---\nLead.\n",
}


def _package(tmp_path: Path, **extra: str):  # type: ignore[no-untyped-def]
    return read_package(build_tree(tmp_path / "kit", {**FILES, **extra}))


def test_labels_are_what_claude_code_lists_for_a_plugin(tmp_path: Path) -> None:
    package = _package(tmp_path)
    labels = {(kind, name): label
              for kind, name, label, _ in claude_plugin.resources(package, "claude_code")}
    assert labels == {("skill", "plan"): "kit:plan", ("command", "sync"): "kit:git:sync",
                      ("agent", "lead"): "kit:team:lead"}


@pytest.mark.parametrize(
    ("extra", "whole"),
    [({}, True),
     ({".claude-plugin/plugin.json": json.dumps({"name": "kit", "category": "x"})}, True),
     ({"plugin.json": MANIFEST}, False),
     ({"skills/Bad Name/SKILL.md": "---\ndescription: x\n---\nx\n"}, False),
     ({".mcp.json": json.dumps({"s": {"command": "${PLUGIN_ROOT}/s"}})}, False),
     ({".mcp.json": json.dumps({"s": {"command": "${CLAUDE_PLUGIN_ROOT}/s"}})}, True)],
    ids=["clean", "unknown-key", "portable-manifest", "renamed-skill", "plugin-root",
         "claude-plugin-root"],
)
def test_only_a_claude_native_package_read_whole_is_handed_over_whole(
    tmp_path: Path, extra: dict[str, str], whole: bool
) -> None:
    assert claude_plugin.delivered_whole(_package(tmp_path, **extra)) is whole


@pytest.mark.parametrize("scope", ["project", "user"])
def test_claude_code_gets_one_tree_of_every_file_named_skills_unnamed_and_the_others_theirs(
    tmp_path: Path, scope: str
) -> None:
    package = _package(tmp_path)
    paths = Paths(home=tmp_path / "home", uze_home=tmp_path / "uze", env={})
    loc = Location(scope, tmp_path / "project", paths)  # type: ignore[arg-type]
    plan = plan_install(package, "0" * 64, loc, ("claude_code", "codex"))
    claude = [a for a in plan.artifacts if "claude_code" in a.harnesses]
    assert len(claude) == 1 and isinstance(claude[0], PlannedTree)
    # every byte but the SKILL.md `name`, which would make OpenCode list it too (adr/0070)
    assert dict(claude[0].files) == {rel: f.data for rel, f in package.files.items()} | {
        "skills/plan/SKILL.md": b"---\ndescription: Plan.\n---\nPlan.\n"}
    root = tmp_path / "project" / ".claude" if scope == "project" else tmp_path / "home/.claude"
    assert claude[0].path == root / "skills" / "kit"
    rows = [p for p in plan.projections if p.harness == "claude_code"]
    assert {p.route for p in rows} == {"native"} and {p.path for p in rows} == {claude[0].path}
    codex = {p.resource: p.label for p in plan.projections if p.harness == "codex"}
    assert codex["plan"] == "kit-plan"


def test_the_plugin_folder_is_asked_of_the_harness_that_loads_plugins() -> None:
    from uze.harnesses import REGISTRY

    loads = [h for h in REGISTRY.values() if h.claude_plugins is not None]
    assert [claude_plugin.loader(h.id) for h in loads] == [h.claude_plugins for h in loads]
    other = next(h.id for h in REGISTRY.values() if h.claude_plugins is None)
    with pytest.raises(ValueError, match="loads no Claude plugin folder"):
        claude_plugin.loader(other)
