"""Every harness, both scopes: the files each harness reads, the receipt, and a clean uninstall."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest
import yaml

from tests.conftest import Sandbox
from tests.e2e.conftest import THE_SEVEN
from tests.helpers import DATA, run_uze, tree_bytes

pytestmark = pytest.mark.e2e
PACKAGE = DATA / "seven"
LINT = ("SKILL.md", "references/rules.md")
LOGO = ("SKILL.md", "assets/icon.png")


def _skills(root: str, extra: tuple[str, ...] = ()) -> set[str]:
    return {f"{root}/seven-lint/{f}" for f in LINT + extra} | {
        f"{root}/seven-logo/{f}" for f in LOGO
    }


def _agents(folder: str, suffix: str = ".md") -> set[str]:
    return {f"{folder}/seven-reviewer{suffix}", f"{folder}/seven-team-planner{suffix}"}


def _plugin(root: str) -> set[str]:
    """Claude Code's plugin folder for seven (adr/0048): generated manifest, skills, agents."""
    plugin = f"{root}/seven"
    return ({f"{plugin}/.claude-plugin/plugin.json"}
            | {f"{plugin}/skills/lint/{f}" for f in LINT}
            | {f"{plugin}/skills/logo/{f}" for f in LOGO}
            | {f"{plugin}/agents/reviewer.md", f"{plugin}/agents/team/planner.md"})


# Files each harness reads after install, relative to the project (or to HOME for user scope).
EXPECTED: dict[tuple[str, str], set[str]] = {
    ("claude_code", "project"): {"CLAUDE.md"} | _plugin(".claude/skills"),
    ("claude_code", "user"): {".claude/CLAUDE.md"} | _plugin(".claude/skills"),
    ("codex", "project"): {"AGENTS.md"}
    | _skills(".agents/skills", ("agents/openai.yaml",))
    | _agents(".codex/agents", ".toml"),
    ("codex", "user"): {".codex/AGENTS.md"}
    | _skills(".agents/skills", ("agents/openai.yaml",))
    | _agents(".codex/agents", ".toml"),
    # opencode.json: seven-lint is user-only, kept from OpenCode's model by permission (adr/0084)
    ("opencode", "project"): {"AGENTS.md", "opencode.json"}
    | _skills(".opencode/skills")
    | _agents(".opencode/agents"),
    ("opencode", "user"): {".config/opencode/AGENTS.md", ".config/opencode/opencode.json"}
    | _skills(".config/opencode/skills")
    | _agents(".config/opencode/agents"),
    ("gemini_cli", "project"): {"GEMINI.md"}
    | _skills(".agents/skills")
    | _agents(".gemini/agents"),
    ("gemini_cli", "user"): {".gemini/GEMINI.md"}
    | _skills(".agents/skills")
    | _agents(".gemini/agents"),
    ("antigravity", "project"): {"AGENTS.md"} | _skills(".agents/skills"),
    ("antigravity", "user"): {".gemini/GEMINI.md"} | _skills(".gemini/config/skills"),
    ("kimi_code", "project"): {"AGENTS.md"}
    | _skills(".agents/skills")
    | _agents(".kimi-code/agents"),
    ("kimi_code", "user"): {".kimi-code/AGENTS.md"}
    | _skills(".agents/skills")
    | _agents(".kimi-code/agents"),
    ("deepseek_harness", "project"): {"AGENTS.md"} | _skills(".agents/skills"),
    ("deepseek_harness", "user"): {".dsh/AGENTS.md"} | _skills(".agents/skills"),
}
# What the derived lint SKILL.md (user-only policy) carries, per harness.
POLICY = {
    "claude_code": {"disable-model-invocation": True},
    "deepseek_harness": {"disable-model-invocation": True},
    "kimi_code": {"disableModelInvocation": True},
}


def _files(root: Path) -> set[str]:
    return {k for k, v in tree_bytes(root).items() if v != "dir" and not k.startswith(".uze/")}


def _frontmatter(data: bytes) -> dict[str, object]:
    return yaml.safe_load(data.decode().split("---\n")[1])


def _check_contents(base: Path, harness: str, files: set[str]) -> None:
    lint = next(base / f for f in files if f.endswith(("seven-lint/SKILL.md",
                                                        "seven/skills/lint/SKILL.md")))
    meta = _frontmatter(lint.read_bytes())
    # in Claude Code's plugin folder a skill is listed by its folder and has no name (adr/0048)
    name = "seven-lint" if "seven-lint" in str(lint) else None
    assert meta.get("name") == name and "invoke" not in meta
    for key, value in POLICY.get(harness, {}).items():
        assert meta[key] == value
    icon = next(base / f for f in files if f.endswith("assets/icon.png"))
    assert icon.read_bytes() == (PACKAGE / "skills/logo/assets/icon.png").read_bytes()
    for agent in (base / f for f in files if "seven-reviewer" in f or f.endswith("reviewer.md")):
        if agent.suffix == ".toml":
            doc = tomllib.loads(agent.read_text())
            assert doc["name"] == "seven-reviewer" and doc["sandbox_mode"] == "read-only"
            assert doc["developer_instructions"].startswith("You review changes.")
        else:
            assert "You review changes." in agent.read_text()


