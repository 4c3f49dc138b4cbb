"""`uze doctor`: one record per harness (docs/design.md), with the real command in a
subprocess. PATH is cut down to a folder holding exactly the binaries a test wants: two real
pinned harnesses (plus node), or small scripts standing in for a harness."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.lab import NODE_DIR, PINS, require
from tests.conftest import Sandbox
from tests.e2e.conftest import EVERY_KIND, Uze, as_json, assert_ok, snapshot
from uze import __version__
from uze.doctor.evidence import shipped
from uze.harnesses import HARNESS_IDS

pytestmark = pytest.mark.e2e
RECORD_KEYS = {
    "id", "binary", "installed", "path", "version", "discovery", "behavior", "scopes",
    "skill_roots", "collisions", "checked_at", "evidence_id", "evidence", "status", "problems",
    "notes", "checks", "proven", "stale",
}
STATUSES = {"verified", "failed", "denied", "unverified"}
SKILL = "---\nname: x\ndescription: a skill the user wrote\n---\nBody.\n"


def _bin(sandbox: Sandbox, links: dict[str, Path], scripts: dict[str, str] | None = None) -> Path:
    """A folder holding exactly these links and shell scripts: the whole PATH of a test."""
    folder = sandbox.root / "bin"
    folder.mkdir(exist_ok=True)
    for name, target in links.items():
        (folder / name).symlink_to(target)
    for name, body in (scripts or {}).items():
        (folder / name).write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
        (folder / name).chmod(0o755)
    return folder


def _doctor(uze: Uze, path: Path, *args: str) -> dict[str, Any]:
    env = {**os.environ, "PATH": str(path)}
    document = as_json(assert_ok(uze("doctor", "--json", *args, env=env)))
    assert document["schema"] == 1 and document["uze_version"] == __version__
    assert [h["id"] for h in document["harnesses"]] == list(HARNESS_IDS)
    for record in document["harnesses"]:
        assert set(record) >= RECORD_KEYS, record
        assert record["discovery"] in STATUSES and record["behavior"] in STATUSES
        assert set(record["checks"]) == {"installed", "version", "discovery", "behavior"}
        for name, check in record["checks"].items():  # the protocol's words, each with why
            assert check["status"] in STATUSES and (check["reason"] == "") == (
                check["status"] == "verified"), (name, check)
        assert record["checks"]["discovery"]["status"] == record["discovery"]
        assert record["checks"]["behavior"]["status"] == record["behavior"]
    return {h["id"]: h for h in document["harnesses"]}


def _skill(root: Path, name: str = "x") -> None:
    (root / name).mkdir(parents=True)
    (root / name / "SKILL.md").write_text(SKILL, encoding="utf-8")


@pytest.mark.conformance
def test_with_two_real_harnesses_on_path_those_two_have_versions_and_evidence_the_rest_not(
    sandbox: Sandbox, uze: Uze
) -> None:
    links = {name: require(name) for name in ("codex", "opencode")}
    path = _bin(sandbox, {**links, "node": Path(NODE_DIR) / "node"})
    before = snapshot(sandbox)
    records = _doctor(uze, path)
    after = snapshot(sandbox)  # `opencode --version` itself fills ~/.cache/opencode: not ours
    assert after["project"] == before["project"]
    cache = after["uze_home"].pop("cache/harness-versions.json")  # the versions found (ADR 0085)
    assert {k: v for k, v in after["uze_home"].items() if k != "cache"} == before["uze_home"]
    assert isinstance(cache, bytes)
    kept = json.loads(cache.partition(b"\0")[0])["binaries"]
    assert {name: entry["version"] for name, entry in kept.items()} == {
        str(path / b): PINS[b].version for b in ("codex", "opencode")}
    shipped_ids = {r.evidence_id: r for r in shipped().records}
    for harness, binary in (("codex", "codex"), ("opencode", "opencode")):
        record = records[harness]
        assert record["installed"] is True and record["path"] == str(path / binary)
        assert record["version"] == PINS[binary].version
        assert record["evidence_id"] in record["evidence"]
        used = [shipped_ids[e] for e in record["evidence"]]
        assert used and all(
            (r.harness, r.harness_version) == (harness, PINS[binary].version) for r in used
        )
        assert "not_installed" not in record["problems"]
        assert {n: c["status"] for n, c in record["checks"].items()} == dict.fromkeys(
            ("installed", "version", "discovery", "behavior"), "verified")
        (proven,) = record["proven"]  # the evidence names its version, date and environment
        assert proven["version"] == PINS[binary].version and record["stale"] is False
        assert proven["checked_at"] == max(r.checked_at for r in used)
        assert proven["environments"] and proven["permissions"]
    assert records["codex"]["discovery"] == "verified"  # backed in both scopes (test_evidence)
    rests_on = {h: {shipped_ids[e].capability for e in records[h]["evidence"]}
                for h in ("codex", "opencode")}  # the portable events and tools too (adr/0098)
    assert {"hook.event.prompt", "hook.event.substop", "tool.call"} <= rests_on["codex"]
    assert "tool.call" in rests_on["opencode"]
    for harness in set(HARNESS_IDS) - {"codex", "opencode"}:
        record = records[harness]
        assert (record["installed"], record["path"], record["version"]) == (False, None, None)
        assert (record["discovery"], record["behavior"]) == ("unverified", "unverified")
        assert record["evidence_id"] is None and record["evidence"] == []
        assert record["problems"][0] == "not_installed" and record["status"] == "not_installed"
        assert record["checks"]["installed"] == {
            "status": "failed", "reason": f"`{record['binary']}` is not on PATH"}
        assert record["checks"]["version"]["status"] == "unverified"


def test_a_skill_name_in_two_roots_one_harness_reads_is_a_collision_for_that_harness_only(
    sandbox: Sandbox, uze: Uze
) -> None:
    path = _bin(sandbox, {})
    clean = _doctor(uze, path)
    assert all(h["collisions"] == [] and "collision" not in h["problems"] for h in clean.values())
    _skill(sandbox.project / ".claude" / "skills")
    _skill(sandbox.project / ".agents" / "skills")
    _skill(sandbox.home / ".claude" / "skills")
    records = _doctor(uze, path)
    assert records["opencode"]["collisions"] == [{
        "name": "x", "roots": [".claude/skills", ".agents/skills", "~/.claude/skills"],
        "owned_by_uze": False,
    }]
    assert records["claude_code"]["collisions"] == [
        {"name": "x", "roots": [".claude/skills", "~/.claude/skills"], "owned_by_uze": False}
    ]
    assert records["codex"]["skill_roots"] == [".agents/skills"]
    assert records["codex"]["collisions"] == [], "codex reads .agents/skills only of these"
    for harness in ("opencode", "claude_code"):
        assert records[harness]["problems"][:2] == ["not_installed", "collision"]
    assert "collision" not in records["codex"]["problems"]
    text = assert_ok(uze("doctor", env={**os.environ, "PATH": str(path)})).stdout
    assert (
        "opencode: skill x is in .claude/skills, .agents/skills, ~/.claude/skills: the harness "
        "reads more than one copy" in text
    )


def test_the_copies_uze_itself_shares_between_roots_are_listed_but_not_a_problem(
    sandbox: Sandbox, uze: Uze
) -> None:
    path = _bin(sandbox, {})
    assert_ok(uze("install", str(EVERY_KIND), "--harness", "all", "--trust"))
    records = _doctor(uze, path)
    names = {c["name"]: c for c in records["opencode"]["collisions"]}
    # OpenCode reads one copy (.agents/skills): Claude Code's plugin copy has no `name`, so
    # OpenCode lists none of it (adr/0048); a user's same-named folder in another root is listed
    assert not names
    _skill(sandbox.project / ".claude" / "skills", "every-kind-review")  # a second copy
    records = _doctor(uze, path)
    names = {c["name"]: c for c in records["opencode"]["collisions"]}
    assert set(names) == {"every-kind-review"} and not names["every-kind-review"]["owned_by_uze"]
    assert "collision" in records["opencode"]["problems"]
    (sandbox.project / ".claude/skills/every-kind-review/SKILL.md").unlink()
    (sandbox.project / ".claude/skills/every-kind-review").rmdir()
    assert "collision" not in _doctor(uze, path)["opencode"]["problems"]
    assert records["opencode"]["scopes"] == ["project"]
    _skill(sandbox.project / ".agents" / "skills", "every-kind-foreign")
    _skill(sandbox.project / ".claude" / "skills", "every-kind-foreign")
    assert "collision" in _doctor(uze, path)["opencode"]["problems"]


def test_a_binary_that_prints_no_version_is_installed_with_no_version_and_nothing_verified(
    sandbox: Sandbox, uze: Uze
) -> None:
    path = _bin(sandbox, {}, {"claude": 'echo "hello"'})
    record = _doctor(uze, path)["claude_code"]
    assert (record["installed"], record["version"]) == (True, None)
    assert record["notes"] == [f"{path / 'claude'} --version printed no version: hello"]
    assert record["checks"]["version"] == {"status": "failed", "reason": record["notes"][0]}
    assert (record["discovery"], record["behavior"], record["evidence_id"]) == (
        "unverified", "unverified", None)
    assert record["problems"] == ["discovery_unverified", "behavior_unverified"]


FAKE_OPENCODE = """case "$*" in
  --version) echo 1.18.33 ;;
  "debug skill") echo "EACCES: permission denied, scandir '$PWD/.opencode/skills'" >&2; exit 1 ;;
  "agent list") printf 'every-kind-reviewer (subagent)\\nevery-kind-reviewer (subagent)\\n' ;;
  "mcp list") echo "  ✓ docs connected" ;;
  *) exit 2 ;;
