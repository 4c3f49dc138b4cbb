"""`uze list`: the packages installed in this project and in user scope."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from uze.paths import Paths
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


def list_installed(paths: Paths, *, project: Path | None = None,
                   cwd: Path) -> tuple[Path, list[Installed]]:
    """Every receipt in the project and user scopes, project first."""
    contexts = [open_scope(paths, scope, project, cwd) for scope in ("project", "user")]
    found = [
        Installed(r.name, r.version, r.scope, tuple(r.harnesses), r.tree,
                  *origin.get(r.name, ("", "")))
        for ctx in contexts
        for origin in (ctx.provenance(),)
        for r in ctx.receipts()
    ]
    return contexts[0].location.project, found


def listing_json(root: Path, found: list[Installed]) -> dict[str, Any]:
    """The whole `list --json` document."""
    return {"schema": 1, "project": str(root), "packages": [
        {"name": p.name, "version": p.version, "scope": p.scope,
         "harnesses": list(p.harnesses), "tree": p.tree, "source": p.source,
         "commit": p.commit} for p in found]}
