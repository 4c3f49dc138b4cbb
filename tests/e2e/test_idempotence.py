"""Invariant 6 (installing again changes nothing) and --dry-run (writes nothing anywhere)."""

from __future__ import annotations

import pytest
from blake3 import blake3

from tests.conftest import Sandbox
from tests.e2e.conftest import EVERY_KIND, HARNESSES, Uze, as_json, assert_ok, snapshot

pytestmark = pytest.mark.e2e


def test_installing_the_same_package_twice_changes_nothing(sandbox: Sandbox, uze: Uze) -> None:
    assert_ok(uze("install", EVERY_KIND, *HARNESSES))
    first = snapshot(sandbox)
    receipt = (sandbox.project / ".uze/receipts/every-kind.json").read_bytes()
    assert b"Read the diff" not in receipt and b"Prefer small" not in receipt  # digests, never text
    objects = [p for p in (sandbox.uze_home / "store" / "objects").rglob("*") if p.is_file()]
    assert objects
    for path in objects:  # every object is named by the blake3 of its bytes
        assert path.parent.name + path.name == blake3(path.read_bytes()).hexdigest()

    document = as_json(assert_ok(uze("install", EVERY_KIND, *HARNESSES, "--json")))

    assert document["writes"] == 0
    assert document["dry_run"] is False
    assert document["actions"] and {a["action"] for a in document["actions"]} == {"unchanged"}
    delivered = [p for p in document["projections"] if p["route"] != "unsupported"]
    assert delivered and {p["action"] for p in delivered} == {"unchanged"}
    assert snapshot(sandbox) == first

    again = assert_ok(uze("install", EVERY_KIND))  # harnesses come from the receipt
    assert "Already installed: nothing changed." in again.stdout
    assert snapshot(sandbox) == first


def test_dry_run_install_writes_nothing_anywhere(sandbox: Sandbox, uze: Uze) -> None:
    sandbox.uze_home.rmdir()
    before = snapshot(sandbox)

    human = assert_ok(uze("install", EVERY_KIND, *HARNESSES, "--dry-run"))
    document = as_json(assert_ok(uze("install", EVERY_KIND, *HARNESSES, "--dry-run", "--json")))

    assert human.stdout.startswith("Dry run, nothing written: would install every-kind 1.2.3")
    assert ".agents/skills/every-kind-review" in human.stdout
    assert document["dry_run"] is True and document["writes"] == 0
    assert {a["action"] for a in document["actions"]} == {"create"}
    assert not sandbox.uze_home.exists()
    assert snapshot(sandbox) == before


def test_dry_run_uninstall_and_reinstall_write_nothing_anywhere(sandbox: Sandbox, uze: Uze) -> None:
    assert_ok(uze("install", EVERY_KIND, *HARNESSES))
    (sandbox.project / ".agents/skills/every-kind-ship/SKILL.md").write_bytes(b"edited\n")
    before = snapshot(sandbox)

    human = assert_ok(uze("uninstall", "every-kind", "--dry-run"))
    document = as_json(assert_ok(uze("uninstall", "every-kind", "--dry-run", "--json", "--force")))
    reinstall = as_json(assert_ok(uze("install", EVERY_KIND, "--dry-run", "--json", "--force")))

    assert human.stdout.startswith("Dry run, nothing written: would uninstall every-kind")
    assert "Would remove .agents/skills/every-kind-review" in human.stdout
    assert "kept .agents/skills/every-kind-ship" in human.stdout
    assert document["dry_run"] is True
    assert {a["action"] for a in document["actions"]} == {"remove"}
    assert reinstall["dry_run"] is True and reinstall["writes"] == 0
    actions = {a["target"]: a["action"] for a in reinstall["actions"]}
    assert actions[".agents/skills/every-kind-ship"] == "replace"
    assert actions[".agents/skills/every-kind-review"] == "unchanged"
    assert snapshot(sandbox) == before
