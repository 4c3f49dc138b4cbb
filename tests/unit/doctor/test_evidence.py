"""Evidence records, their merge, the claim/backing rules and the compatibility document."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.conformance.lab import PINS
from tests.conformance.oracles import REAL_HARNESSES
from tests.helpers import REPO
from uze.doctor.compatibility import (
    AUDIT_HEADING,
    backing,
    cell,
    claims,
    markdown,
    route,
    status,
)
from uze.doctor.evidence import (
    CAPABILITY_IDS,
    HOOK_EVENT_BEHAVIOURS,
    HOOK_HANDLER_BEHAVIOURS,
    NOT_RUNNABLE,
    SCOPES,
    TOOL_CONTRACTS,
    EvidenceFile,
    Record,
    collapse,
    dump,
    environment_digest,
    load,
    make_record,
    merge,
    parse,
    save,
    shipped,
)
from uze.errors import UzeError
from uze.harnesses import HARNESS_IDS

ENV = environment_digest({"os": "test"})


def _rec(capability: str = "skill.discovery", result: str = "passed", *, scope: str = "project",
         harness: str = "codex", version: str = "1.0.0", minute: int = 0) -> Record:
    return make_record(
        harness=harness, harness_version=version, capability=capability, scope=scope,  # type: ignore[arg-type]
        result=result, environment=ENV, uze_version="0.1.0",  # type: ignore[arg-type]
        checked_at=datetime(2026, 1, 1, 0, minute, tzinfo=UTC),
    )


def test_record_id_is_a_digest_of_every_field_and_changes_with_any_of_them() -> None:
    first = _rec()
    assert first.evidence_id == _rec().evidence_id
    assert first.checked_at == "2026-01-01T00:00:00Z"
    others = {_rec(result="failed").evidence_id, _rec(scope="user").evidence_id,
              _rec(version="1.0.1").evidence_id, _rec(minute=1).evidence_id}
    assert first.evidence_id not in others and len(others) == 4


def test_the_permission_state_is_kept_and_enters_the_id_only_when_there_is_one() -> None:
    before = _rec()  # made as before records kept a permission state: the same id as ever
    trusted = make_record(**{**_fields(), "permission": "workspace trusted"})
    other = make_record(**{**_fields(), "permission": "workspace not trusted"})
    assert before.permission == "" and trusted.permission == "workspace trusted"
    assert len({before.evidence_id, trusted.evidence_id, other.evidence_id}) == 3
    assert make_record(**_fields()).evidence_id == before.evidence_id


def _fields() -> dict[str, object]:
    return {"harness": "codex", "harness_version": "1.0.0", "capability": "skill.discovery",
            "scope": "project", "result": "passed", "environment": ENV, "uze_version": "0.1.0",
            "checked_at": datetime(2026, 1, 1, 0, 0, tzinfo=UTC)}


def test_environment_digest_depends_on_every_fact() -> None:
    base = {"os": "Linux", "python": "3.11.9", "node": "v22", "harness_version": "1", "uze": "0"}
    digests = {environment_digest(base)}
    for key in base:
        digests.add(environment_digest({**base, key: base[key] + "x"}))
    assert len(digests) == len(base) + 1


@pytest.mark.parametrize(("field", "value"), [("capability", "skill.magic"), ("result", "ok")])
def test_make_record_refuses_words_outside_the_vocabulary(field: str, value: str) -> None:
    kwargs = {"capability": "skill.discovery", "result": "passed", field: value}
    with pytest.raises(ValueError, match=value):
        _rec(kwargs["capability"], kwargs["result"])


def test_within_one_run_the_worst_result_of_a_cell_wins_and_a_pass_beats_unverified() -> None:
    run = [_rec(result="unverified"), _rec(result="passed", minute=1),
           _rec("mcp.discovery", "failed"), _rec("mcp.discovery", "passed", minute=2)]
    results = {r.capability: r.result for r in collapse(run)}
    assert results == {"skill.discovery": "passed", "mcp.discovery": "failed"}


def test_merge_replaces_only_the_cells_the_run_checked_and_keeps_other_versions() -> None:
    old = EvidenceFile(records=(_rec(), _rec("mcp.discovery"), _rec(version="0.9.0")))
    merged = merge(old, [_rec(result="failed", minute=5)])
    by_key = {r.key: r.result for r in merged.records}
    assert by_key == {
        ("codex", "1.0.0", "skill.discovery", "project"): "failed",
        ("codex", "1.0.0", "mcp.discovery", "project"): "passed",
        ("codex", "0.9.0", "skill.discovery", "project"): "passed",
    }


def test_evidence_round_trips_through_stable_json_bytes(tmp_path: Path) -> None:
    evidence = EvidenceFile(records=(_rec(), _rec("hook.deny", "denied", scope="user")))
    save(tmp_path / "e.json", evidence)
    data = (tmp_path / "e.json").read_bytes()
    assert data == dump(evidence) and data.endswith(b"}\n")
    assert load(tmp_path / "e.json") == evidence
    assert load(tmp_path / "absent.json") == EvidenceFile()


@pytest.mark.parametrize(
    ("data", "message"),
    [(b"{not json", "not an evidence file"),
     (b'{"schema_version": 1, "records": [{"harness": "x"}]}', "not an evidence file"),
     (b'{"schema_version": 7, "records": []}', "newer uze")],
)
def test_unreadable_evidence_is_a_user_error_naming_the_file(data: bytes, message: str) -> None:
    with pytest.raises(UzeError, match=message) as caught:
        parse(data, "/x/local.json")
    assert "/x/local.json" in caught.value.message and caught.value.hint


def test_status_adds_cells_up_worst_first_and_a_missing_record_is_unverified() -> None:
    assert status([_rec(), _rec()]) == "verified"
    assert status([_rec(), None]) == "unverified"
    assert status([_rec(result="denied"), _rec(result="unverified")]) == "denied"
    assert status([_rec(result="denied"), _rec(result="failed")]) == "failed"
    assert status([]) == "unverified"


def test_an_unverifiable_discovery_is_decided_by_the_request_record_and_nothing_else() -> None:
    no_oracle = _rec("agent.discovery", "unverified")
    request = _rec("agent.request", "passed")
    assert backing([no_oracle, request], "codex", "1.0.0", "agent.discovery", "project") == request
    assert backing([no_oracle], "codex", "1.0.0", "agent.discovery", "project") == no_oracle
    assert backing([request], "codex", "1.0.0", "agent.discovery", "project") is None
    assert backing([no_oracle, request], "codex", "2.0.0", "agent.discovery", "project") is None


def test_the_committed_evidence_is_what_the_package_ships() -> None:
    committed = load(REPO / "uze" / "data" / "evidence.json")
    assert shipped() == committed
    assert all(r.capability in CAPABILITY_IDS for r in committed.records)


def test_docs_compatibility_md_is_what_the_generator_makes_of_the_committed_evidence() -> None:
    doc = (REPO / "docs" / "compatibility.md").read_text(encoding="utf-8")
    generated, heading, _ = doc.partition(AUDIT_HEADING)  # the hand-written audit follows
    assert heading and generated == markdown(shipped()), (
        "run `python scripts/update-evidence.py --docs-only`")
    evidence = shipped()  # the evidence names each proven version, its date and environment
    for harness in REAL_HARNESSES:
        version = PINS[REAL_HARNESSES[harness].binary].version
        newest = max(r.checked_at for r in evidence.records if r.harness == harness)
        assert any(line.startswith(f"| `{harness}` | {version} | {newest} | 0.1.0 | ")
                   for line in doc.splitlines()), harness
    for harness in HARNESS_IDS:
        assert f"## `{harness}`" in doc
    for harness, reason in NOT_RUNNABLE.items():
        section = doc.partition(f"## `{harness}`")[2].partition("\n## ")[0]
        rows = [line for line in section.splitlines() if line.startswith("| `")]
        assert len(rows) == len(CAPABILITY_IDS)
        assert all(row.count(f"**unverified**: {reason}") == 2 for row in rows), rows


def _unbacked(harness: str, evidence: EvidenceFile) -> list[str]:
    """Each claimed cell of the pinned version that no `passed` record backs, with why."""
    version = PINS[REAL_HARNESSES[harness].binary].version
    problems = []
    for capability in claims(harness):
        for scope in SCOPES:
            record = backing(evidence.records, harness, version, capability, scope)
            if record is None or record.result != "passed":
                why = record.result if record is not None else "no record"
                problems.append(f"{harness} {version} {capability} {scope}: {why}")
    return problems


def test_the_claim_check_catches_a_missing_and_a_failed_cell() -> None:
    version = PINS["opencode"].version
    full = [_rec(c, harness="opencode", version=version, scope=s)
            for c in claims("opencode") for s in SCOPES]
    assert _unbacked("opencode", EvidenceFile(records=tuple(full))) == []
    broken = [r for r in full if r.capability != "mcp.discovery" or r.scope != "user"]
    broken.append(_rec("skill.request", "failed", harness="opencode", version=version, minute=9))
    assert sorted(_unbacked("opencode", EvidenceFile(records=tuple(broken)))) == [
        f"opencode {version} mcp.discovery user: no record",
        f"opencode {version} skill.request project: failed",
    ]


@pytest.mark.parametrize("harness", sorted(REAL_HARNESSES))
def test_every_route_claimed_for_a_testable_harness_is_backed_by_passing_evidence(
    harness: str,
) -> None:
    """The capability map claims native or adapted only where the shipped evidence of the
    pinned binary passed, in both scopes (a run of `UZE_RECORD_EVIDENCE=1 pytest
    tests/conformance` updates it)."""
    assert claims(harness), f"{harness}: the map claims nothing; the check would be empty"
    assert _unbacked(harness, shipped()) == []


def test_shipped_evidence_json_is_sorted_and_has_the_schema_version() -> None:
    raw = json.loads((REPO / "uze" / "data" / "evidence.json").read_text(encoding="utf-8"))
    assert raw["schema_version"] == 1
    keys = [(r["harness"], r["harness_version"], r["capability"], r["scope"])
            for r in raw["records"]]
    assert keys == sorted(keys)


NEW_CONTRACTS = (*HOOK_EVENT_BEHAVIOURS, *HOOK_HANDLER_BEHAVIOURS, *TOOL_CONTRACTS)


def test_portable_event_handler_and_tool_contracts_are_claimed_where_their_route_is() -> None:
    """adr/0098: each contract is claimed where the group (or tool server) it drives is
    delivered native or adapted, and its table row shows that route, not the kind's."""
    claimed = {h: {c for c in claims(h) if c in NEW_CONTRACTS} for h in REAL_HARNESSES}
    assert claimed == {
        "claude_code": set(NEW_CONTRACTS),
        "codex": {"hook.event.prompt", "hook.event.substop", "tool.call"},
        "gemini_cli": {"hook.event.prompt", "hook.event.end", "tool.call"},
        "opencode": {"tool.call"},
    }
    assert route("codex", "hook.event.end") == "degraded"  # Codex clamps SessionEnd to 3 s
    assert route("gemini_cli", "hook.event.compact") == "degraded"  # before each request
    assert route("claude_code", "hook.handler.prompt") == "adapted"
    assert route("opencode", "tool.call") == "adapted"  # a generated server (adr/0083)
    unclaimed = cell(EvidenceFile(), "codex", "hook.handler.agent", "user")
    assert unclaimed.status == "unverified" and "unsupported" in unclaimed.basis
    assert "skips agent hook handlers" in unclaimed.basis  # the harness module's reason
