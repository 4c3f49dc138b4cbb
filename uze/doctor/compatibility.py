"""What uze claims per harness, whether evidence backs it, and docs/compatibility.md.

A claim is a capability cell (e.g. `mcp.discovery` in user scope) that the capability map's
route for the kind (native or adapted) promises. A cell is backed only by a `passed` record
for that exact harness version and scope; documentation never promotes anything. A
`<kind>.discovery` cell recorded `unverified` because no offline oracle shows it is backed by
the same kind's `<kind>.request` record: the model request is the stronger proof.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import PurePosixPath
from typing import Any, Final

import msgspec

from uze.capabilities.map import lookup
from uze.doctor.evidence import (
    CAPABILITY_IDS,
    CLAUDE_HOOK_BEHAVIOURS,
    CLAUDE_PLUGIN_CONTRACTS,
    NOT_RUNNABLE,
    REQUEST_KINDS,
    SCOPES,
    EvidenceFile,
    Record,
    Status,
    latest,
)
from uze.harnesses import HARNESS_IDS, REGISTRY
from uze.package.claude_hooks import ClaudeHookGroup
from uze.package.hooks import HooksFile

CLAIMED_ROUTES: Final = ("native", "adapted")
HARNESS_ORDER: Final = HARNESS_IDS
_COMMAND: Final = ({"type": "command", "command": "true"},)
# The portable hooks.json group each portable hook contract drives: (event, group). The four
# effects on a scripted shell call (PreToolUse); the capability map's other events and the
# model-run handlers (tests/conformance/test_portable_events.py, adr/0089, adr/0098).
_PORTABLE_GROUPS: Final[dict[str, tuple[str, dict[str, Any]]]] = {
    **{f"hook.{effect}": ("PreToolUse", {"matcher": "shell", "effect": effect,
                                         "hooks": _COMMAND})
       for effect in ("deny", "observe", "transform", "ask")},
    "hook.event.prompt": ("UserPromptSubmit", {"effect": "deny", "hooks": _COMMAND}),
    "hook.event.substop": ("SubagentStop", {"hooks": _COMMAND}),
    "hook.event.end": ("SessionEnd", {"hooks": _COMMAND}),
    "hook.event.compact": ("PreCompact", {"hooks": _COMMAND}),
    "hook.event.notify": ("Notification", {"hooks": _COMMAND}),
    "hook.handler.prompt": ("Stop", {"effect": "deny",
                                     "hooks": ({"type": "prompt", "prompt": "done?"},)}),
    "hook.handler.agent": ("Stop", {"effect": "deny",
                                    "hooks": ({"type": "agent", "prompt": "done?"},)}),
}
# Capability id prefix -> the kind of the capability map it rests on, where they differ: a
# package's tools are delivered as its generated MCP server (adr/0083).
_MAP_KINDS: Final = {"tool": "mcp"}


def kind_of(capability: str) -> str:
    """`skill.discovery` -> `skill`; `tool.call` -> `mcp` (the kind of the capability map)."""
    prefix = capability.partition(".")[0]
    return _MAP_KINDS.get(prefix, prefix)


def feature(capability: str) -> str:
    """The capability map feature a capability rests on: `protocol.claude` for the
    Claude-protocol hook contracts, else `base`."""
    return "protocol.claude" if capability in CLAUDE_HOOK_BEHAVIOURS else "base"


def _portable_delivery(harness: str, capability: str) -> tuple[str, str]:
    """(route, reason) of the portable group that hook contract drives, on `harness`."""
    from uze.hooks.delivery import deliver_hooks

    event, group = _PORTABLE_GROUPS[capability]
    hooks = msgspec.convert({"hooks": {event: [group]}}, HooksFile)
    root = PurePosixPath("/uze")
    (delivery,) = deliver_hooks(harness, hooks, "probe", root, root)
    return delivery.route, delivery.reason


# The Claude-protocol group each of those contracts drives (tests/conformance/test_claude_hooks).
_CLAUDE_GROUPS: Final = {
    "hook.claude.deny": ("PreToolUse", {"matcher": "Bash"}),
    "hook.claude.context": ("SessionStart", {"matcher": "startup"}),
    "hook.claude.after": ("PostToolUse", {"matcher": "Bash"}),
    "hook.claude.halt": ("PostToolUse", {"matcher": "Bash"}),
    "hook.claude.stop": ("Stop", {}),
    "hook.claude.substop": ("SubagentStop", {}),
    "hook.claude.prompt": ("UserPromptSubmit", {}),
    "hook.claude.end": ("SessionEnd", {}),  # tests/conformance/test_claude_session_events
}


def _claude_delivery(harness: str, capability: str) -> tuple[str, str]:
    """(route, reason) of the Claude-protocol group that contract drives, on `harness`."""
    from uze.hooks.delivery import deliver_claude_group

    # Verbatim: in its settings, or the package's own plugin.
    if REGISTRY[harness].hook_protocol.claude_verbatim:
        return "native", ""
    event, value = _CLAUDE_GROUPS[capability]
    group = ClaudeHookGroup(f"{event}-0", event, {
        **value, "hooks": [{"type": "command", "command": "true"}]})
    root = PurePosixPath("/uze")
    delivered = deliver_claude_group(harness, group, "probe", root, root)
    return delivered.route, delivered.reason


def claimed(harness: str, capability: str) -> bool:
    """Whether uze's routes promise that `harness` does `capability`."""
    if lookup(harness, kind_of(capability), feature(capability)).route not in CLAIMED_ROUTES:
        return False
    if capability in CLAUDE_PLUGIN_CONTRACTS:  # through Claude Code's own plugin (adr/0041)
        return REGISTRY[harness].claude_plugins is not None
    return route(harness, capability) in CLAIMED_ROUTES


