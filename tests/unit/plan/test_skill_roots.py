"""Skill roots: a Claude Code plugin folder offers no skill to a harness that scans its root
recursively, and a command's skill copy goes where the harness with the command does not look
(issue 31 item 5, adr/0070). Pure planning, no harness run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import build_tree
from uze.harnesses import REGISTRY, Location
from uze.package import read_package
from uze.paths import Paths
from uze.plan.model import Plan, PlannedProjection, PlannedTree
from uze.plan.planner import plan_install
from uze.plan.skill_roots import unlisted_elsewhere


@pytest.mark.parametrize(
    ("before", "after"),
    [(b"---\nname: x\ndescription: X.\n---\nBody name: x\n",
      b"---\ndescription: X.\n---\nBody name: x\n"),
     (b"---\r\ndescription: X.\r\nname: x\r\n---\r\nBody\r\n",
      b"---\r\ndescription: X.\r\n---\r\nBody\r\n"),
     (b"---\nname: >\n  folded\n  name\ndescription: X.\n---\n",
      b"---\ndescription: X.\n---\n"),
     (b"---\ndescription: X.\n---\nno name\n", b"---\ndescription: X.\n---\nno name\n"),
     (b"no frontmatter, name: x\n", b"no frontmatter, name: x\n"),
     (b"---\nname: x\nnever closed\n", b"---\nname: x\nnever closed\n")],
    ids=["lf", "crlf", "continued-value", "no-name", "no-frontmatter", "unclosed"],
)
def test_a_skill_md_loses_its_name_and_keeps_every_other_byte(before: bytes, after: bytes
                                                               ) -> None:
    files = {"skills/x/SKILL.md": before, "deep/a/b/SKILL.md": before}
    assert unlisted_elsewhere(files) == {"skills/x/SKILL.md": after, "deep/a/b/SKILL.md": after}


def test_files_other_than_skill_md_are_kept_byte_for_byte() -> None:
    files = {"agents/a.md": b"---\nname: a\n---\n", "skills/x/README.md": b"---\nname: r\n---\n",
             "commands/SKILL.md.bak": b"---\nname: c\n---\n", "bin/run": b"\x00\xff"}
    assert unlisted_elsewhere(files) == files


MANIFEST = json.dumps({"name": "kit", "version": "1.0.0"})
SKILL = "---\nname: plan\ndescription: Plan.\n---\nPlan.\n"
COMMAND = "---\ndescription: Tidy.\n---\nTidy.\n"


def _plan(tmp_path: Path, scope: str, harnesses: tuple[str, ...], **files: str) -> Plan:
    package = read_package(build_tree(tmp_path / "kit", files))
    paths = Paths(home=tmp_path / "home", uze_home=tmp_path / "uze", env={})
    loc = Location(scope, tmp_path / "project", paths)  # type: ignore[arg-type]
    return plan_install(package, "0" * 64, loc, harnesses)


def _rows(plan: Plan) -> dict[tuple[str, str], PlannedProjection]:
    return {(p.kind, p.harness): p for p in plan.projections}


@pytest.mark.parametrize("scope", ["project", "user"])
def test_opencode_lists_a_whole_plugins_skill_only_from_its_own_copy(
    tmp_path: Path, scope: str
) -> None:
    plan = _plan(tmp_path, scope, ("claude_code", "opencode"), **{
        ".claude-plugin/plugin.json": MANIFEST, "skills/plan/SKILL.md": SKILL})
    rows = _rows(plan)
    assert (rows[("skill", "opencode")].route, rows[("skill", "opencode")].label) == (
        "native", "kit-plan")
    plugin = next(a for a in plan.artifacts if isinstance(a, PlannedTree)
                  and a.harnesses == ("claude_code",))
    assert plugin.files["skills/plan/SKILL.md"] == b"---\ndescription: Plan.\n---\nPlan.\n"
    own = next(a for a in plan.artifacts if isinstance(a, PlannedTree)
               and a.harnesses == ("opencode",))
    assert own.files["SKILL.md"].startswith(b"---\nname: kit-plan\n")


@pytest.mark.parametrize("scope", ["project", "user"])
def test_a_command_skill_goes_where_opencode_which_has_the_command_does_not_look(
    tmp_path: Path, scope: str
) -> None:
    plan = _plan(tmp_path, scope, ("codex", "kimi_code", "deepseek_harness", "opencode"),
                 **{"plugin.json": MANIFEST, "commands/tidy.md": COMMAND})
    rows = _rows(plan)
    opencode_roots = set(REGISTRY["opencode"].skills.roots(plan.location))
    for harness in ("codex", "kimi_code", "deepseek_harness"):
        target = rows[("command", harness)].path
        assert target is not None and target.parent not in opencode_roots, target
    assert "also lists it as the skill" not in rows[("command", "opencode")].reason


def test_where_only_a_shared_root_serves_a_harness_the_command_rows_that_see_it_say_so(
    tmp_path: Path
) -> None:
    plan = _plan(tmp_path, "project", ("antigravity", "gemini_cli", "opencode"),
                 **{"plugin.json": MANIFEST, "commands/tidy.md": COMMAND})
    rows = _rows(plan)
    assert rows[("command", "antigravity")].path == tmp_path / "project/.agents/skills/kit-tidy"
    for harness in ("gemini_cli", "opencode"):  # each has the command and reads that root
        row = rows[("command", harness)]
        assert row.route == "degraded"
        assert (f"{harness} also lists it as the skill 'kit-tidy' from .agents/skills, which "
                "uze writes for another harness: its model can invoke this user-only command"
                in row.reason), row.reason


@pytest.mark.parametrize(
    ("names", "expected"),
    [(("plan", "kit-plan"), {"plan": "kit-plan", "kit-plan": "kit-kit-plan"}),
     (("kit-plan", "kit-kit-plan", "plan"),
      {"plan": "kit-plan", "kit-plan": "kit-kit-plan", "kit-kit-plan": "kit-kit-kit-plan"}),
     (("kit", "kit-plan"), {"kit": "kit", "kit-plan": "kit-plan"})],
    ids=["plan-beside-kit-plan", "a-chain", "no-clash"],
)
def test_flat_names_stay_one_per_resource_when_a_name_spells_the_prefix_of_another(
    tmp_path: Path, names: tuple[str, ...], expected: dict[str, str]
) -> None:
    skills = {f"skills/{n}/SKILL.md": f"---\ndescription: {n}\n---\n{n}\n" for n in names}
    agents = {f"agents/{n}.md": f"---\nname: {n}\ndescription: {n}\n---\n{n}\n" for n in names}
    commands = {f"commands/{n}.md": f"---\ndescription: {n}\n---\n{n}\n" for n in names}
    plan = _plan(tmp_path, "project", ("codex", "opencode"),
                 **{"plugin.json": MANIFEST, **skills, **agents, **commands})
    for kind, harness in (("skill", "codex"), ("agent", "codex"), ("command", "opencode")):
        got = {p.resource: p.label for p in plan.projections
               if p.kind == kind and p.harness == harness}
        assert got == expected, kind
    targets = [a.path for a in plan.artifacts]
    assert len(targets) == len(set(targets))  # no two resources claim one file or folder
