"""Discovery contracts: after `uze install` the real harness discovers each skill, agent, MCP
server, hook and the instructions exactly once, under the expected name, through its own
offline oracle; after `uze uninstall` it discovers none of them. Project and user scope.

Cases come from the oracle table (tests/conformance/oracles.py): a harness added there joins
every contract. A kind with no offline oracle is skipped with the reason (test id suffix
`-no_offline_oracle`) and recorded as `unverified` evidence with that reason; the
scripted-model part of issue 7 (what reaches the model request, tool hooks firing on a scripted
tool call) is test_behaviour.py. Each case that runs records `<kind>.discovery` evidence,
`passed` or `failed` (tests/conformance/evidence.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.conformance.contracts import EXPECTED, KINDS, NoOracle, Oracle, RealHarness, Seen
from tests.conformance.evidence import EvidenceRun
from tests.conformance.lab import PACKAGE, PINS, Lab, require
from tests.conformance.oracles import NOT_RUNNABLE, REAL_HARNESSES
from uze.capabilities.map import lookup
from uze.harnesses import HARNESS_IDS

pytestmark = pytest.mark.conformance
SCOPES = ("project", "user")


def _case_id(harness: RealHarness, kind: str, scope: str) -> str:
    entry = harness.entry(kind, scope)
    suffix = ""
    if isinstance(entry, NoOracle):
        suffix = "-no_offline_oracle" if entry.needs_model else "-not_delivered_yet"
    return f"{harness.id}-{kind}-{scope}{suffix}"


def _cases() -> Iterator[object]:
    for harness in REAL_HARNESSES.values():
        for kind in KINDS:
            for scope in SCOPES:
                yield pytest.param(harness, kind, scope, id=_case_id(harness, kind, scope))


def _oracle_or_skip(
    harness: RealHarness, kind: str, scope: str, evidence: EvidenceRun
) -> Oracle:
    """The kind's oracle; skip (with the reason) where none runs offline or uze delivers none.

    A delivered kind with no offline oracle is recorded `unverified` with the reason.
    """
    entry = harness.entry(kind, scope)
    capability = lookup(harness.id, kind)
    if entry is None:
        pytest.fail(f"oracles.py has no entry for {harness.id} {kind}: add an Oracle or NoOracle")
    if isinstance(entry, Oracle):
        if capability.route == "unsupported":
            pytest.skip(f"uze does not deliver {kind} to {harness.id}: {capability.reason}")
        return entry
    if capability.route != "unsupported" and not entry.needs_model:
        pytest.fail(
            f"the capability map now claims {kind} for {harness.id} "
            f"({capability.route}): write its oracle ({entry.reason})"
        )
    if capability.route != "unsupported":
        evidence.record(harness.id, f"{kind}.discovery", scope, "unverified", entry.reason)
    pytest.skip(f"NO OFFLINE ORACLE for {harness.id} {kind}: {entry.reason}")


def _show(seen: Seen) -> str:
    return seen.evidence if len(seen.evidence) < 6000 else seen.evidence[:6000] + "\n[...]"


def assert_each_once(seen: Seen, names: tuple[str, ...], command: str) -> None:
    """Each name listed exactly once; where the oracle connects MCP servers, each connected."""
    counts = {name: seen.counts[name] for name in names}
    assert all(n == 1 for n in counts.values()), (
        f"`{command}` should list each of {names} exactly once, got {counts}\n{_show(seen)}"
    )
    if seen.connected is not None:
        missing = sorted(set(names) - seen.connected)
        assert not missing, f"`{command}` lists {missing} but not connected\n{_show(seen)}"


def assert_none(seen: Seen, names: tuple[str, ...], command: str) -> None:
    """None of the names listed."""
    counts = {name: seen.counts[name] for name in names if seen.counts[name]}
    assert not counts, f"`{command}` still lists {counts} after uninstall\n{_show(seen)}"


LABELLED = ("skill", "agent", "command")


def assert_labels_listed(lab: Lab, harness: str, kind: str, scope: str,
                         names: tuple[str, ...]) -> None:
    """The labels `uze status --json` shows for the harness's delivered resources of `kind`
    are the names the harness itself listed."""
    status = json.loads(lab.uze("status", PACKAGE, "--json", "--scope", scope).stdout)
    labels = {p["label"] for p in status["packages"][0]["projections"]
              if p["harness"] == harness and p["kind"] == kind and p["state"] == "matched"}
    assert labels == set(names), f"status labels {sorted(labels)} != listed {sorted(names)}"


@pytest.mark.parametrize(("harness", "kind", "scope"), list(_cases()))
def test_real_harness_discovers_each_installed_resource_once_and_none_after_uninstall(
    lab: Lab, evidence: EvidenceRun, harness: RealHarness, kind: str, scope: str
) -> None:
    oracle = _oracle_or_skip(harness, kind, scope, evidence)
    require(harness.binary)
    names = oracle.names or EXPECTED[kind]
    with evidence.check(harness.id, f"{kind}.discovery", scope):
        lab.install(harness.id, scope)
        assert_each_once(oracle.read(lab), names, oracle.command)
        if kind in LABELLED:  # status shows the name the harness lists (adr/0041)
            assert_labels_listed(lab, harness.id, kind, scope, names)
        lab.uninstall(scope)
        assert_none(oracle.read(lab), names, oracle.command)


def _skill_copies(lab: Lab, scope: str, name: str) -> list[str]:
    base = lab.sandbox.project if scope == "project" else lab.sandbox.home
    roots = (".claude/skills", ".agents/skills", ".opencode/skills", ".config/opencode/skills")
    return [root for root in roots if (base / root / name / "SKILL.md").is_file()]


@pytest.mark.parametrize("scope", SCOPES)
def test_with_harness_all_opencode_lists_each_skill_once_though_claude_codes_root_holds_it_too(
    lab: Lab, evidence: EvidenceRun, scope: str
) -> None:
    oracle = REAL_HARNESSES["opencode"].entry("skill", scope)
    assert isinstance(oracle, Oracle)
    require("opencode")
    names = EXPECTED["skill"]
    with evidence.check("opencode", "skill.discovery", scope):
        lab.install("all", scope)
        copies = {name: _skill_copies(lab, scope, name) for name in names}
        assert all(c == [".agents/skills"] for c in copies.values()), copies
        # OpenCode scans .claude/skills/** too: Claude Code's plugin copy of each skill, with no
        # `name`, is not listed (adr/0048)
        base = lab.sandbox.project if scope == "project" else lab.sandbox.home
        plugin = base / ".claude/skills" / PACKAGE / "skills"
        assert {p.parent.name for p in plugin.glob("*/SKILL.md")} == {
            n.removeprefix(f"{PACKAGE}-") for n in names}
        assert_each_once(oracle.read(lab), names, oracle.command)
        lab.uninstall(scope)
        assert_none(oracle.read(lab), names, oracle.command)


def test_every_uze_harness_has_an_oracle_table_or_a_reason_it_cannot_run_here() -> None:
    assert set(REAL_HARNESSES) | set(NOT_RUNNABLE) == set(HARNESS_IDS)
    assert not set(REAL_HARNESSES) & set(NOT_RUNNABLE)
    for harness in REAL_HARNESSES.values():
        assert set(harness.oracles) == set(KINDS), harness.id
        assert all(harness.entry(kind, scope) for kind in KINDS for scope in SCOPES), harness.id
        assert harness.binary in PINS, f"{harness.binary} has no pin in install-harnesses.sh"
