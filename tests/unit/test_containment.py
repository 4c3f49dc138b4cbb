"""uze.containment: the places a scope's targets may be, and the link rule of a project."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import DATA
from uze.containment import Roots, relpath_problem
from uze.errors import Escape, LinkRefused
from uze.harness_ids import HARNESS_IDS
from uze.location import Location
from uze.package import read_package
from uze.paths import Paths
from uze.plan.model import PlannedFile, PlannedTree
from uze.plan.planner import plan_install

PACKAGES = tuple(  # every valid fixture package: each kind of artifact uze plans
    p.name for p in sorted(DATA.iterdir()) if not p.name.startswith("invalid-"))
# Every variable a harness module reads to move its home, set to folders outside HOME.
MOVED = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "KIMI_CODE_HOME", "DSH_HOME",
         "DSH_AGENTS_HOME", "XDG_CONFIG_HOME")


def _paths(tmp_path: Path, moved: bool) -> Paths:
    env = {"HOME": str(tmp_path / "home"), "UZE_HOME": str(tmp_path / "uze-home")}
    if moved:
        env |= {name: str(tmp_path / "moved" / name.lower()) for name in MOVED}
    return Paths.from_env(env)


@pytest.mark.parametrize("moved", [False, True], ids=["default-homes", "moved-homes"])
@pytest.mark.parametrize("scope", ["project", "user"])
@pytest.mark.parametrize("name", PACKAGES)
def test_every_planned_target_of_every_harness_is_a_place_uze_writes(
    tmp_path: Path, name: str, scope: str, moved: bool
) -> None:
    paths = _paths(tmp_path, moved)
    project = tmp_path / "project"
    loc = Location(scope, project, paths)  # type: ignore[arg-type]
    plan = plan_install(read_package(DATA / name), "0" * 64, loc, HARNESS_IDS)
    roots = Roots(scope, project, paths)  # type: ignore[arg-type]
    assert plan.artifacts or name == "manifest-only"
    for planned in plan.artifacts:
        whole = not isinstance(planned, PlannedTree | PlannedFile)
        assert roots.target_problem(planned.target, whole_file=whole) is None, planned.target
        assert roots.resolve(planned.target) == planned.path
        roots.check_write(planned.path)  # raises Escape if it were outside


@pytest.mark.parametrize("target", [
    "../outside", "~/.bashrc", "/etc/passwd", "", ".", "package.json", ".claude/skills",
    ".claude/skills/../../x", ".claude/skills/a/b", ".git/config", "src/main.py",
    ".claude//skills/x", ".claude/skills/.", "AGENTS.md/x", ".uze/receipts/x.json",
])
def test_project_targets_outside_the_places_uze_writes_are_refused(
    tmp_path: Path, target: str
) -> None:
    roots = Roots("project", tmp_path, _paths(tmp_path, False))
    assert roots.target_problem(target, whole_file=False) is not None
    assert target == "AGENTS.md/x" or roots.target_problem(target, whole_file=True) is not None


@pytest.mark.parametrize("target", [
    "~/.bashrc", "~/../etc/passwd", "/etc/passwd", "~/.claude", "~/.claude/skills",
    "~/.claude/skills/a/b", "relative/x", "~/.ssh/authorized_keys", "~/.claude/./skills/x",
])
def test_user_targets_outside_the_harness_homes_are_refused(tmp_path: Path, target: str) -> None:
    roots = Roots("user", tmp_path / "project", _paths(tmp_path, False))
    assert roots.target_problem(target, whole_file=False) is not None
    assert roots.target_problem(target, whole_file=True) is not None


def test_a_link_on_the_way_is_refused_and_plain_folders_are_remembered(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (project / ".claude" / "skills").symlink_to(tmp_path / "elsewhere")
    roots = Roots("project", project, _paths(tmp_path, False))
    with pytest.raises(LinkRefused, match=r"\.claude/skills \(on the way to"):
        roots.check_write(project / ".claude/skills/x/SKILL.md")
    roots.check_links(project / ".claude/settings.json")
    assert project / ".claude" in roots._plain


def test_target_links_are_checked_once_per_parent_and_every_target_below_a_link_is_refused(
        tmp_path: Path) -> None:
    """ADR 0101: the targets sharing a parent folder are checked once; a parent below a link
    refuses every one of them, and a missing parent is never remembered as plain."""
    project = tmp_path / "project"
    (project / ".claude" / "skills").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (project / ".agents").symlink_to(tmp_path / "elsewhere")
    roots = Roots("project", project, _paths(tmp_path, False))
    for target in (".agents/skills/a", ".agents/skills/b"):
        with pytest.raises(LinkRefused, match=r"\.agents \(on the way to"):
            roots.check_target_links(target)
    roots.check_target_links(".claude/skills/a")
    assert ".claude/skills" in roots._plain_parents
    (project / ".claude" / "skills").rmdir()  # remembered: the same command saw it plain
    roots.check_target_links(".claude/skills/b")
    roots.check_target_links(".codex/agents/a.toml")  # .codex missing: not remembered
    assert ".codex/agents" not in roots._plain_parents
    (project / ".codex").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(LinkRefused):
        roots.check_target_links(".codex/agents/b.toml")


def test_target_problems_are_answered_once_and_the_same_each_time(tmp_path: Path) -> None:
    roots = Roots("project", tmp_path / "project", _paths(tmp_path, False))
    for _ in range(2):
        assert roots.target_problem(".claude/settings.json", whole_file=True) is None
        assert roots.target_problem(".claude/settings.json", whole_file=False) is not None
        assert roots.target_problem("../x", whole_file=True) is not None
    assert len(roots._problems) == 3


def test_writes_outside_the_project_and_uze_home_escape(tmp_path: Path) -> None:
    paths = _paths(tmp_path, False)
    roots = Roots("project", tmp_path / "project", paths)
    roots.check_write(paths.uze_home / "projects.json")
    for path in (tmp_path / "home/.bashrc", tmp_path / "project", tmp_path / "other/x"):
        with pytest.raises(Escape):
            roots.check_write(path)
    user = Roots("user", tmp_path / "project", paths)
    with pytest.raises(Escape):
        user.check_write(tmp_path / "home/.bashrc")
    user.check_write(tmp_path / "home/.claude/skills/x/SKILL.md")


@pytest.mark.parametrize("rel", ["a", "a/b.md", ".hidden/x", "é/ü"])
def test_clean_relative_paths_pass(rel: str) -> None:
    assert relpath_problem(rel) is None


@pytest.mark.parametrize(
    "rel", ["", "/a", "~/a", "a/../b", "./a", "a//b", "a/", "a\\b", "a\0b", ".."]
)
def test_unclean_relative_paths_are_named(rel: str) -> None:
    assert relpath_problem(rel) is not None
