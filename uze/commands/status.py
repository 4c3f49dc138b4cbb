"""`uze status [NAME]`: per package, resource and harness, the route and the live state."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from uze.commands import artifacts as arts
from uze.commands.context import ScopeContext, locked, open_scope
from uze.errors import NotInstalled
from uze.paths import Paths

if TYPE_CHECKING:
    from uze.receipts import Receipt


class PackageStatus(msgspec.Struct, frozen=True):
    """One installed package and the state of each of its projections."""

    receipt: Receipt
    states: tuple[str, ...]  # parallel to receipt.projections

    def to_json(self) -> dict[str, Any]:
        """The `packages[]` object of DESIGN.md section 2."""
        r = self.receipt
        projections = [
            {f: getattr(p, f) for f in p.__struct_fields__} | {"state": state}
            for p, state in zip(r.projections, self.states, strict=True)
        ]
        return {"name": r.name, "version": r.version, "scope": r.scope, "tree": r.tree,
                "projections": projections, "executions": list(r.executions)}


class StatusResult(msgspec.Struct, frozen=True):
    """Status of every package in the scopes asked for."""

    project: Path
    packages: tuple[PackageStatus, ...]

    def to_json(self) -> dict[str, Any]:
        """The whole `status --json` document."""
        return {"schema": 1, "project": str(self.project),
                "packages": [p.to_json() for p in self.packages]}


def _package_status(ctx: ScopeContext, receipt: Receipt) -> PackageStatus:
    live = {arts.record_key(a): arts.inspect_record(ctx, a) for a in receipt.artifacts}
    states = tuple(
        "undelivered" if p.route == "unsupported" else live.get(p.target, "missing")
        for p in receipt.projections
    )
    return PackageStatus(receipt, states)


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
    found = [
        _package_status(ctx, receipt)
        for ctx in contexts
        for receipt in ctx.receipts()
        if name is None or receipt.name == name
    ]
    if name is not None and not found:
        raise NotInstalled(name, scope,
                           ", ".join(c.location.display(c.receipts_dir) for c in contexts))
    for ctx in contexts:  # what was hashed now need not be read next time (ADR 0011)
        ctx.hashes.save(merge=name is not None)
    return StatusResult(contexts[0].location.project, tuple(found))
