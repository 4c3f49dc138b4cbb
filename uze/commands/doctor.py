"""`uze doctor`: one record per harness (docs/design.md): installed, version, what evidence
proves for that exact version, the skill roots it reads here and the skill names they share.

Each record says, in the capability-map protocol's words (verified / failed / denied /
unverified, ADR 0085), whether the harness is installed, whether its version could be read, and
what discovery and behaviour evidence proves. `verified` needs a `passed` record for the exact
version found on PATH, in every scope considered (shipped evidence, or local evidence a `--probe`
run recorded); evidence of another version only is stale, so unverified. `--probe` runs the
installed harness's own listing commands (uze/doctor/probes.py) and reports what it sees of
each item the receipts say uze delivered; an item a harness hides because the workspace is not
trusted is `denied` with the harness's own words, never failed. Versions are cached by binary
(uze/doctor/versions.py). Nothing here prints.
"""

from __future__ import annotations

import platform
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal

import msgspec

from uze import __version__
from uze.doctor import compatibility, evidence
from uze.doctor.compatibility import Proven
from uze.doctor.evidence import Record, Status
from uze.doctor.probes import UNTRUSTED, ProbeItem, Runner, probe_env
from uze.doctor.versions import Check, VersionCache
from uze.harnesses import REGISTRY
from uze.harnesses.base import Harness
from uze.location import Location
from uze.paths import Paths
from uze.state import receipt_cache
from uze.state.context import ScopeContext, open_scope
from uze.state.receipts import Receipt, TreeArtifact
from uze.vocabulary import Scope

Problem = Literal[
    "not_installed", "not_discoverable", "discovery_unverified", "collision",
    "workspace_untrusted", "permission_denied", "behavior_failed", "behavior_unverified",
]
VERSION_TIMEOUT: Final = 20
CHECKS: Final = ("installed", "version", "discovery", "behavior")


class Collision(msgspec.Struct, frozen=True):
    """One skill name in several roots a harness reads; `owned_by_uze`: every copy is uze's."""

    name: str
    roots: tuple[str, ...]
    owned_by_uze: bool


class HarnessRecord(msgspec.Struct, frozen=True):
    """One harness as doctor sees it on this machine and project."""

    id: str
    binary: str
    installed: bool
    path: str | None
    version: str | None
    discovery: Status
    behavior: Status
    scopes: tuple[Scope, ...]
    skill_roots: tuple[str, ...]
    collisions: tuple[Collision, ...]
    checked_at: str
    evidence_id: str | None
    evidence: tuple[str, ...]
    problems: tuple[Problem, ...]
    notes: tuple[str, ...] = ()
    probe: tuple[ProbeItem, ...] | None = None
    checks: dict[str, Check] = msgspec.field(default_factory=dict)
    proven: tuple[Proven, ...] = ()
    stale: bool = False

    @property
    def status(self) -> str:
        """`ok` or the first (most severe) problem."""
        return self.problems[0] if self.problems else "ok"

    def to_json(self) -> dict[str, Any]:
        """One record of `doctor --json` (docs/design.md, output documents)."""
        doc: dict[str, Any] = {
            "id": self.id, "binary": self.binary, "installed": self.installed,
            "path": self.path, "version": self.version, "discovery": self.discovery,
            "behavior": self.behavior, "scopes": list(self.scopes),
            "skill_roots": list(self.skill_roots),
            "collisions": [
                {"name": c.name, "roots": list(c.roots), "owned_by_uze": c.owned_by_uze}
                for c in self.collisions
            ],
            "checked_at": self.checked_at, "evidence_id": self.evidence_id,
            "evidence": list(self.evidence), "status": self.status,
            "problems": list(self.problems), "notes": list(self.notes),
            "checks": {name: {"status": c.status, "reason": c.reason}
                       for name, c in self.checks.items()},
            "proven": [p.to_json() for p in self.proven], "stale": self.stale,
        }
        if self.probe is not None:
            doc["probe"] = [
                {"scope": p.scope, "kind": p.kind, "name": p.name, "package": p.package,
                 "state": p.state, "seen": p.seen, "command": p.command, "note": p.note}
                for p in self.probe
            ]
        return doc