esac"""


def test_probe_reports_each_item_found_missing_twice_or_denied_and_keeps_it_as_local_evidence(
    sandbox: Sandbox, uze: Uze
) -> None:
    path = _bin(sandbox, {}, {"opencode": FAKE_OPENCODE})
    assert_ok(uze("install", str(EVERY_KIND), "--harness", "opencode", "--trust"))
    record = _doctor(uze, path, "--probe")["opencode"]
    states = {(p["kind"], p["name"]): (p["state"], p["seen"]) for p in record["probe"]}
    assert states[("agent", "every-kind-reviewer")] == ("duplicate", 2)
    # opencode starts what a folder configures: its listings run in a scratch copy holding
    # no server, so the project's MCP servers are not probed (ADR 0021)
    assert states[("mcp", "docs")] == ("unverified", None)
    assert states[("mcp", "search")] == ("unverified", None)
    assert states[("skill", "every-kind-review")] == ("denied", None)
    assert states[("instructions", "every-kind")] == ("unverified", None)
    assert {"not_discoverable", "permission_denied"} <= set(record["problems"])
    assert record["discovery"] in ("failed", "denied")
    local = json.loads((sandbox.uze_home / "evidence" / "local.json").read_text())
    results = {(r["capability"], r["scope"]): r["result"] for r in local["records"]}
    assert results == {
        ("agent.discovery", "project"): "failed",
        ("skill.discovery", "project"): "denied",
    }
    assert record["evidence_id"] in {r["evidence_id"] for r in local["records"]} | {
        r.evidence_id for r in shipped().records}


def test_unreadable_local_evidence_is_an_error_naming_the_file_and_nothing_is_written(
    sandbox: Sandbox, uze: Uze
) -> None:
    local = sandbox.uze_home / "evidence" / "local.json"
    local.parent.mkdir(parents=True)
    local.write_text("{broken", encoding="utf-8")
    before = snapshot(sandbox)
    result = uze("doctor", "--json")
    assert result.returncode == 1 and result.stdout == ""
    assert f"uze: error: {local}: not an evidence file" in result.stderr
    assert "hint: delete it" in result.stderr
    assert snapshot(sandbox) == before


COUNTING_CLAUDE = 'echo run >> "$0.calls"\necho "{version} (Claude Code)"'


def test_a_second_doctor_asks_no_binary_its_version_until_the_binary_changes(
    sandbox: Sandbox, uze: Uze
) -> None:
    proven = PINS["claude"].version  # the version the shipped evidence proves
    path = _bin(sandbox, {}, {"claude": COUNTING_CLAUDE.format(version=proven)})
    calls = path / "claude.calls"
    first = _doctor(uze, path)["claude_code"]
    assert first["version"] == proven and calls.read_text() == "run\n"
    assert first["stale"] is False and first["checks"]["version"]["status"] == "verified"
    again = _doctor(uze, path)["claude_code"]
    assert again["version"] == proven and calls.read_text() == "run\n", "answered from the cache"
    # another version installed: a new file (size and mtime move), asked again; its evidence
    # is stale: the shipped records prove only the other version
    script = path / "claude"
    script.write_text(f"#!/bin/sh\n{COUNTING_CLAUDE.format(version='2.1.300')}\n",
                      encoding="utf-8")
    os.utime(script, ns=(1, 1))
    newer = _doctor(uze, path)["claude_code"]
    assert calls.read_text() == "run\nrun\n" and newer["version"] == "2.1.300"
    assert newer["stale"] is True
    assert [p["version"] for p in newer["proven"]] == [proven]
    assert (newer["discovery"], newer["behavior"]) == ("unverified", "unverified")
    assert newer["checks"]["discovery"]["reason"].startswith("stale:")
    assert f"the evidence is for {proven}, not the installed 2.1.300" in newer["notes"][0]
    text = assert_ok(uze("doctor", env={**os.environ, "PATH": str(path)})).stdout
    assert f"claude_code: {newer['notes'][0]}" in " ".join(text.split())


def test_a_harness_binary_the_user_may_not_run_is_installed_denied(
    sandbox: Sandbox, uze: Uze
) -> None:
    path = _bin(sandbox, {}, {"gemini": "echo 0.61.0"})
    (path / "gemini").chmod(0o644)
    record = _doctor(uze, path)["gemini_cli"]
    assert record["installed"] is False and record["version"] is None
    assert record["checks"]["installed"] == {
        "status": "denied", "reason": f"{path / 'gemini'} is not executable by this user"}
    assert record["checks"]["version"]["status"] == "unverified"
