"""Bad state on disk: a newer or broken receipt, a read-only target, a folder where a file goes."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Sandbox
from tests.helpers import DATA, run_uze, tree_bytes

pytestmark = pytest.mark.e2e
SEVEN = DATA / "seven"


def _everything(sandbox: Sandbox) -> tuple[object, object, object]:
    return tree_bytes(sandbox.project), tree_bytes(sandbox.home), tree_bytes(sandbox.uze_home)


def _install(sandbox: Sandbox) -> None:
    assert run_uze(
        "install", SEVEN, "--harness", "codex", "--trust", cwd=sandbox.project
    ).returncode == 0


@pytest.mark.parametrize(
    "command", [("status",), ("uninstall", "seven"), ("install", str(SEVEN), "--trust")]
)
def test_a_receipt_from_a_newer_uze_is_refused_and_nothing_changes(
    sandbox: Sandbox, command: tuple[str, ...],
) -> None:
    _install(sandbox)
    receipt = sandbox.project / ".uze/receipts/seven.json"
    receipt.write_text(json.dumps({**json.loads(receipt.read_text()), "schema_version": 99}))
    before = _everything(sandbox)
    done = run_uze(*command, cwd=sandbox.project)
    assert done.returncode == 1
    assert "written by a newer uze (schema 99)" in done.stderr
    assert "hint: upgrade uze" in done.stderr
    assert "Traceback" not in done.stderr
    assert _everything(sandbox) == before


def test_a_receipt_that_does_not_parse_is_named_with_a_hint(sandbox: Sandbox) -> None:
    _install(sandbox)
    receipt = sandbox.project / ".uze/receipts/seven.json"
    receipt.write_text("{ not json")
    before = _everything(sandbox)
    done = run_uze("uninstall", "seven", cwd=sandbox.project)
    assert done.returncode == 1
    assert f"cannot read receipt {receipt}" in done.stderr and "hint:" in done.stderr
    assert _everything(sandbox) == before


def test_a_read_only_target_is_refused_before_anything_is_written(sandbox: Sandbox) -> None:
    agents = sandbox.project / "AGENTS.md"
    agents.write_text("mine\n")
    agents.chmod(0o444)
    before = _everything(sandbox)
    done = run_uze(
        "install", SEVEN, "--harness", "codex", "--trust", cwd=sandbox.project
    )
    assert done.returncode == 1
    assert "AGENTS.md is read-only" in done.stderr and "chmod u+w" in done.stderr
    assert _everything(sandbox) == before


def test_a_folder_where_uze_writes_a_file_is_a_foreign_file(sandbox: Sandbox) -> None:
    (sandbox.project / "CLAUDE.md").mkdir()
    before = _everything(sandbox)
    done = run_uze("install", SEVEN, "--harness", "claude_code", cwd=sandbox.project)
    assert done.returncode == 1
    assert "conflict at CLAUDE.md" in done.stderr and "not written by uze" in done.stderr
    assert _everything(sandbox) == before