class DoctorResult(msgspec.Struct, frozen=True):
    """Every harness, in registry order."""

    project: Path
    harnesses: tuple[HarnessRecord, ...]
    local_evidence: Path | None = None

    def to_json(self) -> dict[str, Any]:
        """`{"schema": 1, "harnesses": [record...]}` plus the project and the uze version."""
        return {"schema": 1, "uze_version": __version__, "project": str(self.project),
                "harnesses": [h.to_json() for h in self.harnesses]}


class _World(msgspec.Struct, frozen=True):
    """What every record reads: both scopes, their receipts and all evidence."""

    paths: Paths
    scopes: dict[Scope, ScopeContext]
    records: tuple[Record, ...]
    checked_at: str
    run: Runner
    owned: frozenset[Path] = msgspec.field(default_factory=frozenset)
    environments: dict[str, dict[str, str]] = msgspec.field(default_factory=dict)
    used: dict[Scope, frozenset[str]] = msgspec.field(default_factory=dict)  # harnesses targeted


def _skill_names(root: Path) -> tuple[list[str], bool]:
    """Folders holding a SKILL.md in `root`, and whether the root could be read."""
    try:
        return sorted(p.name for p in root.iterdir() if (p / "SKILL.md").is_file()), True
    except PermissionError:
        return [], False


def _roots(harness: Harness, world: _World) -> list[tuple[Location, Path]]:
    found: list[tuple[Location, Path]] = []
    for ctx in world.scopes.values():
        for root in harness.skills.roots(ctx.location):
            if root.is_dir() and all(root != seen for _, seen in found):
                found.append((ctx.location, root))
    return found


def skill_roots(harness: Harness, world: _World) -> tuple[tuple[str, ...], tuple[Collision, ...],
                                                          bool]:
    """Existing roots (as shown to users), collisions among them, and whether all were read."""
    names: dict[str, list[tuple[Location, Path]]] = {}
    readable = True
    for loc, root in _roots(harness, world):
        listed, ok = _skill_names(root)
        readable &= ok
        for name in listed:
            names.setdefault(name, []).append((loc, root / name))
    collisions = tuple(
        Collision(name, tuple(loc.display(p.parent) for loc, p in copies),
                  all(p in world.owned for _, p in copies))
        for name, copies in sorted(names.items()) if len(copies) > 1
    )
    shown = tuple(loc.display(root) for loc, root in _roots(harness, world))
    return shown, collisions, readable


def _scopes_of(harness: str, world: _World) -> tuple[Scope, ...]:
    """Scopes where a receipt targets the harness; both when none does."""
    used = tuple(scope for scope in world.scopes if harness in world.used.get(scope, ()))
    return used or ("project", "user")


def _status(harness: str, version: str | None, scopes: Sequence[Scope], world: _World,
            discovery: bool) -> tuple[Status, list[Record]]:
    """Discovery (or behaviour) status of the claimed cells, and the records it rests on."""
    wanted = [c for c in compatibility.claims(harness) if c.endswith(".discovery") == discovery]
    if version is None or not wanted:
        return "unverified", []
    found = [
        compatibility.backing(world.records, harness, version, capability, scope)
        for capability in wanted for scope in scopes
    ]
    return compatibility.status(found), [r for r in found if r is not None]


def _problems(installed: bool, discovery: Status, behavior: Status,
              collisions: Sequence[Collision], readable: bool,
              probe: Sequence[ProbeItem] | None) -> tuple[Problem, ...]:
    """Every problem, most severe first."""
    missing = any(p.state in ("missing", "duplicate") for p in probe or ())
    untrusted = any(p.state == "denied" and p.note.startswith(UNTRUSTED) for p in probe or ())
    refused = any(p.state == "denied" and not p.note.startswith(UNTRUSTED) for p in probe or ())
    checks: list[tuple[bool, Problem]] = [
        (not installed, "not_installed"),
        (installed and (discovery == "failed" or missing), "not_discoverable"),
        (any(not c.owned_by_uze for c in collisions), "collision"),
        (untrusted, "workspace_untrusted"),
        (not readable or refused or ("denied" in (discovery, behavior) and not untrusted),
         "permission_denied"),
        (installed and behavior == "failed", "behavior_failed"),
        (installed and discovery == "unverified" and not missing, "discovery_unverified"),
        (installed and behavior == "unverified", "behavior_unverified"),
    ]
    return tuple(problem for hit, problem in checks if hit)


