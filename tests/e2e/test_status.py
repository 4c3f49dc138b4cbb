"""`uze status`: the JSON shape of docs/design.md, every live state, and the human table."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import EVERY_KIND, HARNESSES, Uze, as_json, assert_ok
from tests.helpers import REPO
from uze.harnesses import HARNESS_IDS

pytestmark = pytest.mark.e2e

KINDS = {"instructions", "skill", "agent", "mcp", "hook"}
ROUTES = {"native", "adapted", "degraded", "unsupported"}
STATES = {"matched", "missing", "drifted", "conflict", "blocked", "undelivered"}
# `label` (adr/0041): what a user types in that harness; the keys before it are unchanged
PROJECTION_KEYS = {"kind", "resource", "harness", "route", "reason", "target", "label", "state"}
EVERY_KIND_RESOURCES = {
    ("instructions", "AGENTS.md"),
    ("skill", "helper"),
    ("skill", "review"),
    ("skill", "ship"),
    ("agent", "reviewer"),
    ("mcp", "docs"),
    ("mcp", "search"),
    ("hook", "no-force-push"),
    ("hook", "log-edits"),
}


def _check_target(target: str, scope: str, route: str) -> None:
    if route == "unsupported":
        assert target == "", target  # nothing was written, so there is no target
        return
    assert target, "a delivered projection names its target"
    if scope == "user":
        assert target.startswith("~/"), target
    else:
        assert not target.startswith(("/", "~")) and ".." not in Path(target).parts, target


def _check_projection(projection: dict[str, Any], scope: str) -> None:
    assert set(projection) == PROJECTION_KEYS, projection
    assert all(isinstance(projection[key], str) for key in PROJECTION_KEYS), projection
    assert projection["kind"] in KINDS
    assert projection["route"] in ROUTES
    assert projection["state"] in STATES
    assert projection["harness"] in HARNESS_IDS
    assert projection["resource"]
    if projection["route"] != "native":
        assert projection["reason"].strip(), f"non-native route without a reason: {projection}"
    assert (projection["route"] == "unsupported") == (projection["state"] == "undelivered"), (
        projection
    )
    _check_target(projection["target"], scope, projection["route"])


def validate_status(document: Any, project: Path) -> None:
    """Explicit checks of the `status --json` shape in docs/design.md."""
    # issue 30: `declared` (uze.toml + uze.lock against this machine) and `differences` (adr/0062)
    assert isinstance(document, dict) and set(document) == {"schema", "project", "packages",
                                                            "declared", "differences"}
    assert document["schema"] == 1
    assert document["project"] == str(project)
    assert isinstance(document["packages"], list)
    for package in document["packages"]:
        # docs/design.md's keys, plus what the package runs (issue 9: status shows it for audit)
        assert set(package) == {"name", "version", "scope", "tree", "projections", "executions",
                                "source", "commit", "lock"}, package  # issue 22: where it came from
        assert all(isinstance(line, str) for line in package["executions"])
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", package["name"])
        assert isinstance(package["version"], str) and package["version"]
        assert package["scope"] in {"project", "user"}
        assert re.fullmatch(r"[0-9a-f]{64}", package["tree"]), package["tree"]
        assert isinstance(package["projections"], list)
        for projection in package["projections"]:
            _check_projection(projection, package["scope"])


def _status(uze: Uze, sandbox: Sandbox, *args: str) -> dict[str, Any]:
    document = as_json(assert_ok(uze("status", *args, "--json")))
    validate_status(document, sandbox.project)
    return document


def _states(document: dict[str, Any]) -> dict[tuple[str, str, str], str]:
    (package,) = document["packages"]
    return {(p["kind"], p["resource"], p["harness"]): p["state"] for p in package["projections"]}


def _routes(document: dict[str, Any]) -> dict[tuple[str, str, str], str]:
    (package,) = document["packages"]
    return {(p["kind"], p["resource"], p["harness"]): p["route"] for p in package["projections"]}


def _as_delivered(document: dict[str, Any]) -> dict[tuple[str, str, str], str]:
    """The state every projection has right after a clean install: matched unless unsupported."""
    return {
        key: "undelivered" if route == "unsupported" else "matched"
        for key, route in _routes(document).items()
    }


def test_status_after_install_matches_the_design_shape_and_reports_every_pair(
    sandbox: Sandbox, uze: Uze
) -> None:
    # DeepSeek Harness takes no MCP servers, agents or hooks from uze: undelivered pairs.
    harnesses = ("claude_code", "opencode", "deepseek_harness")
    assert_ok(uze("install", EVERY_KIND, "--harness", ",".join(harnesses), "--trust"))

    document = _status(uze, sandbox)
    table = assert_ok(uze("status", "every-kind")).stdout  # the full table (issue 23)

    (package,) = document["packages"]
    assert (package["name"], package["version"], package["scope"]) == (
        "every-kind",
        "1.2.3",
        "project",
    )
    states = _states(document)
    expected = {(kind, res, h) for kind, res in EVERY_KIND_RESOURCES for h in harnesses}
    assert set(states) == expected  # honesty: every targeted (resource, harness) pair appears
    assert states == _as_delivered(document)  # delivered ones matched, unsupported undelivered
    assert "undelivered" in states.values(), "every-kind should hold something not delivered"
    for kind, resource in (("instructions", "AGENTS.md"), ("skill", "review")):
        assert states[(kind, resource, "claude_code")] == "matched"
    assert "every-kind 1.2.3 (project scope)" in table
    words = {p["route"] for p in package["projections"]} | set(states.values())
    for word in (*words, ".claude/skills/every-kind", "CLAUDE.md#every-kind", "every-kind:review"):
        assert word in table, word


def test_status_in_user_scope_shows_targets_under_home(sandbox: Sandbox, uze: Uze) -> None:
    assert_ok(uze("install", EVERY_KIND, *HARNESSES, "--scope", "user"))

    document = _status(uze, sandbox, "--scope", "user")

    (package,) = document["packages"]
    assert package["scope"] == "user"
    targets = {p["target"] for p in package["projections"]}
    assert {
        "~/.claude/CLAUDE.md#every-kind",
        "~/.codex/AGENTS.md#every-kind",
        "~/.claude/skills/every-kind/skills/review",  # in Claude Code's plugin folder (adr/0048)
        "~/.agents/skills/every-kind-review",
    } <= targets
    assert _states(document) == _as_delivered(document)


# The skill changes hit Codex's copy: one artifact, one projection (Claude Code's copy is in its
# plugin folder, one artifact for every resource the plugin carries).
def _edit_skill(project: Path) -> None:
    (project / ".agents/skills/every-kind-review/references/guide.md").write_bytes(b"rewritten\n")


def _edit_region(project: Path) -> None:
    path = project / "AGENTS.md"
    path.write_bytes(path.read_bytes().replace(b"Prefer small", b"Prefer tiny"))


def _delete_skill(project: Path) -> None:
    shutil.rmtree(project / ".agents/skills/every-kind-review")


def _break_marker(project: Path) -> None:
    path = project / "AGENTS.md"
    path.write_bytes(path.read_bytes().replace(b"<!-- uze:end every-kind -->\n", b""))


def _replace_skill_with_file(project: Path) -> None:
    _delete_skill(project)
    (project / ".agents/skills/every-kind-review").write_bytes(b"not a folder\n")


CHANGES: dict[str, tuple[Callable[[Path], None], tuple[str, str, str], str]] = {
    "drifted after a skill file is edited": (
        _edit_skill,
        ("skill", "review", "codex"),
        "drifted",
    ),
    "drifted after the region is edited": (
        _edit_region,
        ("instructions", "AGENTS.md", "codex"),
        "drifted",
    ),
    "missing after a skill folder is deleted": (
        _delete_skill,
        ("skill", "review", "codex"),
        "missing",
    ),
    "blocked after a marker is broken": (
        _break_marker,
        ("instructions", "AGENTS.md", "codex"),
        "blocked",
    ),
    "conflict after a skill folder is replaced by a file": (
        _replace_skill_with_file,
        ("skill", "review", "codex"),
        "conflict",
    ),
}


@pytest.mark.parametrize(("change", "changed", "state"), CHANGES.values(), ids=CHANGES.keys())
def test_status_reports_the_live_state_of_a_changed_artifact(
    sandbox: Sandbox,
    uze: Uze,
    change: Callable[[Path], None],
    changed: tuple[str, str, str],
    state: str,
) -> None:
    assert_ok(uze("install", EVERY_KIND, *HARNESSES))
    change(sandbox.project)

    document = _status(uze, sandbox, "every-kind")

    states, clean = _states(document), _as_delivered(document)
    assert states.pop(changed) == state
    clean.pop(changed)
    assert states == clean  # every other projection is untouched


def test_status_for_a_package_that_is_not_installed_fails(uze: Uze) -> None:
    result = uze("status", "nothing-here")
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[0].startswith("uze: error: package 'nothing-here' is not installed")
    assert lines[1] == "hint: run `uze list` to see what is installed"


def _opened_by_status(sandbox: Sandbox) -> list[Path]:
    """Run `uze status --json` and return every file under the project it opened."""
    log = sandbox.root / "opened.txt"
    done = subprocess.run(
        [sys.executable, "-m", "tests.e2e.open_runner", str(log), "status", "--json"],
        cwd=sandbox.project, env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    opened = [Path(line) for line in log.read_text(encoding="utf-8").splitlines()]
    return [p for p in opened if p.is_relative_to(sandbox.project) and ".uze" not in p.parts]


def _skill_and_agent_files(sandbox: Sandbox) -> set[Path]:
    roots = [sandbox.project / ".claude/skills", sandbox.project / ".agents/skills",
             sandbox.project / ".codex/agents"]
    return {p for root in roots for p in root.rglob("*") if p.is_file()}


def test_status_does_not_reread_unchanged_files_and_still_sees_an_edit_with_mtime_forced_back(
    sandbox: Sandbox, uze: Uze
) -> None:
    assert_ok(uze("install", EVERY_KIND, *HARNESSES))
    delivered = _skill_and_agent_files(sandbox)
    assert delivered
    time.sleep(0.3)  # past the racy window (ADR 0011): files changed just before are re-read

    first = set(_opened_by_status(sandbox))
    assert delivered <= first  # nothing known yet: every delivered file is read and hashed
    second = set(_opened_by_status(sandbox))
    assert not delivered & second  # unchanged since the last hash: not one of them opened

    guide = sandbox.project / ".claude/skills/every-kind/skills/review/references/guide.md"
    before = guide.stat()
    data = guide.read_bytes()
    guide.write_bytes(data[:-2] + (b"X" if data[-2:-1] != b"X" else b"Y") + data[-1:])  # same size
    os.utime(guide, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the old mtime
    assert (guide.stat().st_size, guide.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)

    third = set(_opened_by_status(sandbox))
    assert third & delivered == {guide}  # its ctime moved: read again, the others still not
    states = _states(_status(uze, sandbox))
    assert states[("skill", "review", "claude_code")] == "drifted"
    assert states[("skill", "review", "codex")] == "matched"  # the .agents/skills copy
