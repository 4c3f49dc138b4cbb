"""Human and JSON views of command results. Builds renderables; cli.py prints them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from uze.commands.check import CheckResult
    from uze.commands.artifacts import Action
    from uze.commands.install import InstallResult
    from uze.commands.status import StatusResult
    from uze.commands.uninstall import UninstallResult

_STATE_STYLE = {"matched": "green", "drifted": "yellow", "missing": "red", "conflict": "red",
                "blocked": "red", "undelivered": "dim"}


def _projection_table(rows: list[dict[str, Any]], last: str) -> list[RenderableType]:
    """A table of projections, then each distinct reason once, numbered from the table."""
    table = Table("kind", "resource", "harness", "route", last, "target", "note")
    reasons: list[str] = []
    for row in rows:
        value = row.get(last, "")
        note = ""
        if row["reason"]:
            if row["reason"] not in reasons:
                reasons.append(row["reason"])
            note = f"[{reasons.index(row['reason']) + 1}]"
        table.add_row(row["kind"], row["resource"], row["harness"], row["route"],
                      Text(value, style=_STATE_STYLE.get(value, "")), row["target"] or "-", note)
    notes = [Text(f"[{i}] {reason}") for i, reason in enumerate(reasons, start=1)]
    return [table, *notes]


def _planned_rows(result: InstallResult) -> list[dict[str, Any]]:
    by_target = {a.target: a.action for a in result.actions}
    return [
        {"kind": p.kind, "resource": p.resource, "harness": p.harness, "route": p.route,
         "reason": p.reason, "target": p.target,
         "action": by_target.get(p.target, "none") if p.route != "unsupported" else "none"}
        for p in result.plan.projections
    ]


def install_json(result: InstallResult) -> dict[str, Any]:
    """The `install --json` document."""
    package = result.plan.package
    return {
        "schema": 1, "dry_run": result.dry_run, "project": str(result.plan.location.project),
        "package": {"name": package.name, "version": package.version, "tree": result.plan.tree,
                    "scope": result.plan.location.scope},
        "harnesses": list(result.plan.harnesses),
        "projections": _planned_rows(result),
        "actions": [_action_json(a) for a in result.actions],
        "executions": [e.describe() for e in result.plan.executions],
        "writes": result.writes,
    }


def _action_json(action: Action) -> dict[str, str]:
    out = {"target": action.target, "action": action.action, "detail": action.detail}
    if action.new_value:
        out["new_value"] = action.new_value
    return out


def _kept_lines(actions: tuple[Action, ...]) -> list[RenderableType]:
    out: list[RenderableType] = []
    for a in actions:
        if a.action in ("kept", "merge"):
            out.append(Text(f"kept {a.target}: {a.detail}", style="yellow"))
        if a.new_value:
            out.append(Text("  the new version reads:\n" + "\n".join(
                f"  | {line}" for line in a.new_value.splitlines())))
    return out


def install_view(result: InstallResult) -> list[RenderableType]:
    """Lines and tables for a human reading `uze install`."""
    package, loc = result.plan.package, result.plan.location
    head = "Dry run, nothing written: would install" if result.dry_run else "Installed"
    out: list[RenderableType] = [Text(
        f"{head} {package.name} {package.version} ({loc.scope} scope, {loc.project}) "
        f"for {', '.join(result.plan.harnesses)}"
    )]
    out += _projection_table(_planned_rows(result), "action")
    out += _kept_lines(result.actions)
    if result.dry_run and result.plan.executions:
        out.append(Text("It will run (install asks before it does):"))
        out += [Text(f"  {e.describe()}") for e in result.plan.executions]
    if not result.dry_run and result.writes == 0:
        out.append(Text("Already installed: nothing changed."))
    return out


def uninstall_json(result: UninstallResult) -> dict[str, Any]:
    """The `uninstall --json` document."""
    return {"schema": 1, "name": result.name, "dry_run": result.dry_run,
            "actions": [_action_json(a) for a in result.actions],
            "kept": [_action_json(a) for a in result.kept]}


def uninstall_view(result: UninstallResult) -> list[RenderableType]:
    """Lines for a human reading `uze uninstall`."""
    verb = "Would remove" if result.dry_run else "Removed"
    head = (f"Dry run, nothing written: would uninstall {result.name}" if result.dry_run
            else f"Uninstalled {result.name}")
    out: list[RenderableType] = [Text(head)]
    out += [Text(f"{verb} {a.target}") for a in result.actions if a.action == "remove"]
    out += _kept_lines(result.actions)
    if result.kept:
        out.append(Text("What was kept now belongs to you; uze no longer tracks it."))
    return out


def status_view(result: StatusResult) -> list[RenderableType]:
    """Tables for a human reading `uze status`."""
    if not result.packages:
        return [Text(f"No packages installed for {result.project}.")]
    out: list[RenderableType] = []
    for package in result.packages:
        data = package.to_json()
        out.append(Text(f"{data['name']} {data['version']} ({data['scope']} scope)", style="bold"))
        out += _projection_table(data["projections"], "state")
        if data["executions"]:
            out.append(Text("Runs (accepted at install):"))
            out += [Text(f"  {line}") for line in data["executions"]]
    return out


def _projection_json(p: Any) -> dict[str, Any]:
    return {"kind": p.kind, "resource": p.resource, "harness": p.harness, "route": p.route,
            "reason": p.reason, "target": p.target, "level": p.level}


def check_json(result: CheckResult) -> dict[str, Any]:
    """The `check --json` document: the package and exactly what install would project."""
    plan = result.plan
    package = plan.package
    return {
        "schema": 1,
        "package": {"name": package.name, "version": package.version, "tree": plan.tree},
        "harnesses": list(plan.harnesses),
        "projections": [_projection_json(p) for p in plan.projections],
        "unmet_requirements": [_projection_json(p) for p in plan.unmet_requirements()],
    }


def check_view(result: CheckResult) -> list[RenderableType]:
    """The matrix: one row per resource, one column per harness, each cell the route."""
    plan = result.plan
    table = Table("resource", *plan.harnesses)
    rows: dict[tuple[str, str], dict[str, str]] = {}
    reasons: list[str] = []
    for p in plan.projections:
        cell = p.route
        if p.reason:
            if p.reason not in reasons:
                reasons.append(p.reason)
            cell += f" [{reasons.index(p.reason) + 1}]"
        if p.level == "required" and p.route != "native":
            cell += " (required: refused)"
        rows.setdefault((p.kind, p.resource), {})[p.harness] = cell
    for (kind, resource), cells in rows.items():
        table.add_row(f"{kind} {resource}", *(cells.get(h, "") for h in plan.harnesses))
    head = Text(f"{plan.package.name} {plan.package.version}: valid; routes install would take")
    notes = [Text(f"[{i}] {reason}") for i, reason in enumerate(reasons, start=1)]
    return [head, table, *notes]
