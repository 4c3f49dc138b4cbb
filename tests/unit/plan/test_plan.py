"""The planner is pure data: routes, targets and shared folders, without touching the disk."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.helpers import DATA
from uze.harness_ids import HARNESS_IDS
from uze.harnesses import Location
from uze.package import read_package
from uze.paths import LOCATION_ENV, Paths
from uze.plan.model import PlannedRegion, PlannedTree
from uze.plan.planner import plan_install


def _plan(scope: str, harnesses: tuple[str, ...], tmp_path: Path):  # type: ignore[no-untyped-def]
    paths = Paths(home=tmp_path / "plan-home", uze_home=tmp_path / "uze", env={})
    loc = Location(scope, tmp_path / "plan-project", paths)  # type: ignore[arg-type]
    return plan_install(read_package(DATA / "every-kind"), "0" * 64, loc, harnesses)


def _row(plan, kind: str, resource: str, harness: str):  # type: ignore[no-untyped-def]
    return next(p for p in plan.projections
                if (p.kind, p.resource, p.harness) == (kind, resource, harness))


def test_planning_touches_no_file(tmp_path: Path) -> None:
    _plan("project", ("claude_code", "codex"), tmp_path)
    assert not (tmp_path / "plan-project").exists() and not (tmp_path / "plan-home").exists()
    assert not (tmp_path / "uze").exists()


def test_every_targeted_pair_has_a_route_and_non_native_routes_have_reasons(tmp_path: Path) -> None:
    plan = _plan("project", ("claude_code", "codex", "gemini_cli"), tmp_path)
    pairs = {(p.kind, p.resource, p.harness) for p in plan.projections}
    package = plan.package
    resources = (
        [("instructions", "AGENTS.md")] + [("skill", s.name) for s in package.skills]
        + [("agent", a.name) for a in package.agents]
        + [("mcp", m.name) for m in package.mcp_servers]
    )
    for kind, name in resources:
        for harness in plan.harnesses:
            assert (kind, name, harness) in pairs
    assert all(p.reason for p in plan.projections if p.route != "native")


@pytest.mark.parametrize(
    ("skill", "harness", "route"),
    [("review", "claude_code", "native"), ("review", "codex", "native"),
     ("ship", "claude_code", "native"), ("ship", "codex", "adapted"),
     ("helper", "claude_code", "native"), ("helper", "codex", "degraded"),
     ("review", "gemini_cli", "native"), ("ship", "gemini_cli", "degraded"),
     ("helper", "gemini_cli", "native")],
)
def test_invocation_policy_routes_per_harness(tmp_path: Path, skill: str, harness: str,
                                              route: str) -> None:
    plan = _plan("project", ("claude_code", "codex", "gemini_cli"), tmp_path)
    assert _row(plan, "skill", skill, harness).route == route


def test_claude_gets_policy_keys_and_codex_gets_openai_yaml(tmp_path: Path) -> None:
    plan = _plan("project", ("claude_code", "codex"), tmp_path)
    trees = {a.target: a for a in plan.artifacts if isinstance(a, PlannedTree)}
    plugin = trees[".claude/skills/every-kind"].files  # Claude Code's plugin folder (ADR 0048)
    claude_ship = plugin["skills/ship/SKILL.md"].decode()
    assert "disable-model-invocation: true" in claude_ship and "invoke" not in claude_ship
    claude_helper = plugin["skills/helper/SKILL.md"].decode()
    assert "user-invocable: false" in claude_helper
    codex_ship = trees[".agents/skills/every-kind-ship"].files
    assert yaml.safe_load(codex_ship["agents/openai.yaml"]) == {
        "policy": {"allow_implicit_invocation": False}}
    assert "agents/openai.yaml" not in trees[".agents/skills/every-kind-helper"].files


def test_a_skill_without_policy_is_copied_byte_for_byte_but_its_name(tmp_path: Path) -> None:
    plan = _plan("project", ("claude_code",), tmp_path)
    plugin = next(a for a in plan.artifacts
                  if isinstance(a, PlannedTree) and a.target == ".claude/skills/every-kind")
    review = {rel.removeprefix("skills/review/"): data for rel, data in plugin.files.items()
              if rel.startswith("skills/review/")}
    assert review
    package = plan.package
    for rel, data in review.items():
        original = package.files[f"skills/review/{rel}"].data
        if rel == "SKILL.md":  # a plugin's skill is listed by its folder: no name (adr/0048)
            assert b"name: review\n" in original
            original = original.replace(b"name: review\n", b"")
        assert original == data


def test_user_scope_targets_the_harness_homes(tmp_path: Path) -> None:
    plan = _plan("user", ("claude_code", "codex"), tmp_path)
    targets = {a.target for a in plan.artifacts}
    assert "~/.claude/skills/every-kind" in targets  # Claude Code's plugin folder (ADR 0048)
    assert "~/.agents/skills/every-kind-review" in targets
    assert "~/.claude/CLAUDE.md" in targets and "~/.codex/AGENTS.md" in targets


def test_one_region_per_instructions_file(tmp_path: Path) -> None:
    plan = _plan("project", ("claude_code", "codex"), tmp_path)
    regions = [a for a in plan.artifacts if isinstance(a, PlannedRegion)]
    assert sorted(r.target for r in regions) == ["AGENTS.md", "CLAUDE.md"]
    assert {r.region_id for r in regions} == {"every-kind"}


class _Recording(dict[str, str]):
    """An environment that remembers every variable looked up in it."""

    def __init__(self) -> None:
        super().__init__()
        self.read: set[str] = set()

    def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
        self.read.add(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> str:
        self.read.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self.read.add(str(key))
        return super().__contains__(key)


@pytest.mark.parametrize("scope", ["project", "user"])
def test_planning_reads_no_environment_variable_outside_location_env(tmp_path: Path,
                                                                     scope: str) -> None:
    """The re-install stamp keys on LOCATION_ENV only (ADR 0016): a plan must not depend on any
    other variable."""
    env = _Recording()
    paths = Paths(home=tmp_path / "plan-home", uze_home=tmp_path / "uze", env=env)
    loc = Location(scope, tmp_path / "plan-project", paths)  # type: ignore[arg-type]
    plan_install(read_package(DATA / "every-kind"), "0" * 64, loc, HARNESS_IDS)

    assert env.read and env.read <= set(LOCATION_ENV)


def test_a_harness_variable_outside_location_env_is_refused(tmp_path: Path) -> None:
    paths = Paths(home=tmp_path, uze_home=tmp_path / "uze", env={"NEW_HOME": "/x"})
    with pytest.raises(ValueError, match=r"NEW_HOME is not in uze\.paths\.LOCATION_ENV"):
        paths.env_dir("NEW_HOME", tmp_path)


@pytest.mark.parametrize("scope", ["project", "user"])
def test_every_config_key_uze_adds_under_is_a_shell_key(scope: str, tmp_path: Path) -> None:
    """is_hollow keeps a created config whose empty values sit under any other key (issue 19)."""
    from uze.plan.model import PlannedElement, PlannedEntry
    from uze.projections.entry import SHELL_KEYS

    plan = _plan(scope, HARNESS_IDS, tmp_path)
    tops = {a.key_path[0] for a in plan.artifacts
            if isinstance(a, PlannedEntry | PlannedElement) and len(a.key_path) > 1}
    assert tops and tops <= SHELL_KEYS, tops  # a top-level entry leaves no container behind


def test_every_project_target_sits_under_a_project_output(tmp_path: Path) -> None:
    """`uze install .` skips project_outputs when reading the project as a package (issue 19):
    everything uze writes in project scope must be under one of them, or installs nest."""
    from uze.harnesses import project_outputs

    plan = _plan("project", HARNESS_IDS, tmp_path)
    outputs = project_outputs(plan.location)
    firsts = {Path(a.target).parts[0] for a in plan.artifacts}
    assert firsts and firsts <= outputs, firsts - outputs