def _record(harness: Harness, world: _World, probe: bool, versions: VersionCache,
            ) -> HarnessRecord:
    env = probe_env(world.paths.env)
    on_path = versions.find(harness.binary, world.paths.env.get("PATH", ""),
                            lambda path: world.run([path, "--version"], env, VERSION_TIMEOUT,
                                                   None))
    path, version = on_path.path, on_path.version
    notes = [on_path.version_check.reason] if path and version is None else []
    items = None
    if probe and path and version:
        from uze.doctor.probe_run import probe_harness

        items = probe_harness(harness.id, path, world.paths, world.scopes, world.run)
        world = _with_local(world, harness.id, version, items)
    scopes = _scopes_of(harness.id, world)
    discovery, found = _status(harness.id, version, scopes, world, discovery=True)
    behavior, more = _status(harness.id, version, scopes, world, discovery=False)
    roots, collisions, readable = skill_roots(harness, world)
    used = sorted({r.evidence_id: r for r in (*found, *more)}.values(), key=lambda r: r.checked_at)
    proven = compatibility.proven(world.records, world.environments, harness.id)
    stale = version is not None and bool(proven) and all(p.version != version for p in proven)
    if stale:
        notes.append(f"the evidence is for {', '.join(p.version for p in proven)}, not the "
                     f"installed {version}: stale, so unverified (docs/compatibility.md)")
    unknown = "" if version else "not installed" if path is None else "no version to check"
    checks = {"installed": on_path.installed, "version": on_path.version_check,
              "discovery": Check(discovery, unknown or _why(discovery, items, stale)),
              "behavior": Check(behavior, unknown or _why(behavior, None, stale))}
    return HarnessRecord(
        id=harness.id, binary=harness.binary, installed=path is not None, path=path,
        version=version, discovery=discovery, behavior=behavior, scopes=scopes,
        skill_roots=roots, collisions=collisions, checked_at=world.checked_at,
        evidence_id=used[-1].evidence_id if used else None,
        evidence=tuple(r.evidence_id for r in used),
        problems=_problems(path is not None, discovery, behavior, collisions, readable, items),
        notes=tuple(notes), probe=tuple(items) if items is not None else None,
        checks=checks, proven=proven, stale=stale,
    )


def _why(status: Status, items: Sequence[ProbeItem] | None, stale: bool) -> str:
    """The reason a discovery or behaviour status is not verified: the probe's own notes (the
    harness's words for an untrusted workspace), stale evidence, or no passed record."""
    if status == "verified":
        return ""
    said = sorted({p.note for p in items or () if p.state == status and p.note})
    if said:
        return "; ".join(said)
    if stale:
        return "stale: the evidence is for another version of the harness"
    return {"failed": "a record of this version failed", "denied": "a record of this version "
            "was denied"}.get(status, "no passed record for this version in every scope")


def _with_local(world: _World, harness: str, version: str, items: Sequence[ProbeItem]) -> _World:
    """Record what the probe saw as local evidence; the world now includes it."""
    records = probe_records(harness, version, items, world.paths)
    if records:
        evidence.add_local(world.paths, records)
    return _World(world.paths, world.scopes, (*world.records, *records), world.checked_at,
                  world.run, world.owned, world.environments, world.used)


def probe_records(harness: str, version: str, items: Sequence[ProbeItem],
                  paths: Paths) -> list[Record]:
    """One `<kind>.discovery` record per kind and scope the probe checked."""


    facts = {"os": f"{platform.system()} {platform.release()} {platform.machine()}",
             "python": platform.python_version(), "harness_version": version,
             "uze": __version__, "source": "uze doctor --probe"}
    cells: dict[tuple[str, Scope], list[ProbeItem]] = {}
    for item in items:  # a switched-off item says nothing of discovery
        if item.state not in ("unverified", "disabled"):
            cells.setdefault((item.kind, item.scope), []).append(item)
    return [
        evidence.make_record(
            harness=harness, harness_version=version, capability=f"{kind}.discovery",
            scope=scope, result=_result(found), environment=evidence.environment_digest(facts),
            uze_version=__version__, detail="; ".join(f"{i.name}: {i.state}" for i in found),
            permission=_permission(found),
        )
        for (kind, scope), found in sorted(cells.items())
    ]


def _permission(items: Sequence[ProbeItem]) -> str:
    """The permission state of a probe run: the harness's words when it did not trust the
    workspace, else the user's own settings (doctor grants and changes nothing)."""
    said = sorted({i.note for i in items if i.note.startswith(UNTRUSTED)})
    return "; ".join(said) or "as the user's own settings grant (uze doctor --probe changes none)"