def route(harness: str, capability: str) -> str:
    """The route uze delivers what the contract drives with: the hook group's own (its event,
    effect and handler type decide it), `adapted` at best for a generated tool server
    (adr/0083), else the capability map's route for the kind."""
    mapped = lookup(harness, kind_of(capability), feature(capability)).route
    if mapped not in CLAIMED_ROUTES:
        return mapped
    if capability in CLAUDE_HOOK_BEHAVIOURS:
        return _claude_delivery(harness, capability)[0]
    if capability in _PORTABLE_GROUPS:
        return _portable_delivery(harness, capability)[0]
    return "adapted" if capability.startswith("tool.") else mapped


def claims(harness: str) -> tuple[str, ...]:
    """Every capability id uze claims for `harness` (in CAPABILITY_IDS order)."""
    return tuple(c for c in CAPABILITY_IDS if claimed(harness, c))


def backing(records: Sequence[Record], harness: str, version: str, capability: str,
            scope: str) -> Record | None:
    """The record that decides one cell: its own, or for a discovery recorded `unverified`
    (no offline oracle) the same kind's `<kind>.request` record when there is one."""
    own = latest(records, harness, version, capability, scope)
    kind = kind_of(capability)
    if own is not None and own.result == "unverified" and capability.endswith(".discovery"):
        request = latest(records, harness, version, f"{kind}.request", scope)
        if kind in REQUEST_KINDS and request is not None:
            return request
    return own


def status(found: Iterable[Record | None]) -> Status:
    """The status several cells add up to: any failed, else any denied, else verified when
    every cell passed, else unverified (a missing record is unverified)."""
    results = [r.result if r is not None else "unverified" for r in found]
    if "failed" in results:
        return "failed"
    if "denied" in results:
        return "denied"
    if results and all(r == "passed" for r in results):
        return "verified"
    return "unverified"


class Cell(msgspec.Struct, frozen=True):
    """One harness x capability x scope in the table: status and what it rests on."""

    status: str
    basis: str


def cell(evidence: EvidenceFile, harness: str, capability: str, scope: str) -> Cell:
    """The table cell: the newest record of any version, or unverified with the reason."""
    if harness in NOT_RUNNABLE:
        return Cell("unverified", NOT_RUNNABLE[harness])
    versions = {r.harness_version for r in evidence.records if r.harness == harness}
    found = [
        r for v in versions if (r := backing(evidence.records, harness, v, capability, scope))
    ]
    if not found:
        if not claimed(harness, capability):
            return Cell("unverified", f"not claimed: {_why_not(harness, capability)}")
        return Cell("unverified", "claimed but no conformance run recorded it")
    record = max(found, key=lambda r: r.checked_at)
    via = "" if record.capability == capability else f" via {record.capability}"
    basis = f"{record.harness_version}, evidence `{record.evidence_id}`{via}"
    if record.result != "passed" and record.detail:
        basis += f": {record.detail.splitlines()[0][:160]}"
    return Cell(record.result, basis)


def _why_not(harness: str, capability: str) -> str:
    capability_row = lookup(harness, kind_of(capability), feature(capability))
    if capability_row.route not in CLAIMED_ROUTES:
        return f"route {capability_row.route} ({capability_row.reason})"
    if capability in CLAUDE_PLUGIN_CONTRACTS:
        return "a contract of Claude Code's own plugin (adr/0041); see docs/harnesses.md for " \
               "the label this harness takes"
    if capability in _CLAUDE_GROUPS:
        event = _CLAUDE_GROUPS[capability][0]
        route, reason = _claude_delivery(harness, capability)
        return (f"uze delivers a Claude-protocol {event} hook as {route}: "
                f"{reason.split('; ')[0]}")
    event, group = _PORTABLE_GROUPS[capability]
    route_, reason = _portable_delivery(harness, capability)
    what = f"a PreToolUse `{group['effect']}` shell hook" if event == "PreToolUse" else \
        f"a {event} hook of {group['hooks'][0]['type']} handlers"
    return f"uze delivers {what} as {route_}: {reason.split('; ')[0]}"


