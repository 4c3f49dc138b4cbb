"""The rows a person reads of an install: one per projection, with its route and the action on
the artifact that carries it. `install --json`, the per-harness summary (`uze.ui.summary`) and
the converge and update reports (which install many packages) all read these rows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from uze.artifacts.parts import owner

if TYPE_CHECKING:
    from uze.install.results import InstallResult
    from uze.state.receipts import Receipt

Row = dict[str, str]


def planned_rows(result: InstallResult) -> list[Row]:
    """One row per projection, with the action on the artifact that carries it (the folder
    around a part of a plugin folder, `uze.artifacts.parts`)."""
    by_target = {a.target: a.action for a in result.actions}
    rows = []
    for p in result.plan.projections:
        found = owner(p.target, by_target) if p.route != "unsupported" else None
        rows.append({"kind": p.kind, "resource": p.resource, "harness": p.harness,
                     "route": p.route, "reason": p.reason, "target": p.target, "label": p.label,
                     "action": by_target[found[0]] if found else "none"})
    return rows


def recorded_rows(receipt: Receipt) -> list[Row]:
    """The rows of a package already installed, as its receipt records them; nothing was
    written for it (action `unchanged`, `none` where undelivered)."""
    return [{"kind": p.kind, "resource": p.resource, "harness": p.harness, "route": p.route,
             "reason": p.reason, "target": p.target, "label": p.label,
             "action": "none" if p.route == "unsupported" else "unchanged"}
            for p in receipt.projections]
