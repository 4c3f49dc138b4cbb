"""Hostile input, consent side (issue 19, items 2, 5, 6, 7, 8, 15; ADR 0021).

Each case runs the real `uze` in a subprocess with a fresh HOME and UZE_HOME (the autouse
sandbox) and checks the exact outcome: exit code, message, no traceback, and byte snapshots of
the project, HOME and UZE_HOME.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.helpers import build_tree, run_uze, tree_bytes

pytestmark = pytest.mark.e2e

Trees = tuple[dict[str, bytes | str], dict[str, bytes | str], dict[str, bytes | str]]
SERVER = {"mcpServers": {"docs": {"command": "${PLUGIN_ROOT}/server.sh", "args": ["--stdio"]}}}
SESSION_HOOK = {"hooks": {"SessionStart": [{"id": "hello", "hooks": [
    {"type": "command", "command": "${PLUGIN_ROOT}/hook.sh"}]}]}}


def _trees(sandbox: Sandbox) -> Trees:
    return tree_bytes(sandbox.project), tree_bytes(sandbox.home), tree_bytes(sandbox.uze_home)


def _clean(done: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in done.stderr + done.stdout
    assert "internal error" not in done.stderr


def _refused(done: subprocess.CompletedProcess[str], before: Trees, sandbox: Sandbox) -> None:
    """Exit 1 with the consent error, and not one byte changed anywhere."""
    _clean(done)
    assert done.returncode == 1, done.stderr
    assert "not installed without your consent" in done.stderr
    assert "hint: read the list above; run again on a terminal to answer, or pass --trust" \
        in done.stderr
    assert _trees(sandbox) == before


def _package(root: Path, name: str = "evil", **files: str | bytes) -> Path:
    manifest = json.dumps({"name": name, "version": "1.0.0"})
    content: dict[str, str | bytes] = {"plugin.json": manifest}
    content.update({rel.replace("__", "/"): data for rel, data in files.items()})
    return build_tree(root, content)


def _runner(root: Path, package: Path | None = None) -> Path:
    """A package that starts an MCP server and a SessionStart hook."""
    return _package(package or root / "pkg", **{
        "mcp.json": json.dumps(SERVER), "hooks.json": json.dumps(SESSION_HOOK),
        "server.sh": "#!/bin/sh\nexec true\n", "hook.sh": "#!/bin/sh\n. \"$PLUGIN_ROOT/lib.sh\"\n",
        "lib.sh": "greet() { :; }\n"})


def _other_user(sandbox: Sandbox, who: str) -> dict[str, str]:
    home, uze_home = sandbox.root / f"{who}-home", sandbox.root / f"{who}-uze"
    home.mkdir()
    return {**os.environ, "HOME": str(home), "UZE_HOME": str(uze_home),
            "XDG_CONFIG_HOME": str(home / ".config")}


# -- item 2: consent belongs to the user, not to the repository ------------------------------


@pytest.mark.parametrize("committed", ["receipts only", "receipts and deliveries"])
def test_a_receipt_committed_into_a_clone_is_not_this_users_consent(
        sandbox: Sandbox, committed: str) -> None:
    pkg = _runner(sandbox.project)
    attacker = _other_user(sandbox, "attacker")
    done = run_uze("install", "./pkg", "--harness", "claude_code", "--trust",
                   cwd=sandbox.project, env=attacker)
    assert done.returncode == 0, done.stderr
    receipt = json.loads((sandbox.project / ".uze/receipts/evil.json").read_text())
    assert receipt["trust"]  # the attacker's digest travels with the repository
    if committed == "receipts only":
        for delivered in (".mcp.json", ".claude"):
            path = sandbox.project / delivered
            shutil.rmtree(path) if path.is_dir() else path.unlink()
        (sandbox.project / ".uze/created.json").unlink()
    assert pkg.is_dir()
    before = _trees(sandbox)
    done = run_uze("install", "./pkg", "--harness", "claude_code", cwd=sandbox.project)
    _refused(done, before, sandbox)
    assert "It will run:" in done.stderr
    assert "mcp docs: ${PLUGIN_ROOT}/server.sh --stdio" in done.stderr
    assert "hook hello (SessionStart, observe, every tool): ${PLUGIN_ROOT}/hook.sh" in done.stderr
    assert "files: every file of evil 1.0.0 (6 files, tree blake3:" in done.stderr


def test_consent_is_kept_under_uze_home_for_this_project_only(sandbox: Sandbox) -> None:
    _runner(sandbox.root)
    done = run_uze("install", sandbox.root / "pkg", "--harness", "claude_code", "--trust",
                   cwd=sandbox.project)
    assert done.returncode == 0, done.stderr
    kept = list((sandbox.uze_home / "consent").rglob("*.json"))
    assert [p.name for p in kept] == ["evil.json"]
    consent = json.loads(kept[0].read_text())
    assert consent["project"] == str(sandbox.project) and consent["package"] == "evil"
    assert not list(sandbox.project.rglob("consent*"))
    again = run_uze("install", sandbox.root / "pkg", "--harness", "claude_code",
                    cwd=sandbox.project)
    assert again.returncode == 0, again.stderr  # the same digest: no question
    other = sandbox.root / "other"
    (other / ".git").mkdir(parents=True)
    before = _trees(sandbox)
    elsewhere = run_uze("install", sandbox.root / "pkg", "--harness", "claude_code", cwd=other)
    _refused(elsewhere, before, sandbox)
    assert not (other / ".mcp.json").exists()


def test_the_reinstall_shortcut_never_answers_without_consent(sandbox: Sandbox) -> None:
    _runner(sandbox.root)
    args = ("install", sandbox.root / "pkg", "--harness", "claude_code")
    assert run_uze(*args, "--trust", cwd=sandbox.project).returncode == 0
    assert list((sandbox.uze_home / "cache").rglob("installs-*/evil.json"))  # a stamp
    for consent in (sandbox.uze_home / "consent").rglob("evil.json"):
        consent.unlink()  # this user withdrew it (or it was never theirs)
    before = _trees(sandbox)
    for extra in ((), ("--json",)):
        done = run_uze(*args, *extra, cwd=sandbox.project)
        _refused(done, before, sandbox)
    assert run_uze(*args, "--trust", cwd=sandbox.project).returncode == 0


@pytest.mark.parametrize("damage", [b"", b"{", b"[]", b'{"schema_version": 1}',
                                    b'{"schema_version": 9, "project": "", "package": "evil", '
                                    b'"digest": "", "tree": "", "executions": []}'])
def test_a_damaged_consent_file_is_no_consent(sandbox: Sandbox, damage: bytes) -> None:
    _runner(sandbox.root)
    args = ("install", sandbox.root / "pkg", "--harness", "claude_code")
    assert run_uze(*args, "--trust", cwd=sandbox.project).returncode == 0
    (consent,) = (sandbox.uze_home / "consent").rglob("evil.json")
    consent.write_bytes(damage)
    for stamp in (sandbox.uze_home / "cache").rglob("installs-*/evil.json"):
        stamp.unlink()
    before = _trees(sandbox)
    _refused(run_uze(*args, cwd=sandbox.project), before, sandbox)


def test_uninstall_forgets_the_consent(sandbox: Sandbox) -> None:
    _runner(sandbox.root)
    args = ("install", sandbox.root / "pkg", "--harness", "claude_code")
    assert run_uze(*args, "--trust", cwd=sandbox.project).returncode == 0
    assert run_uze("uninstall", "evil", cwd=sandbox.project).returncode == 0
    assert not list((sandbox.uze_home / "consent").rglob("*.json"))
    before = _trees(sandbox)
    _refused(run_uze(*args, cwd=sandbox.project), before, sandbox)
