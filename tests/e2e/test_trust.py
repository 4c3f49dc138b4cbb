"""Trust: every command a package runs is shown and accepted before anything is written."""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.helpers import DATA, run_uze, tree_bytes

pytestmark = pytest.mark.e2e
EVERY_KIND = DATA / "every-kind"


def _on_terminal(args: list[str], answer: str, cwd: Path) -> tuple[int, str]:
    """Run uze with a pseudo-terminal as stdin/stdout/stderr; answer its question."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "uze", *args], cwd=cwd,
                               stdin=follower, stdout=follower, stderr=follower, close_fds=True)
    os.close(follower)
    seen, answered, deadline = b"", False, time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            seen += chunk
        if not answered and b"[y/N]" in seen:
            os.write(leader, answer.encode() + b"\n")
            answered = True
        if process.poll() is not None and not ready:
            break
    os.close(leader)
    return process.wait(timeout=30), seen.decode(errors="replace")


def _trees(sandbox: Sandbox) -> tuple[object, object, object]:
    return tree_bytes(sandbox.project), tree_bytes(sandbox.home), tree_bytes(sandbox.uze_home)


def test_without_a_terminal_install_is_refused_listing_what_would_run(sandbox: Sandbox) -> None:
    before = _trees(sandbox)
    done = run_uze("install", EVERY_KIND, "--harness", "claude_code", cwd=sandbox.project)
    assert done.returncode == 1
    assert "It will run:" in done.stderr
    assert "mcp docs: ${PLUGIN_ROOT}/scripts/server.sh --stdio" in done.stderr
    assert "env DOCS_MODE" in done.stderr and "local" not in done.stderr  # names, never values
    assert "scripts/server.sh blake3:" in done.stderr
    assert "hint:" in done.stderr and "--trust" in done.stderr
    assert _trees(sandbox) == before


def test_on_a_terminal_yes_installs_and_no_writes_nothing(sandbox: Sandbox) -> None:
    before = _trees(sandbox)
    code, screen = _on_terminal(["install", str(EVERY_KIND), "--harness", "claude_code"], "n",
                                sandbox.project)
    assert code == 1 and "It will run:" in screen and "declined" in screen
    assert "Install it and let it run these? [y/N]" in screen  # one package: singular
    assert "nothing of it was written" in " ".join(screen.split())
    assert _trees(sandbox) == before
    code, screen = _on_terminal(["install", str(EVERY_KIND), "--harness", "claude_code"], "y",
                                sandbox.project)
    assert code == 0, screen
    assert (sandbox.project / ".mcp.json").exists()


def test_trust_flag_installs_and_the_receipt_lists_what_runs_without_values(
    sandbox: Sandbox,
) -> None:
    done = run_uze("install", EVERY_KIND, "--harness", "claude_code", "--trust",
                   cwd=sandbox.project)
    assert done.returncode == 0, done.stderr
    receipt = json.loads((sandbox.project / ".uze/receipts/every-kind.json").read_text())
    assert receipt["executions"] and receipt["trust"]
    assert "local" not in json.dumps(receipt["executions"])
    status = run_uze("status", "every-kind", "--json", cwd=sandbox.project)
    assert json.loads(status.stdout)["packages"][0]["executions"] == receipt["executions"]


def test_dry_run_lists_what_would_run_and_never_asks(sandbox: Sandbox) -> None:
    done = run_uze("install", EVERY_KIND, "--harness", "claude_code", "--dry-run",
                   cwd=sandbox.project)
    assert done.returncode == 0
    assert "It will run" in done.stdout and "scripts/server.sh" in done.stdout


def _copy(sandbox: Sandbox, name: str) -> Path:
    return Path(shutil.copytree(EVERY_KIND, sandbox.root / name))


def test_an_upgrade_that_changes_a_script_asks_again_and_shows_the_change(sandbox: Sandbox) -> None:
    v2 = _copy(sandbox, "v2")
    (v2 / "scripts/server.sh").write_text("#!/bin/sh\necho changed\n")
    assert run_uze("install", EVERY_KIND, "--harness", "claude_code", "--trust",
                   cwd=sandbox.project).returncode == 0
    before = _trees(sandbox)
    done = run_uze("install", v2, "--harness", "claude_code", cwd=sandbox.project)
    assert done.returncode == 1
    assert "changes what it runs" in done.stderr and "new or changed: mcp docs" in done.stderr
    assert _trees(sandbox) == before


def test_an_upgrade_that_changes_only_a_skill_asks_again_naming_the_file(sandbox: Sandbox) -> None:
    """The consent digest covers every file of a package that runs something (ADR 0021)."""
    v2 = _copy(sandbox, "v2")
    (v2 / "skills/review/SKILL.md").write_text(
        "---\nname: review\ndescription: Changed.\n---\nNew text.\n")
    first = run_uze("install", EVERY_KIND, "--harness", "claude_code", "--trust",
                    cwd=sandbox.project)
    assert first.returncode == 0
    before = _trees(sandbox)
    done = run_uze("install", v2, "--harness", "claude_code", cwd=sandbox.project)
    assert done.returncode == 1
    assert "unchanged: mcp docs:" in done.stderr
    assert "new or changed: files: every file of every-kind 1.2.3 (13 files, tree blake3:" \
        in done.stderr
    assert "files changed since you accepted: skills/review/SKILL.md\n" in done.stderr
    assert "no longer run" not in done.stderr
    assert _trees(sandbox) == before


def test_an_upgrade_of_a_package_that_runs_nothing_does_not_ask(sandbox: Sandbox) -> None:
    v2 = Path(shutil.copytree(DATA / "seven", sandbox.root / "v2"))
    (v2 / "AGENTS.md").write_text("Changed.\n")
    first = run_uze("install", DATA / "seven", "--harness", "claude_code", cwd=sandbox.project)
    assert first.returncode == 0
    done = run_uze("install", v2, "--harness", "claude_code", cwd=sandbox.project)
    assert done.returncode == 0, done.stderr


def test_a_package_with_nothing_executable_asks_nothing(sandbox: Sandbox) -> None:
    done = run_uze("install", DATA / "seven", "--harness", "claude_code", cwd=sandbox.project)
    assert done.returncode == 0, done.stderr


def test_an_upgrade_that_changes_a_hook_script_asks_again(sandbox: Sandbox) -> None:
    v2 = _copy(sandbox, "v2")
    (v2 / "scripts/guard.sh").write_text("#!/bin/sh\nexit 0\n")
    assert run_uze("install", EVERY_KIND, "--harness", "claude_code", "--trust",
                   cwd=sandbox.project).returncode == 0
    before = _trees(sandbox)
    done = run_uze("install", v2, "--harness", "claude_code", cwd=sandbox.project)
    assert done.returncode == 1
    assert "new or changed: hook no-force-push (PreToolUse, deny, shell)" in done.stderr
    assert "scripts/guard.sh blake3:" in done.stderr
    assert _trees(sandbox) == before


def test_inline_shell_in_a_claude_skill_is_listed_before_it_is_delivered(sandbox: Sandbox) -> None:
    pkg = sandbox.root / "inline"
    (pkg / "skills/st").mkdir(parents=True)
    (pkg / "plugin.json").write_text('{"name": "inline"}')
    (pkg / "skills/st/SKILL.md").write_text(
        "---\nname: st\ndescription: status\nallowed-tools: Bash(git status:*)\n---\n"
        "Now: !`git status --short`\n")
    done = run_uze("install", pkg, "--harness", "claude_code", cwd=sandbox.project)
    assert done.returncode == 1
    assert "skill st (inline shell for claude_code): git status --short" in done.stderr
    assert "skill st (allowed-tools for claude_code): grants: Bash(git status:*)" in done.stderr
    codex_only = run_uze("install", pkg, "--harness", "codex", cwd=sandbox.project)
    assert codex_only.returncode == 0, codex_only.stderr  # Codex does not run inline shell


def test_hooks_an_agent_declares_for_claude_are_listed(sandbox: Sandbox) -> None:
    pkg = sandbox.root / "agenty"
    (pkg / "agents").mkdir(parents=True)
    (pkg / "plugin.json").write_text('{"name": "agenty"}')
    (pkg / "agents/watch.md").write_text(
        "---\nname: watch\ndescription: watches\nharness:\n  claude_code:\n    hooks:\n"
        "      Stop:\n        - hooks:\n            - type: command\n"
        "              command: notify-done\n---\nWatch.\n")
    done = run_uze("install", pkg, "--harness", "claude_code", cwd=sandbox.project)
    assert done.returncode == 1
    assert "agent watch (hooks for claude_code):" in done.stderr and "notify-done" in done.stderr
