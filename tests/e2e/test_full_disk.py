"""A full disk (ENOSPC) at any write of install, upgrade or uninstall: a clear error, no
traceback, and the project, home and store as before once the next command has run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import assert_no_traceback
from tests.helpers import REPO, run_uze, tree_bytes

pytestmark = pytest.mark.e2e
ARGS = ("--harness", "claude_code,codex", "--trust")
PACKAGE = {  # a region, skill folders, an agent, an MCP entry and a package copy
    "plugin.json": '{"name": "roomy", "version": "1.0.0"}',
    "AGENTS.md": "Keep it short.\n",
    "skills/s/SKILL.md": "---\nname: s\ndescription: A skill.\n---\nDo it.\n",
    "skills/s/notes.md": "Some notes.\n",
    "agents/helper.md": "---\nname: helper\ndescription: Helps.\n---\nYou help.\n",
    "mcp.json": '{"mcpServers": {"srv": {"command": "${PLUGIN_ROOT}/run.sh"}}}',
    "run.sh": "#!/bin/sh\n",
}


def _write_package(root: Path, version: str, note: str) -> Path:
    for rel, text in PACKAGE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text.replace("1.0.0", version))
    (root / "skills/s/notes.md").write_text(note)
    return root


def _state(sandbox: Sandbox) -> tuple[dict[str, bytes | str], ...]:
    """Project, HOME and UZE_HOME; the status digest cache (ADR 0011) is not state."""
    uze_home = {k: v for k, v in tree_bytes(sandbox.uze_home).items() if not k.startswith("cache")}
    return tree_bytes(sandbox.project), tree_bytes(sandbox.home), uze_home


def _diff(before: tuple[dict[str, bytes | str], ...],
          after: tuple[dict[str, bytes | str], ...]) -> list[str]:
    return [f"{root}: {key}: {'-' if key not in a else '+' if key not in b else 'changed'}"
            for root, b, a in zip(("project", "home", "uze_home"), before, after, strict=True)
            for key in sorted(set(a) | set(b)) if a.get(key) != b.get(key)]


def _full_at(step: int, cwd: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tests.e2e.full_disk_runner", str(step), *map(str, args)],
        cwd=cwd, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
        timeout=120, check=False,
    )


def _no_temp_files(*roots: Path) -> bool:
    return not any(".uze-tmp-" in p.name for root in roots for p in root.rglob("*"))


def _fill_at_every_write(sandbox: Sandbox, command: tuple[str | Path, ...]) -> int:
    """Fail `command` at write 1, 2, ... until it succeeds; return how many writes failed it."""
    before = _state(sandbox)
    step = 0
    while True:
        step += 1
        done = _full_at(step, sandbox.project, *command)
        if done.returncode == 0:
            return step - 1
        assert_no_traceback(done)
        assert done.returncode == 1, f"write {step}: exit {done.returncode}\n{done.stderr}"
        message = re.search(r"^uze: error: (.*)$", done.stderr, re.MULTILINE)
        assert message, done.stderr
        assert "no space left on device while writing /" in message.group(1), done.stderr
        assert "hint: free some space" in done.stderr
        assert done.stdout == ""
        nxt = run_uze("status", "--json", cwd=sandbox.project)  # the disk has room again
        assert nxt.returncode == 0, nxt.stderr
        assert _state(sandbox) == before, (
            f"write {step}: {done.stderr} {_diff(before, _state(sandbox))}")
        assert _no_temp_files(sandbox.project, sandbox.home, sandbox.uze_home)


def test_a_full_disk_at_any_write_of_install_upgrade_and_uninstall_changes_nothing(
    sandbox: Sandbox,
) -> None:
    (sandbox.project / "AGENTS.md").write_bytes(b"mine\r\n")
    (sandbox.project / ".mcp.json").write_text('{"mcpServers": {"mine": {"command": "x"}}}\n')
    first = _write_package(sandbox.root / "v1", "1.0.0", "Some notes.\n")
    second = _write_package(sandbox.root / "v2", "2.0.0", "Other notes, longer.\n")
    assert run_uze("install", sandbox.root / "packages-dir-does-not-matter",
                   cwd=sandbox.project).returncode == 1
    # Warm the store and locks with a package of its own, so "before" has every root.
    other = sandbox.root / "other"
    (other / "skills/o").mkdir(parents=True)
    (other / "plugin.json").write_text('{"name": "other", "version": "1.0.0"}')
    (other / "skills/o/SKILL.md").write_text("---\nname: o\ndescription: Other.\n---\nO.\n")
    assert run_uze("install", other, *ARGS, cwd=sandbox.project).returncode == 0

    installs = _fill_at_every_write(sandbox, ("install", first, *ARGS))
    upgrades = _fill_at_every_write(sandbox, ("install", second, *ARGS))
    uninstalls = _fill_at_every_write(sandbox, ("uninstall", "roomy"))
    print(f"full disk at {installs} install, {upgrades} upgrade and {uninstalls} uninstall writes")
    assert installs >= 15 and upgrades >= 5 and uninstalls >= 5
    assert not (sandbox.project / ".uze/receipts/roomy.json").exists()
