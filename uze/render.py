"""Human views of command results: rich renderables, and the console they are printed on
(JSON: uze.documents). Printed by cli.py and by the typer-free fast path of uze.__main__, so
both print the same bytes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from uze.documents import planned_rows

if TYPE_CHECKING:
    from uze.commands.artifacts import Action
    from uze.commands.check import CheckResult
    from uze.commands.listing import Installed
    from uze.commands.results import InstallResult
    from uze.commands.status import StatusResult
    from uze.commands.uninstall import UninstallResult

def stdout_console() -> Console:
    """The console a human view is printed on; piped output is wide enough that tables do not
    fold."""
    console = Console(highlight=False)
    if not console.is_terminal:
        console = Console(highlight=False, width=160)
    return console


def show(renderables: Iterable[RenderableType]) -> None:
    """Print a view on standard output."""
    console = stdout_console()
    for item in renderables:
        console.print(item)


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
    out += _projection_table(planned_rows(result), "action")
    out += _kept_lines(result.actions)
    if result.dry_run and result.plan.executions:
        out.append(Text("It will run (install asks before it does):"))
        out += [Text(f"  {e.describe()}") for e in result.plan.executions]
    if not result.dry_run and result.writes == 0:
        out.append(Text("Already installed: nothing changed."))
    return out


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


def list_view(found: list[Installed]) -> list[RenderableType]:
    """The table of `uze list`."""
    if not found:
        return [Text("No packages installed.")]
    table = Table("package", "version", "scope", "harnesses")
    for p in found:
        table.add_row(p.name, p.version, p.scope, ", ".join(p.harnesses))
    return [table]


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
