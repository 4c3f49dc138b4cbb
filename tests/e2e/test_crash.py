"""Crash injection: SIGKILL the real uze at every write step; the next command recovers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.helpers import REPO, run_uze, tree_bytes

pytestmark = pytest.mark.e2e
ARGS = ("--harness", "claude_code,codex", "--trust")
SMALL = {  # one of each kind that writes: a region, a skill folder, an MCP entry, a package copy
    "plugin.json": '{"name": "crashy", "version": "1.0.0"}',
    "AGENTS.md": "Be careful.\n",
    "skills/s/SKILL.md": "---\nname: s\ndescription: A skill.\n---\nDo it.\n",
    "mcp.json": '{"mcpServers": {"srv": {"command": "${PLUGIN_ROOT}/run.sh"}}}',
    "run.sh": "#!/bin/sh\n",
}


@pytest.fixture
def package(sandbox: Sandbox) -> Path:
    root = sandbox.root / "crashy"
    for rel, text in SMALL.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _crash_at(step: int, cwd: Path, *args: str | Path) -> int:
    done = subprocess.run(
        [sys.executable, "-m", "tests.e2e.crash_runner", str(step), *map(str, args)],
        cwd=cwd, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
        timeout=120,
    )
    return done.returncode


def _temp_files(root: Path) -> list[str]:
    return [str(p) for p in root.rglob("*") if ".uze-tmp-" in p.name]


def _no_temp_files(root: Path) -> bool:
    return not _temp_files(root)


def _run_kills(sandbox: Sandbox, command: tuple[str | Path, ...], before: dict, after: dict,  # type: ignore[type-arg]
               package: Path, redo: tuple[str | Path, ...] | None = None) -> int:
    """Kill `command` at step 1, 2, ... until it completes; return the number of kill points.

    `redo` takes the project from `after` back to `before` (default: the opposite command).
    """
    step = 0
    while True:
        step += 1
        code = _crash_at(step, sandbox.project, *command)
        if code != -signal.SIGKILL:
            assert code == 0, f"step {step}: exit {code}"
            return step - 1
        recovered = run_uze("status", "--json", cwd=sandbox.project)  # any command recovers
        assert recovered.returncode == 0, recovered.stderr
        state = tree_bytes(sandbox.project)
        assert state in (before, after), f"torn state after a kill at step {step}"
        for root in (sandbox.project, sandbox.home, sandbox.uze_home):  # item 16 of issue 19
            assert _no_temp_files(root), f"step {step}: {_temp_files(root)}"
        if state != before:  # killed after the commit: start the next round from `before` again
            back = redo or (("uninstall", "crashy") if command[0] == "install"
                            else ("install", package, *ARGS))
            assert run_uze(*back, cwd=sandbox.project).returncode == 0
            assert tree_bytes(sandbox.project) == before


def test_a_kill_at_any_write_step_of_install_leaves_before_or_after(sandbox: Sandbox,
                                                                    package: Path) -> None:
    (sandbox.project / "AGENTS.md").write_bytes(b"mine\r\n")
    before = tree_bytes(sandbox.project)
    assert run_uze("install", package, *ARGS, cwd=sandbox.project).returncode == 0
    after = tree_bytes(sandbox.project)
    assert run_uze("uninstall", "crashy", cwd=sandbox.project).returncode == 0
    kills = _run_kills(sandbox, ("install", package, *ARGS), before, after, package)
    print(f"install: {kills} kill points exercised")
    assert kills >= 20  # every journal line, backup, file and folder of the install
    assert tree_bytes(sandbox.project) == after


def test_a_kill_at_any_write_step_of_uninstall_leaves_before_or_after(sandbox: Sandbox,
                                                                      package: Path) -> None:
    (sandbox.project / "AGENTS.md").write_bytes(b"mine\r\n")
    empty = tree_bytes(sandbox.project)
    assert run_uze("install", package, *ARGS, cwd=sandbox.project).returncode == 0
    installed = tree_bytes(sandbox.project)
    kills = _run_kills(sandbox, ("uninstall", "crashy"), installed, empty, package)
    print(f"uninstall: {kills} kill points exercised")
    assert kills >= 10
    assert tree_bytes(sandbox.project) == empty


def test_a_kill_at_any_write_step_of_an_upgrade_leaves_the_old_or_the_new_version(
    sandbox: Sandbox, package: Path
) -> None:
    """v1 -> v2 changes the region, a skill and the MCP entry, drops skill t and adds skill u."""
    (package / "skills/t").mkdir()
    (package / "skills/t/SKILL.md").write_text(
        "---\nname: t\ndescription: Dropped in v2.\n---\nT.\n")
    newer = sandbox.root / "crashy-2"
    for rel, text in SMALL.items():
        (newer / rel).parent.mkdir(parents=True, exist_ok=True)
        (newer / rel).write_text(text.replace("1.0.0", "2.0.0").replace("careful", "very careful")
                                 .replace("Do it.", "Do it twice.").replace("run.sh", "run2.sh"))
    (newer / "run2.sh").write_text("#!/bin/sh\n")
    (newer / "skills/u").mkdir()
    (newer / "skills/u/SKILL.md").write_text("---\nname: u\ndescription: New in v2.\n---\nU.\n")
    (sandbox.project / "AGENTS.md").write_bytes(b"mine\r\n")
    assert run_uze("install", newer, *ARGS, cwd=sandbox.project).returncode == 0
    upgraded = tree_bytes(sandbox.project)
    assert run_uze("uninstall", "crashy", cwd=sandbox.project).returncode == 0
    assert run_uze("install", package, *ARGS, cwd=sandbox.project).returncode == 0
    old = tree_bytes(sandbox.project)
    assert old != upgraded
    kills = _run_kills(sandbox, ("install", newer, *ARGS), old, upgraded, package,
                       redo=("install", package, *ARGS))
    print(f"upgrade: {kills} kill points exercised")
    assert kills >= 20
    assert tree_bytes(sandbox.project) == upgraded
