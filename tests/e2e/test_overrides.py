"""Author overrides in plugin.json: `required` refuses a non-native route, `optional` says so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.helpers import DATA, run_uze, tree_bytes

pytestmark = pytest.mark.e2e


def _package(sandbox: Sandbox, routes: object) -> Path:
    pkg = Path(shutil.copytree(DATA / "seven", sandbox.root / "pkg"))
    manifest = json.loads((pkg / "plugin.json").read_text())
    manifest["extensions"] = {"uze": {"routes": routes}}
    (pkg / "plugin.json").write_text(json.dumps(manifest))
    return pkg


def test_a_required_feature_refuses_a_harness_that_cannot_carry_it_natively(
    sandbox: Sandbox,
) -> None:
    pkg = _package(sandbox, {"codex": {"skill.invoke": "required"}})
    before = tree_bytes(sandbox.project), tree_bytes(sandbox.uze_home)
    done = run_uze("install", pkg, "--harness", "claude_code,codex", cwd=sandbox.project)
    assert done.returncode == 1
    assert "requires native routes" in done.stderr
    assert "codex: skill lint: adapted" in done.stderr
    assert (tree_bytes(sandbox.project), tree_bytes(sandbox.uze_home)) == before
    checked = run_uze("check", pkg, "--harness", "codex", "--json", cwd=sandbox.project)
    assert checked.returncode == 1
    unmet = json.loads(checked.stdout)["unmet_requirements"]
    assert [(p["harness"], p["resource"]) for p in unmet] == [("codex", "lint")]
    assert run_uze("install", pkg, "--harness", "claude_code", cwd=sandbox.project).returncode == 0


def test_an_optional_feature_is_delivered_and_marked_as_expected(sandbox: Sandbox) -> None:
    pkg = _package(sandbox, {"antigravity": {"agent": "optional"}})
    done = run_uze("check", pkg, "--harness", "antigravity", "--json", cwd=sandbox.project)
    agent = next(p for p in json.loads(done.stdout)["projections"] if p["kind"] == "agent")
    assert agent["route"] == "unsupported" and agent["level"] == "optional"
    assert agent["reason"].endswith("(optional for this package)")


@pytest.mark.parametrize(
    ("routes", "message"),
    [({"vim": {"skill": "required"}}, "extensions.uze.routes.vim: unknown harness"),
     ({"codex": {"skills": "required"}}, "extensions.uze.routes.codex.skills: unknown key"),
     ({"codex": {"skill": "always"}},
      "extensions.uze.routes.codex.skill: 'always' is not required or optional")],
)
def test_a_malformed_override_is_an_invalid_package(sandbox: Sandbox, routes: object,
                                                    message: str) -> None:
    pkg = _package(sandbox, routes)
    done = run_uze("install", pkg, "--harness", "codex", cwd=sandbox.project)
    assert done.returncode == 1
    assert f"plugin.json: {message}" in done.stderr
    assert not (sandbox.project / ".uze").exists()
