"""Human views of command results: rich renderables, and the consoles `uze.cli` prints them
on (JSON: uze.ui.documents). Nothing here prints a view (ADR 0037)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rich.console import RenderableType
from rich.text import Text

from uze.inert import inert
from uze.install.rows import planned_rows
from uze.ui import summary
from uze.ui.console import Cell, add_row, new_table, styled_line
from uze.ui.declared_view import STATE_WORDS, check_lines, difference_lines, fresh_clone_lines
from uze.ui.documents import instructions_json
from uze.ui.glance import glance_view

if TYPE_CHECKING:
    from uze.artifacts.kind import Action
    from uze.commands.check import CheckResult
    from uze.commands.listing import Installed
    from uze.commands.status import StatusResult
    from uze.commands.uninstall import UninstallResult
    from uze.install.results import InstallResult


_STATE_STYLE = {"matched": "green", "drifted": "yellow", "missing": "red", "conflict": "red",
                "blocked": "red", "undelivered": "dim", "disabled": "dim"}


def projection_table(rows: list[dict[str, Any]], last: str,
                      labels: bool = False) -> list[RenderableType]:
    """A table of projections, then each distinct reason once, numbered from the table.

    `labels`: a column `invoke as`, what a user types in that harness (status, adr/0041)."""
    extra = ("invoke as",) if labels else ()
    table = new_table("kind", "resource", "harness", *extra, "route", last, "target", "note")
    reasons: list[str] = []
    for row in rows:
        value = row.get(last, "")
        note = ""
        if row["reason"]:
            if row["reason"] not in reasons:
                reasons.append(row["reason"])
            note = f"[{reasons.index(row['reason']) + 1}]"
        label = (row.get("label") or "-",) if labels else ()
        add_row(table, row["kind"], row["resource"], row["harness"], *label, row["route"],
                Cell(value, _STATE_STYLE.get(value, "")), row["target"] or "-", note)
    notes = [styled_line(f"[{i}] {reason}") for i, reason in enumerate(reasons, start=1)]
    return [table, *notes]


def _kept_lines(actions: tuple[Action, ...]) -> list[RenderableType]:
    out: list[RenderableType] = []
    for a in actions:
        if a.action in ("kept", "merge"):
            out.append(styled_line(f"kept {a.target}: {a.detail}", style="yellow"))
        if a.new_value:
            out.append(Text("  the new version reads:\n" + "\n".join(
                f"  | {inert(line)}" for line in a.new_value.splitlines())))
    return out


def install_view(result: InstallResult, verbose: bool = False) -> list[RenderableType]:
    """Lines for a human reading `uze install`: per harness what it gets, then what needs
    attention (`uze.ui.summary`); `verbose`: the table of every projection instead."""
    package, loc = result.plan.package, result.plan.location
    head = "Dry run, nothing written: would install" if result.dry_run else "Installed"
    out: list[RenderableType] = [styled_line(
        f"{head} {package.name} {package.version} ({loc.scope} scope, {loc.project}) "
        f"for {', '.join(result.plan.harnesses)}"
    )]
    rows = planned_rows(result)
    if verbose:
        out += projection_table(rows, "action")
        out += delivery_summary(rows, result.plan.harnesses)
    else:
        out += [styled_line(line) for line in summary.harness_lines(rows, result.plan.harnesses)]
        out += [styled_line(line) for line in summary.attention_lines(rows)]
    out += instruction_lines(package) if result.dry_run else []
    out += warning_lines(package.warnings)
    out += setting_lines(package)
    out += _kept_lines(result.actions)
    if result.dry_run and result.plan.executions:
        out.append(styled_line("It will run (install asks before it does):"))
        out += [styled_line(f"  {e.describe()}") for e in result.plan.executions]
    if not result.dry_run and result.writes == 0:
        out.append(styled_line("Already installed: nothing changed."))
    if not verbose and rows:
        out.append(styled_line("Every projection, its route and target: "
                               f"`uze status {package.name}` or --verbose", style="dim"))
    return out


def uninstall_view(result: UninstallResult) -> list[RenderableType]:
    """Lines for a human reading `uze uninstall`."""
    verb = "Would remove" if result.dry_run else "Removed"
    head = (f"Dry run, nothing written: would uninstall {result.name}" if result.dry_run
            else f"Uninstalled {result.name}")
    out: list[RenderableType] = [styled_line(head)]
    out += [styled_line(f"{verb} {a.target}" + (f": {a.detail}" if a.detail else ""))
            for a in result.actions if a.action == "remove"]
    out += _kept_lines(result.actions)
    if result.kept:
        out.append(styled_line("What was kept now belongs to you; uze no longer tracks it."))
    return out


def status_view(result: StatusResult, *, full: bool = True) -> list[RenderableType]:
    """What a human reads for `uze status NAME` (full: one row per projection) or `uze status`
    (`glance_view`)."""
    if result.gate:
        return [styled_line(line) for line in check_lines(result)]
    if not result.packages and not result.declared:
        return [styled_line(f"No packages installed for {result.project}.")]
    if not result.packages:
        return [styled_line(line) for line in fresh_clone_lines(result)]
    if not full:
        return glance_view(result)
    out: list[RenderableType] = []
    for package in result.packages:
        data = package.to_json()
        title = f"{data['name']} {data['version']} ({data['scope']} scope)"
        out.append(styled_line(title, style="bold"))
        out += projection_table(data["projections"], "state", labels=True)
        if data["executions"]:
            out.append(styled_line("Runs (accepted at install):"))
            out += [styled_line(f"  {line}") for line in data["executions"]]
    lines = [line for d in result.differences for line in difference_lines(d)]
    return [*out, *([styled_line("Not as uze.toml and uze.lock say:")] if lines else []),
            *(styled_line(line) for line in lines)]


def list_view(found: list[Installed]) -> list[RenderableType]:
    """The table of `uze list`."""
    if not found:
        return [styled_line("No packages installed.")]
    sourced = any(p.source for p in found)
    stated = any(p.state != "installed" for p in found)
    table = new_table("package", "version", "scope", "harnesses", *(["source"] if sourced else []),
                      *(["here"] if stated else []))
    for p in found:
        origin = [p.source + (f" at {p.commit[:12]}" if p.commit else "")] if sourced else []
        here = [STATE_WORDS.get(p.state, p.state)] if stated else []
        add_row(table, p.name, p.version, p.scope, ", ".join(p.harnesses), *origin, *here)
    fixes = sorted({p.fix for p in found if p.fix})
    return [table, *(styled_line(f"fix: {fix}") for fix in fixes)]


def check_view(result: CheckResult, verbose: bool = False) -> list[RenderableType]:
    """Per harness what install would deliver and what needs attention (`uze.ui.summary`);
    `verbose`: the matrix, one row per resource, one column per harness, each cell the route."""
    plan = result.plan
    head = styled_line(
        f"{plan.package.name} {plan.package.version}: valid; routes install would take")
    if not verbose:
        found = [{f: getattr(p, f) for f in ("kind", "resource", "harness", "route", "reason")}
                 for p in plan.projections]
        out = [head, *(styled_line(line) for line in summary.harness_lines(found, plan.harnesses)),
               *(styled_line(line) for line in summary.attention_lines(found))]
        out += [styled_line(f"refused: the package requires {p.kind} {p.resource} native on "
                            f"{p.harness}, where it is {p.route}")
                for p in plan.unmet_requirements()]
        return [*out, *instruction_lines(plan.package), *warning_lines(plan.package.warnings),
                *setting_lines(plan.package), *_runs(plan),
                styled_line("Every resource by harness: --verbose", style="dim")]
    table = new_table("resource", *plan.harnesses)
    rows: dict[tuple[str, str], dict[str, str]] = {}
    reasons: list[str] = []
    for p in plan.projections:
        cell: str = p.route
        if p.reason:
            if p.reason not in reasons:
                reasons.append(p.reason)
            cell += f" [{reasons.index(p.reason) + 1}]"
        if p.level == "required" and p.route != "native":
            cell += " (required: refused)"
        rows.setdefault((p.kind, p.resource), {})[p.harness] = cell
    for (kind, resource), cells in rows.items():
        add_row(table, f"{kind} {resource}", *(cells.get(h, "") for h in plan.harnesses))
    notes = [styled_line(f"[{i}] {reason}") for i, reason in enumerate(reasons, start=1)]
    return [head, table, *notes, *instruction_lines(plan.package),
            *warning_lines(plan.package.warnings), *setting_lines(plan.package), *_runs(plan)]


def _runs(plan: Any) -> list[RenderableType]:
    """What the package would run or allow (or that nothing runs)."""
    if not plan.executions:
        return [styled_line("Nothing runs: install asks no question.")]
    return [styled_line("It would run or allow (install asks before it does):"),
            *(styled_line(f"  {e.describe()}") for e in plan.executions)]


def delivery_summary(rows: list[dict[str, Any]], harnesses: Iterable[str]) -> list[RenderableType]:
    """One line: per harness, how many resources it receives and how many it cannot (the
    table above names each with its reason)."""
    parts = []
    for harness in harnesses:
        mine = [row for row in rows if row["harness"] == harness]
        lost = sum(row["route"] == "unsupported" for row in mine)
        parts.append(f"{harness} {len(mine) - lost} delivered" + (f", {lost} not" if lost else ""))
    return [styled_line("Per harness: " + "; ".join(parts))] if rows else []


def instruction_lines(package: object) -> list[RenderableType]:
    """Before instruction text lands in a user's files: its size and first line (inert)."""
    found = instructions_json(package)
    if found is None:
        return []
    return [styled_line(f"instructions: {found['file']}, {found['bytes']} bytes, first line: "
                  f"{found['first_line']}")]


def setting_lines(package: object) -> list[RenderableType]:
    """One line per plugin setting: how each harness gets it (adr/0078; never a value)."""
    return [styled_line(setting.describe()) for setting in getattr(package, "settings", ())]


def warning_lines(warnings: tuple[str, ...]) -> list[RenderableType]:
    """One `warning: location: message` line per thing read leniently (shown inert)."""
    return [styled_line(f"warning: {line}") for line in warnings]