class Proven(msgspec.Struct, frozen=True):
    """What the evidence of one harness version rests on: when it was last checked, by which uze,
    on which environments (facts, or the digest alone when none are known) and with which
    permission states (CAP-006, CAP-031, CAP-040)."""

    version: str
    checked_at: str
    uze_versions: tuple[str, ...]
    environments: tuple[dict[str, str], ...]
    permissions: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """As `doctor --json` shows it."""
        return {"version": self.version, "checked_at": self.checked_at,
                "uze_versions": list(self.uze_versions),
                "environments": [dict(e) for e in self.environments],
                "permissions": list(self.permissions)}


# The hand-written audit that follows the generated table in docs/compatibility.md; the
# generator keeps it as it is (`with_audit`).
AUDIT_HEADING: Final = "\n## Audit: every item of the capability map, and the test that shows it"
NOT_RECORDED: Final = "not recorded (made before records kept it)"


def proven(records: Iterable[Record], environments: Mapping[str, Mapping[str, str]],
           harness: str) -> tuple[Proven, ...]:
    """Every version of `harness` the records prove something of, newest check first."""
    by_version: dict[str, list[Record]] = {}
    for record in records:
        if record.harness == harness:
            by_version.setdefault(record.harness_version, []).append(record)
    found = []
    for version, rows in by_version.items():
        digests = sorted({r.environment for r in rows})
        found.append(Proven(
            version, max(r.checked_at for r in rows), tuple(sorted({r.uze_version for r in rows})),
            tuple({"digest": d[:16], **environments.get(d, {})} for d in digests),
            tuple(sorted({r.permission or NOT_RECORDED for r in rows}))))
    return tuple(sorted(found, key=lambda p: p.checked_at, reverse=True))


def _facts(environment: Mapping[str, str]) -> str:
    shown = [f"{k} {v}" for k, v in sorted(environment.items())
             if k not in ("digest", "harness_version")]
    return ", ".join(shown) or f"digest {environment['digest']} (facts not recorded)"


def _proven_rows(evidence: EvidenceFile) -> list[str]:
    rows = ["| harness | proven version | last checked (UTC) | uze | environment | permission "
            "state of the runs |", "|---|---|---|---|---|---|"]
    for harness in HARNESS_ORDER:
        for p in proven(evidence.records, evidence.environments, harness):
            rows.append(
                f"| `{harness}` | {p.version} | {p.checked_at} | {', '.join(p.uze_versions)} | "
                + _escape("; ".join(_facts(e) for e in p.environments)) + " | "
                + _escape("; ".join(p.permissions)) + " |")
    return rows


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(evidence: EvidenceFile) -> str:
    """docs/compatibility.md, generated from `evidence` and the capability map."""
    out = [
        "# Compatibility: what the real harnesses were seen doing",
        "",
        "Generated from `uze/data/evidence.json` by `python scripts/update-evidence.py`; do not",
        "edit by hand (a test compares this file with the generator). Each cell is one",
        "harness x capability x scope: `passed` / `failed` / `denied` with the harness version",
        "and the evidence id of the conformance record, or `unverified` with the reason. A cell",
        "uze claims (`uze doctor`, the capability map) counts as verified only when it passed.",
        "",
        "## The evidence: versions, dates, environments",
        "",
        "Each harness version the records below prove something of, with the newest check,",
        "the uze version that ran it, the environment (OS, Python, Node) and the permission",
        "state the runs had (trust, approvals, permission mode). `uze doctor` calls evidence",
        "for any other version than the installed one stale; `scripts/check-evidence.py`",
        "(run in CI by tests/unit/doctor/test_release_evidence.py) fails when the pinned",
        "harness versions of `scripts/install-harnesses.sh` have no evidence here.",
        "",
        *_proven_rows(evidence),
        "",
    ]
    for harness in HARNESS_ORDER:
        out += [f"## `{harness}`", "", "| capability | route | project | user |",
                "|---|---|---|---|"]
        for capability in CAPABILITY_IDS:
            cells = [cell(evidence, harness, capability, scope) for scope in SCOPES]
            shown = [f"**{c.status}**: {_escape(c.basis)}" for c in cells]
            out.append(f"| `{capability}` | {route(harness, capability)} | "
                       + " | ".join(shown) + " |")
        out.append("")
    return "\n".join(out)


def with_audit(generated: str, current: str) -> str:
    """The generated table followed by the audit section of `current` (the file as it is)."""
    _, heading, audit = current.partition(AUDIT_HEADING)
    return generated + heading + audit


def release_gaps(evidence: EvidenceFile, pinned: Mapping[str, str]) -> list[str]:
    """What the shipped evidence lacks for a release (CAP-040): per pinned harness version
    (harness id -> version), that no record proves that version, or each claimed cell with no
    record for it. Empty when the evidence is as new as the pins."""
    gaps = []
    for harness, version in pinned.items():
        versions = [p.version for p in proven(evidence.records, evidence.environments, harness)]
        if version not in versions:
            gaps.append(f"{harness}: the shipped evidence proves {', '.join(versions) or 'no'} "
                        f"version(s), the pinned version is {version}")
            continue
        gaps += [
            f"{harness} {version}: no record of {capability} in {scope} scope"
            for capability in claims(harness) for scope in SCOPES
            if backing(evidence.records, harness, version, capability, scope) is None
        ]
    return gaps
