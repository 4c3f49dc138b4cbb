"""Invariant 8: concurrent commands on one project serialise; the result equals a serial order."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import EVERY_KIND, HARNESSES, as_json, assert_no_traceback, assert_ok
from tests.helpers import run_uze, tree_bytes
from uze import fs

pytestmark = pytest.mark.e2e


def _start_install(source: Path, project: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "uze", "install", str(source), *HARNESSES],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _serial(sources: tuple[Path, Path], project: Path) -> dict[str, bytes | str]:
    """Uninstall both, then install in this order, in the same project (entries hold its path)."""
    for name in ("every-kind", "other-kind"):
        assert_ok(run_uze("uninstall", name, cwd=project))
    for source in sources:
        assert_ok(run_uze("install", source, *HARNESSES, cwd=project))
    return tree_bytes(project)


def test_two_installs_started_together_both_succeed_and_equal_a_serial_install(
    sandbox: Sandbox, other_kind: Path
) -> None:
    first, second = (
        _start_install(EVERY_KIND, sandbox.project),
        _start_install(other_kind, sandbox.project),
    )
    for process in (first, second):
        stdout, stderr = process.communicate(timeout=120)
        result = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
        assert_no_traceback(result)
        assert_ok(result)

    concurrent = tree_bytes(sandbox.project)
    serial_results = [
        _serial(order, sandbox.project) for order in ((EVERY_KIND, other_kind),
                                                      (other_kind, EVERY_KIND))
    ]
    assert concurrent in serial_results
    assert {".uze/receipts/every-kind.json", ".uze/receipts/other-kind.json"} <= set(concurrent)
    document = as_json(assert_ok(run_uze("status", "--json", cwd=sandbox.project)))
    assert {p["name"] for p in document["packages"]} == {"every-kind", "other-kind"}
    for projection in (p for package in document["packages"] for p in package["projections"]):
        assert projection["state"] == (
            "undelivered" if projection["route"] == "unsupported" else "matched"
        )


def test_uninstall_does_not_touch_the_gc_roots_while_another_command_holds_the_store_lock(
    sandbox: Sandbox,
) -> None:
    # projects.json lists the GC roots: changing it without the store lock races with gc and
    # with installs in other projects (a lost registration lets gc delete live objects).
    assert_ok(run_uze("install", EVERY_KIND, "--harness", "codex", "--trust", cwd=sandbox.project))
    registry = sandbox.uze_home / "projects.json"
    before, project_before = registry.read_bytes(), tree_bytes(sandbox.project)
    assert str(sandbox.project).encode() in before
    env = {**sandbox.env, "UZE_LOCK_TIMEOUT": "1"}

    with fs.file_lock(sandbox.uze_home / "locks" / "store.lock", 1):  # "a gc is running"
        result = run_uze("uninstall", "every-kind", cwd=sandbox.project, env=env)

    assert_no_traceback(result)
    assert registry.read_bytes() == before, "projects.json changed under someone else's store lock"
    assert result.returncode == 1 and "another uze command is running" in result.stderr
    assert tree_bytes(sandbox.project) == project_before
