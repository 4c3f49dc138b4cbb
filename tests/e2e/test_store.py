"""`uze store verify` finds a flipped byte; `uze store gc` frees only what no receipt references."""

from __future__ import annotations

import json
import shutil
import stat

import pytest

from tests.conftest import Sandbox
from tests.helpers import DATA, run_uze

pytestmark = pytest.mark.e2e


def _objects(sandbox: Sandbox) -> set[str]:
    root = sandbox.uze_home / "store" / "objects"
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def test_verify_reports_a_flipped_byte_and_exits_1(sandbox: Sandbox) -> None:
    assert run_uze("install", DATA / "seven", "--harness", "codex", "--trust",
                   cwd=sandbox.project).returncode == 0
    assert run_uze("store", "verify", cwd=sandbox.project).returncode == 0
    victim = sandbox.uze_home / "store" / "objects" / sorted(_objects(sandbox))[0]
    victim.chmod(stat.S_IWUSR | stat.S_IRUSR)
    data = bytearray(victim.read_bytes() or b"\0")
    data[0] ^= 0xFF
    victim.write_bytes(bytes(data))
    checked = run_uze("store", "verify", "--json", cwd=sandbox.project)
    assert checked.returncode == 1
    report = json.loads(checked.stdout)
    assert report["ok"] is False
    assert report["corrupt"] == [f"objects/{victim.parent.name}/{victim.name}"]
    assert "the store is damaged" in checked.stderr


def test_gc_after_uninstall_frees_the_unique_blobs_and_keeps_shared_ones(sandbox: Sandbox) -> None:
    other = shutil.copytree(DATA / "seven", sandbox.root / "other")
    manifest = json.loads((other / "plugin.json").read_text())
    (other / "plugin.json").write_text(json.dumps({**manifest, "name": "other"}))
    (other / "AGENTS.md").write_text("Only in other.\n")
    for source in (DATA / "seven", other):
        installed = run_uze("install", source, "--harness", "codex", "--trust", cwd=sandbox.project)
        assert installed.returncode == 0
    both = _objects(sandbox)
    assert run_uze("uninstall", "other", cwd=sandbox.project).returncode == 0
    collected = json.loads(run_uze("store", "gc", "--json", cwd=sandbox.project).stdout)
    # other's plugin.json and AGENTS.md; the rest is shared
    assert collected["removed_objects"] == 2
    assert collected["removed_trees"] == 1
    kept = _objects(sandbox)
    assert kept < both and len(both - kept) == 2
    assert run_uze("store", "verify", cwd=sandbox.project).returncode == 0
    status = json.loads(run_uze("status", "seven", "--json", cwd=sandbox.project).stdout)
    assert status["packages"][0]["name"] == "seven"
