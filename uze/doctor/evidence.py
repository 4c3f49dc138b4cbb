"""Evidence records: what a real harness binary was seen doing with what uze delivered.

A record names one harness (id and exact version), one capability (e.g. `skill.discovery`,
`mcp.request`, `hook.deny`), one installation scope and the result of a contract that ran the
real binary. The conformance suite writes them; `scripts/update-evidence.py` merges a run into
the copy shipped in the package (`uze/data/evidence.json`, ADR 0009); `uze doctor --probe`
keeps local ones under `$UZE_HOME/evidence/`. Nothing is `verified` without such a record.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Annotated, Final, Literal

import blake3
import msgspec

from uze import fs
from uze.errors import UzeError
from uze.harnesses import REGISTRY
from uze.paths import Paths
from uze.vocabulary import Scope

Result = Literal["passed", "failed", "denied", "unverified"]
Status = Literal["verified", "failed", "denied", "unverified"]

SCHEMA_VERSION: Final = 1
SCOPES: Final[tuple[Scope, ...]] = ("project", "user")
KINDS: Final = ("skill", "agent", "mcp", "instructions", "hook", "command")
REQUEST_KINDS: Final = ("skill", "agent", "mcp", "instructions")
HOOK_BEHAVIOURS: Final = ("hook.deny", "hook.observe", "hook.transform", "hook.ask")
# Claude-protocol hooks through the translating wrapper (adr/0034, adr/0050): a deny blocks, a
# SessionStart additionalContext reaches the model, a PostToolUse block's reason and context
# reach the model, `continue: false` stops the agent, a Stop (SubagentStop) block makes the
# agent (subagent) go on, a UserPromptSubmit block keeps the prompt from the model, a
# SessionEnd handler runs with Claude's JSON when a headless run ends.
CLAUDE_HOOK_BEHAVIOURS: Final = (
    "hook.claude.deny", "hook.claude.context", "hook.claude.after", "hook.claude.halt",
    "hook.claude.stop", "hook.claude.substop", "hook.claude.prompt", "hook.claude.end",
)
# Claude Code's own plugin (adr/0041, tests/conformance/test_claude_plugin.py): a skill listed
# as `<package>:<skill>`, a command invoked by its label reaching the model, an agent's `tools`
# list refusing the other tools. Claimed for Claude Code only.
CLAUDE_PLUGIN_CONTRACTS: Final = ("skill.label", "command.label", "agent.tools")
# Portable hooks.json groups on the capability map's other events, through uze's wrapper
# (adr/0089, adr/0098; tests/conformance/test_portable_events.py): a UserPromptSubmit deny keeps
# the prompt from the model, a SubagentStop handler runs when a subagent ends, SessionEnd once
# when a headless run ends, PreCompact before a compaction, Notification when the harness
# notifies, each with the event's own fields in HOOK_INPUT.
HOOK_EVENT_BEHAVIOURS: Final = (
    "hook.event.prompt", "hook.event.substop", "hook.event.end", "hook.event.compact",
    "hook.event.notify",
)
# Portable `prompt` / `agent` handlers the harness's own model runs (adr/0089, adr/0098): the
# model gets the prompt with the hook input for $ARGUMENTS, and its `ok: false` blocks (a Stop
# group: the agent goes on with the reason).
HOOK_HANDLER_BEHAVIOURS: Final = ("hook.handler.prompt", "hook.handler.agent")
# A package's tools.json, as its generated stdio MCP server (adr/0083,
# tests/conformance/test_tool_server.py): the tool is offered once, the model's call runs the
# command with the arguments on stdin and its stdout comes back. The kind in the capability map
# is `mcp` (the server is delivered through the MCP route).
TOOL_CONTRACTS: Final = ("tool.call",)
CAPABILITY_IDS: Final[tuple[str, ...]] = (
    *(f"{kind}.discovery" for kind in KINDS),
    *(f"{kind}.request" for kind in REQUEST_KINDS),
    *HOOK_BEHAVIOURS,
    *CLAUDE_HOOK_BEHAVIOURS,
    *CLAUDE_PLUGIN_CONTRACTS,
    *HOOK_EVENT_BEHAVIOURS,
    *HOOK_HANDLER_BEHAVIOURS,
    *TOOL_CONTRACTS,
)
RESULTS: Final = ("passed", "failed", "denied", "unverified")
# Within one run the worst result of a cell wins; a pass beats "could not check".
_RANK: Final = {"failed": 3, "denied": 2, "passed": 1, "unverified": 0}
# Harnesses whose binary cannot run here: every cell stays unverified with this reason.
NOT_RUNNABLE: Final[dict[str, str]] = {
    h.id: h.doctor.not_runnable for h in REGISTRY.values() if h.doctor.not_runnable
}


class Record(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One contract's outcome for one harness version, capability and scope. A msgspec Struct,
    not a pydantic model (ADR 0101, as ADR 0015 did for receipts): importing pydantic and
    building its models was a third of every `uze doctor`. Unknown keys are refused, every
    field is typed and checked on load (`parse`, `make_record`)."""

    evidence_id: Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{16}\Z")]
    harness: str
    harness_version: str
    capability: str
    scope: Scope
    result: Result
    detail: str = ""
    environment: Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}\Z")]
    uze_version: str
    checked_at: str
    # The permission state of the run: what the user had granted the harness (workspace trust,
    # approvals, the permission mode it ran in); "" in records made before it was kept.
    permission: str = ""

    @property
    def key(self) -> tuple[str, str, str, str]:
        """What a newer record of the same check replaces."""
        return (self.harness, self.harness_version, self.capability, self.scope)


class EvidenceFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """The records kept in one file, sorted by key."""

    schema_version: int = SCHEMA_VERSION
    records: tuple[Record, ...] = ()
    # The facts behind each environment digest the records name (OS, python, node, harness and
    # uze versions); a digest no fact is known for is shown as the digest alone.
    environments: dict[str, dict[str, str]] = msgspec.field(default_factory=dict)


def environment_digest(facts: Mapping[str, str]) -> str:
    """blake3 of the facts that could change a result (OS, python, node, harness, uze)."""
    return blake3.blake3(json.dumps(dict(facts), sort_keys=True).encode()).hexdigest()


def make_record(
    *,
    harness: str,
    harness_version: str,
    capability: str,
    scope: Scope,
    result: Result,
    environment: str,
    uze_version: str,
    detail: str = "",
    checked_at: datetime | None = None,
    permission: str = "",
) -> Record:
    """A record with its time (UTC, now by default) and its id: a digest of everything else
    (the permission state only when there is one, so records made before it keep their ids).

    Raises ValueError for a capability or result outside the vocabulary.
    """
    if capability not in CAPABILITY_IDS:
        raise ValueError(f"unknown capability {capability!r}; one of {CAPABILITY_IDS}")
    if result not in RESULTS:
        raise ValueError(f"unknown result {result!r}; one of {RESULTS}")
    fields = {
        "harness": harness, "harness_version": harness_version, "capability": capability,
        "scope": scope, "result": result, "detail": detail, "environment": environment,
        "uze_version": uze_version,
        "checked_at": (checked_at or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    if permission:
        fields["permission"] = permission
    digest = blake3.blake3(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:16]
    return msgspec.convert({"evidence_id": digest, **fields}, Record)


def collapse(records: Iterable[Record]) -> list[Record]:
    """One record per key from one run: the worst result, the later one on a tie."""
    best: dict[tuple[str, str, str, str], Record] = {}
    for record in records:
        old = best.get(record.key)
        if old is None or _RANK[record.result] >= _RANK[old.result]:
            best[record.key] = record
    return sorted(best.values(), key=lambda r: r.key)


def merge(base: EvidenceFile, run: Iterable[Record],
          environments: Mapping[str, Mapping[str, str]] | None = None) -> EvidenceFile:
    """`base` with every key the run checked replaced by the run's record (worst per key), and
    the facts of each environment a kept record names (`environments`: the run's)."""
    fresh = {r.key: r for r in collapse(run)}
    kept = [r for r in base.records if r.key not in fresh]
    records = tuple(sorted([*kept, *fresh.values()], key=lambda r: r.key))
    known = {**base.environments, **{k: dict(v) for k, v in (environments or {}).items()}}
    named = {r.environment for r in records}
    return EvidenceFile(records=records,
                        environments={k: v for k, v in sorted(known.items()) if k in named})


def dump(evidence: EvidenceFile) -> bytes:
    """Stable JSON bytes (sorted keys, indent 2, trailing newline)."""
    return (json.dumps(msgspec.to_builtins(evidence), indent=2, sort_keys=True) + "\n").encode()


def parse(data: bytes, origin: str) -> EvidenceFile:
    """Read evidence bytes. Raises UzeError naming `origin` when they are not evidence."""
    try:
        raw = json.loads(data)
        if isinstance(raw, dict) and raw.get("schema_version", 0) > SCHEMA_VERSION:
            raise UzeError(
                f"{origin} was written by a newer uze (schema {raw['schema_version']})",
                hint="upgrade uze",
            )
        return msgspec.convert(raw, EvidenceFile)
    except ValueError as exc:  # msgspec.ValidationError is one
        raise UzeError(
            f"{origin}: not an evidence file ({str(exc).splitlines()[0]})",
            hint="delete it; `uze doctor --probe` records local evidence again",
        ) from None


def load(path: Path) -> EvidenceFile:
    """The evidence in `path`; empty when the file does not exist."""
    if not path.exists():
        return EvidenceFile()
    return parse(path.read_bytes(), str(path))


def save(path: Path, evidence: EvidenceFile) -> None:
    """Write evidence atomically."""
    fs.atomic_write(path, dump(evidence))


def shipped() -> EvidenceFile:
    """The evidence shipped inside the uze package (from the project's conformance runs)."""
    resource = resources.files("uze") / "data" / "evidence.json"
    return parse(resource.read_bytes(), "uze/data/evidence.json")


def local_path(paths: Paths) -> Path:
    """Where `uze doctor --probe` keeps what it saw on this machine."""
    return paths.uze_home / "evidence" / "local.json"


def latest(
    records: Iterable[Record], harness: str, version: str, capability: str, scope: str
) -> Record | None:
    """The newest record of one cell for that exact harness version, or None."""
    found = [
        r for r in records
        if (r.harness, r.harness_version, r.capability, r.scope)
        == (harness, version, capability, scope)
    ]
    return max(found, key=lambda r: r.checked_at, default=None)


def add_local(paths: Paths, records: Iterable[Record]) -> None:
    """Merge records into this machine's local evidence, under its own lock."""
    path = local_path(paths)
    with fs.file_lock(paths.uze_home / "locks" / "evidence.lock", paths.lock_timeout):
        save(path, merge(load(path), records))