def _result(items: Sequence[ProbeItem]) -> evidence.Result:
    states = {i.state for i in items}
    if "denied" in states:
        return "denied"
    return "passed" if states == {"found"} else "failed"


def _owned(scopes: dict[Scope, ScopeContext], found: dict[Scope, list[Receipt]]
           ) -> frozenset[Path]:
    """Every skill folder a receipt says uze wrote."""
    return frozenset(
        ctx.location.resolve(a.target)
        for scope, ctx in scopes.items() for r in found[scope]
        for a in r.artifacts if isinstance(a, TreeArtifact)
    )


def doctor(paths: Paths, *, project: Path | None = None, cwd: Path, probe: bool = False,
           run: Runner | None = None) -> DoctorResult:
    """A record per harness in registry order. Raises UzeError for unreadable evidence."""
    scopes: dict[Scope, ScopeContext] = {
        s: open_scope(paths, s, project, cwd) for s in ("project", "user")
    }
    shipped, local = evidence.shipped(), evidence.load(evidence.local_path(paths))
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if run is None:
        from uze.doctor.probe_run import run_command

        run = run_command
    # each scope's receipts read once (and kept by file stat, ADR 0101), not once per harness
    installed = {scope: receipt_cache.receipts(ctx) for scope, ctx in scopes.items()}
    used = {scope: frozenset(h for r in installed[scope] for h in r.harnesses)
            for scope in installed}
    world = _World(paths, scopes, (*shipped.records, *local.records), now, run,
                   _owned(scopes, installed), {**shipped.environments, **local.environments}, used)
    versions = VersionCache(paths)
    env = probe_env(paths.env)
    versions.prefetch((h.binary for h in REGISTRY.values()), paths.env.get("PATH", ""),
                      lambda path: run([path, "--version"], env, VERSION_TIMEOUT, None))
    found = tuple(_record(h, world, probe, versions) for h in REGISTRY.values())
    versions.save()
    return DoctorResult(scopes["project"].location.project, found,
                        evidence.local_path(paths) if probe else None)


def explain(record: HarnessRecord) -> list[str]:
    """One line per problem, in words, with the next step; then each note (a version that
    could not be read, stale evidence)."""
    lines = {
        "not_installed": "not on PATH",
        "not_discoverable": "the harness does not list everything uze installed"
        + (" (see the probe lines)" if record.probe else "; run `uze doctor --probe`"),
        "collision": "; ".join(
            f"skill {c.name} is in {', '.join(c.roots)}"
            for c in record.collisions if not c.owned_by_uze
        ) + ": the harness reads more than one copy",
        "workspace_untrusted": "the harness skips this project's items until you trust the "
        "workspace (see the probe lines for its own words)",
        "permission_denied": "permission denied: a skill root or the harness refused access",
        "behavior_failed": "a behaviour contract failed for this version (docs/compatibility.md)",
        "discovery_unverified": f"no passed discovery evidence for {record.version}: "
        "run `uze doctor --probe`",
        "behavior_unverified": f"no passed behaviour evidence for {record.version} "
        "(what reaches the model, hooks)",
    }
    who = {"not_installed": f"{record.id} (`{record.binary}`)"}  # one line names them all
    return [f"{who.get(p, record.id)}: {lines[p]}" for p in record.problems] + [
        f"{record.id}: {note}" for note in record.notes]


def probe_lines(record: HarnessRecord) -> list[str]:
    """What `--probe` saw, item by item; kinds it could not check summed up in one line."""
    items = record.probe or ()
    same: dict[tuple[str, str, str], list[str]] = {}  # one line per (scope, kind, what was seen)
    for p in items:
        if p.state != "unverified" or p.command:
            seen = p.state + (f" ({p.seen}x)" if p.state == "duplicate" else "") \
                + (f"; {p.note}" if p.note else "")
            same.setdefault((p.scope, p.kind, seen), []).append(p.name)
    shown = [f"{record.id}: {scope} {kind} {', '.join(names)}: {seen}"
             for (scope, kind, seen), names in same.items()]
    skipped = sorted({p.kind for p in items if p.state == "unverified" and not p.command})
    if skipped:
        from uze.doctor.probe_run import NOT_PROBED

        shown.append(f"{record.id}: not probed: {', '.join(skipped)} ({NOT_PROBED})")
    return shown
