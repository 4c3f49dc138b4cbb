"""`uze list`: the packages installed in this project and in user scope, and those uze.toml
declares that are not installed here as uze.lock pins them (ADR 0062)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from uze.commands.declared import declared_rows
from uze.paths import Paths
from uze.state import receipt_cache
from uze.state.context import open_scope


class Installed(msgspec.Struct, frozen=True):
    """One installed package in one scope."""

    name: str
    version: str
    scope: str
    harnesses: tuple[str, ...]
    tree: str
    source: str = ""
    commit: str = ""
    state: str = "installed"  # a `Declared.state`: installed, not installed, other pin, ...
    fix: str = ""


def list_installed(paths: Paths, *, project: Path | None = None,
                   cwd: Path) -> tuple[Path, list[Installed]]:
    """Every receipt in the project and user scopes, project first, each with its state
    against uze.lock; then each package declared there but not installed here."""
    found = []
    contexts = [open_scope(paths, scope, project, cwd) for scope in ("project", "user")]
    for ctx in contexts:
        receipts = receipt_cache.receipts(ctx)
        rows = {d.name: d for d in declared_rows(ctx, receipts)[0]}
        found += [Installed(r.name, r.version, r.scope, tuple(r.harnesses), r.tree,
                            rows[r.name].source, rows[r.name].commit, rows[r.name].state,
                            rows[r.name].fix)
                  for r in receipts]
        found += [Installed(d.name, d.version, d.scope, d.harnesses, d.tree, d.source, d.commit,
                            d.state, d.fix)
                  for d in rows.values() if d.state in ("not installed", "not pinned")]
    return contexts[0].location.project, found


def listing_json(root: Path, found: list[Installed]) -> dict[str, Any]:
    """The whole `list --json` document."""
    return {"schema": 1, "project": str(root), "packages": [
        {"name": p.name, "version": p.version, "scope": p.scope,
         "harnesses": list(p.harnesses), "tree": p.tree, "source": p.source,
         "commit": p.commit, "state": p.state, "fix": p.fix} for p in found]}
