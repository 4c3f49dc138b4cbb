"""`uze status [NAME]`: per package, resource and harness, the route and the live state."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from uze.errors import NotInstalled
from uze.harnesses import REGISTRY
from uze.paths import Paths
from uze.state.context import ScopeContext, locked, open_scope, sweep_stamps
from uze.vocabulary import State

if TYPE_CHECKING:
    from uze.state.receipts import Receipt


class PackageStatus(msgspec.Struct, frozen=True):
    """One installed package and the state of each of its projections."""

    receipt: Receipt
    states: tuple[State, ...]  # parallel to receipt.projections
    source: str = ""  # as uze.lock pins it ("" without a pin)
    commit: str = ""

    def to_json(self) -> dict[str, Any]:
        """The `packages[]` object of `status --json` (docs/design.md, output documents)."""
        r = self.receipt
        projections = [
            {f: getattr(p, f) for f in p.__struct_fields__} | {"state": state}
            for p, state in zip(r.projections, self.states, strict=True)
        ]
        return {"name": r.name, "version": r.version, "scope": r.scope, "tree": r.tree,
                "projections": projections, "executions": list(r.executions),
                "source": self.source, "commit": self.commit}


class StatusResult(msgspec.Struct, frozen=True):
    """Status of every package in the scopes asked for. `untrusted_hooks`: (package, scope,
    target) of each Codex hook uze wrote that Codex has no trust record for (not in the JSON
    document: Codex keeps that record, uze only reads it)."""

    project: Path
    packages: tuple[PackageStatus, ...]
    untrusted_hooks: tuple[tuple[str, str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The whole `status --json` document."""
        return {"schema": 1, "project": str(self.project),
                "packages": [p.to_json() for p in self.packages]}


def _package_status(ctx: ScopeContext, receipt: Receipt, origin: tuple[str, str]) -> PackageStatus:
    # The kinds build receipt records: they load once there is a receipt (ADR 0015).
    from uze.artifacts import parts
    from uze.artifacts.registry import inspect_record, record_key

    records = {record_key(a): a for a in receipt.artifacts}
    owners = {p.target: parts.owner(p.target, records) for p in receipt.projections}
    live: dict[str, State] = {}
    for key, record in records.items():
        mine = {found[1] for found in owners.values() if found and found[0] == key}
        if parts.is_parted(record) and mine - {""}:
            live |= {f"{key}/{part}" if part else key: state
                     for part, state in parts.states(ctx, record, mine).items()}
        else:
            live[key] = inspect_record(ctx, record)
    states: tuple[State, ...] = tuple(
        "undelivered" if p.route == "unsupported" else live.get(p.target, "missing")
        for p in receipt.projections
    )
    return PackageStatus(receipt, states, *origin)


def _untrusted_hooks(paths: Paths, contexts: list[ScopeContext],
                     found: list[PackageStatus]) -> tuple[tuple[str, str, str], ...]:
    """Each delivered hook, in a harness that gates hooks on trust (Codex: `hook_trust`),
    whose file has no trust record in that harness's config."""
    hooks = [(package.receipt, p) for package in found for p, state in
             zip(package.receipt.projections, package.states, strict=True)
             if p.kind == "hook" and state == "matched"]
    gates = {h: gate for h in {p.harness for _, p in hooks}
             if h in REGISTRY and (gate := REGISTRY[h].hook_trust) is not None}
    if not gates:
        return ()
    trusted = {h: gate(paths) for h, gate in gates.items()}
    by_scope = {ctx.scope: ctx for ctx in contexts}
    out = []
    for receipt, p in hooks:
        if p.harness not in trusted:
            continue
        hook_file = by_scope[receipt.scope].location.resolve(p.target.split("#", 1)[0])
        if str(hook_file) not in trusted[p.harness]:
            out.append((receipt.name, receipt.scope, p.target))
    return tuple(out)


def status(
    paths: Paths,
    name: str | None = None,
    *,
    scope: Literal["project", "user", "all"] = "all",
    project: Path | None = None,
    cwd: Path,
) -> StatusResult:
    """Inspect installed packages without changing anything. Raises NotInstalled for NAME."""
    scopes: list[Literal["project", "user"]] = ["project", "user"] if scope == "all" else [scope]
    contexts = [open_scope(paths, s, project, cwd) for s in scopes]
    for ctx in contexts:
        if ctx.journal_root.exists():  # a command crashed mid-change: roll it back first
            with locked(ctx, store=False):
                pass
        sweep_stamps(ctx)
    found = [
        _package_status(ctx, receipt, origin.get(receipt.name, ("", "")))
        for ctx in contexts
        for origin in (ctx.provenance(),)
        for receipt in ctx.receipts()
        if name is None or receipt.name == name
    ]
    if name is not None and not found:
        raise NotInstalled(name, scope,
                           ", ".join(c.location.display(c.receipts_dir) for c in contexts))
    for ctx in contexts:  # what was hashed now need not be read next time (ADR 0011)
        ctx.hashes.save(merge=name is not None)
    return StatusResult(contexts[0].location.project, tuple(found),
                        _untrusted_hooks(paths, contexts, found))