@pytest.mark.parametrize(("harness", "scope"), sorted(EXPECTED))
def test_each_harness_gets_every_file_it_reads_and_uninstall_restores_the_tree(
    sandbox: Sandbox, harness: str, scope: str
) -> None:
    before_project, before_home = tree_bytes(sandbox.project), tree_bytes(sandbox.home)
    done = run_uze(
        "install", PACKAGE, "--harness", harness, "--scope", scope, "--json", "--trust",
        cwd=sandbox.project,
    )
    assert done.returncode == 0, done.stderr
    base = sandbox.home if scope == "user" else sandbox.project
    new_files = _files(base) - {
        k for k, v in (before_home if scope == "user" else before_project).items()
    }
    if scope == "project":  # issue 22: the package is declared and pinned there too
        assert {"uze.toml", "uze.lock"} <= new_files
        new_files -= {"uze.toml", "uze.lock"}
    assert new_files == EXPECTED[(harness, scope)]
    _check_contents(base, harness, new_files)

    status = json.loads(run_uze("status", "seven", "--json", cwd=sandbox.project).stdout)
    rows = status["packages"][0]["projections"]
    assert {(r["kind"], r["resource"]) for r in rows} >= {
        ("instructions", "AGENTS.md"),
        ("skill", "lint"),
        ("skill", "logo"),
        ("agent", "reviewer"),
        ("agent", "planner"),
    }
    assert all(r["harness"] == harness for r in rows)
    assert all(
        r["state"] == ("undelivered" if r["route"] == "unsupported" else "matched") for r in rows
    )

    gone = run_uze("uninstall", "seven", "--scope", scope, cwd=sandbox.project)
    assert gone.returncode == 0, gone.stderr
    assert tree_bytes(sandbox.project) == before_project
    assert tree_bytes(sandbox.home) == before_home


def test_all_seven_share_one_agents_skills_copy_and_no_harness_sees_a_skill_twice(
    sandbox: Sandbox,
) -> None:
    done = run_uze(
        "install", PACKAGE, *THE_SEVEN, "--json", "--trust", cwd=sandbox.project
    )
    assert done.returncode == 0, done.stderr
    skill_dirs = sorted(
        p.relative_to(sandbox.project).as_posix() for p in sandbox.project.glob("*/skills/seven-*")
    )
    assert skill_dirs == [".agents/skills/seven-lint", ".agents/skills/seven-logo"]
    plugin = sandbox.project / ".claude/skills/seven"  # Claude Code's own (adr/0048)
    assert sorted(p.name for p in (plugin / "skills").iterdir()) == ["lint", "logo"]
    receipt = json.loads((sandbox.project / ".uze/receipts/seven.json").read_text())
    shared = next(a for a in receipt["artifacts"] if a["target"] == ".agents/skills/seven-lint")
    assert shared["harnesses"] == [  # OpenCode too: Claude Code's plugin copy has no name for it
        "codex",
        "opencode",
        "gemini_cli",
        "antigravity",
        "kimi_code",
        "deepseek_harness",
    ]
    lint = _frontmatter((sandbox.project / ".agents/skills/seven-lint/SKILL.md").read_bytes())
    assert lint["disable-model-invocation"] is True and lint["disableModelInvocation"] is True


def test_check_json_matches_the_routes_status_reports_after_install(sandbox: Sandbox) -> None:
    checked = json.loads(
        run_uze("check", PACKAGE, *THE_SEVEN, "--json", cwd=sandbox.project).stdout
    )
    run_uze("install", PACKAGE, *THE_SEVEN, "--trust", cwd=sandbox.project)
    status = json.loads(run_uze("status", "--json", cwd=sandbox.project).stdout)
    key = ("kind", "resource", "harness", "route", "reason", "target")
    planned = [tuple(p[k] for k in key) for p in checked["projections"]]
    installed = [tuple(p[k] for k in key) for p in status["packages"][0]["projections"]]
    assert planned == installed
    reviewer = next(
        p
        for p in checked["projections"]
        if (p["kind"], p["resource"], p["harness"]) == ("agent", "reviewer", "opencode")
    )
    assert reviewer["route"] == "degraded" and "harness.opencode.mood" in reviewer["reason"]


@pytest.mark.parametrize("first", ["seven", "eight"])
def test_two_packages_sharing_skill_roots_go_in_either_order_and_nothing_goes_early(
    sandbox: Sandbox, first: str
) -> None:
    eight = sandbox.root / "eight"
    shutil.copytree(PACKAGE, eight)
    (eight / "plugin.json").write_text(json.dumps({"name": "eight", "version": "1.0.0"}))
    before = tree_bytes(sandbox.project)
    for source in (PACKAGE, eight):
        assert run_uze(
            "install", source, *THE_SEVEN, "--trust", cwd=sandbox.project
        ).returncode == 0
    both = tree_bytes(sandbox.project)
    second = "eight" if first == "seven" else "seven"
    assert run_uze("uninstall", first, cwd=sandbox.project).returncode == 0
    status = json.loads(run_uze("status", second, "--json", cwd=sandbox.project).stdout)
    assert {p["state"] for p in status["packages"][0]["projections"]} <= {"matched", "undelivered"}
    left = tree_bytes(sandbox.project)
    for rel, data in both.items():
        if f"{second}-" in rel and "/skills/" in rel:
            assert left.get(rel) == data  # the other package's shared-root copies are untouched
    assert not any(f"/{first}-" in rel for rel in left)
    assert run_uze("uninstall", second, cwd=sandbox.project).returncode == 0
    assert tree_bytes(sandbox.project) == before
