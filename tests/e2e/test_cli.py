"""The command surface: --version, the console script, harness detection and `uze list`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import (
    EVERY_KIND,
    HARNESSES,
    Uze,
    as_json,
    assert_no_traceback,
    assert_ok,
    snapshot,
)
from tests.helpers import DATA
from uze import __version__

pytestmark = pytest.mark.e2e


def test_version_prints_uze_and_its_version(uze: Uze) -> None:
    result = assert_ok(uze("--version"))
    assert result.stdout == f"uze {__version__}\n"


def test_console_script_next_to_the_interpreter_installs_a_package(sandbox: Sandbox) -> None:
    script = Path(sys.executable).parent / "uze"
    assert script.is_file(), "the `uze` console script is not installed in this environment"

    result = subprocess.run(
        [str(script), "install", str(EVERY_KIND), *HARNESSES, "--json"],
        cwd=sandbox.project,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert_no_traceback(result)
    assert_ok(result)
    assert as_json(result)["package"]["name"] == "every-kind"
    assert (sandbox.project / ".uze/receipts/every-kind.json").is_file()


@pytest.fixture
def bare_path(sandbox: Sandbox) -> dict[str, str]:
    """The environment with a PATH holding no harness binary."""
    empty = sandbox.root / "empty-bin"
    empty.mkdir()
    return {**sandbox.env, "PATH": str(empty)}


def test_install_with_no_harness_detected_fails_and_names_the_harness_option(
    sandbox: Sandbox, uze: Uze, bare_path: dict[str, str]
) -> None:
    sandbox.uze_home.rmdir()
    before = snapshot(sandbox)

    result = uze("install", EVERY_KIND, "--trust", env=bare_path)

    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[0] == "uze: error: no harness detected for this project or machine"
    assert lines[1].startswith("hint: ") and "--harness" in lines[1]
    assert not sandbox.uze_home.exists()
    assert snapshot(sandbox) == before


def test_detection_picks_claude_code_when_the_project_has_a_claude_folder(
    sandbox: Sandbox, uze: Uze, bare_path: dict[str, str]
) -> None:
    (sandbox.project / ".claude").mkdir()

    document = as_json(assert_ok(uze("install", EVERY_KIND, "--json", "--trust", env=bare_path)))

    assert document["harnesses"] == ["claude_code"]
    assert {p["harness"] for p in document["projections"]} == {"claude_code"}
    assert (sandbox.project / "CLAUDE.md").is_file()
    assert not (sandbox.project / "AGENTS.md").exists()
    assert not (sandbox.project / ".agents").exists()


def test_list_json_lists_packages_installed_in_project_and_user_scope(
    sandbox: Sandbox, uze: Uze
) -> None:
    assert_ok(uze("install", EVERY_KIND, *HARNESSES))
    assert_ok(uze("install", DATA / "minimal", "--harness", "codex", "--scope", "user"))

    document = as_json(assert_ok(uze("list", "--json")))

    assert document["schema"] == 1
    assert document["project"] == str(sandbox.project)
    found = {
        (p["name"], p["version"], p["scope"], tuple(p["harnesses"])) for p in document["packages"]
    }
    assert found == {
        ("every-kind", "1.2.3", "project", ("claude_code", "codex")),
        ("minimal", "0.0.0", "user", ("codex",)),
    }
    assert all(len(p["tree"]) == 64 for p in document["packages"])
