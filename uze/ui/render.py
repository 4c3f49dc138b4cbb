"""Human views of command results as view blocks (`uze.ui.blocks`: lines and tables, no rich),
which `uze.cli` prints as plain text or, at a terminal, with rich (JSON: uze.ui.documents).
Nothing here prints a view (ADR 0037)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from uze.install.rows import planned_rows
from uze.ui import summary
from uze.ui.blocks import Block, Cell, Grid, Line
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
                     labels: bool = False) -> list[Block]:
    """A table of projections, then each distinct reason once, numbered from the table.

    `labels`: a column `invoke as`, what a user types in that harness (status, adr/0041)."""
    extra = ("invoke as",) if labels else ()
    table = Grid("kind", "resource", "harness", *extra, "route", last, "target", "note")
    reasons: list[str] = []
    for row in rows:
        value = row.get(last, "")
        note = ""
        if row["reason"]:
            if row["reason"] not in reasons:
                reasons.append(row["reason"])
            note = f"[{reasons.index(row['reason']) + 1}]"
        label = (row.get("label") or "-",) if labels else ()
        table.add_row(row["kind"], row["resource"], row["harness"], *label, row["route"],
                      Cell(value, _STATE_STYLE.get(value, "")), row["target"] or "-", note)
    notes = [Line(f"[{i}] {reason}") for i, reason in enumerate(reasons, start=1)]
    return [table, *notes]


def _kept_lines(actions: tuple[Action, ...]) -> list[Block]:
    out: list[Block] = []
    for a in actions:
        if a.action in ("kept", "merge"):
            out.append(Line(f"kept {a.target}: {a.detail}", style="yellow"))
        if a.new_value:
            out.append(Line("  the new version reads:\n" + "\n".join(
                f"  | {line}" for line in a.new_value.splitlines()), lines=True))
    return out


def adopted_lines(result: InstallResult) -> list[Block]:
    """What an install took over as it found it (ADR 0096): each target, and that uninstall
    removes it."""
    targets = [a.target for a in result.actions if a.adopted]
    if not targets:
        return []
    verb = "Would adopt" if result.dry_run else "Adopted"
    them = "it" if len(targets) == 1 else "them"
    head = (f"{verb} {len(targets)} target{'' if len(targets) == 1 else 's'} already there "
            "byte for byte (nothing rewritten); "
            f"`uze uninstall {result.plan.package.name}` removes {them}:")
    return [Line(head, style="cyan"), *(Line(f"  {target}") for target in targets)]


def install_view(result: InstallResult, verbose: bool = False) -> list[Block]:
    """Lines for a human reading `uze install`: per harness what it gets, then what needs
    attention (`uze.ui.summary`); `verbose`: the table of every projection instead."""
    package, loc = result.plan.package, result.plan.location
    head = "Dry run, nothing written: would install" if result.dry_run else "Installed"
    out: list[Block] = [Line(
        f"{head} {package.name} {package.version} ({loc.scope} scope, {loc.project}) "
        f"for {', '.join(result.plan.harnesses)}"
    )]
    rows = planned_rows(result)
    if verbose:
        out += projection_table(rows, "action")
        out += delivery_summary(rows, result.plan.harnesses)
    else:
        out += [Line(line) for line in summary.harness_lines(rows, result.plan.harnesses)]
        out += [Line(line) for line in summary.attention_lines(rows)]
    out += adopted_lines(result)
    out += instruction_lines(package) if result.dry_run else []
    out += warning_lines(package.warnings)
    out += setting_lines(package)
    out += _kept_lines(result.actions)
    if result.dry_run and result.plan.executions:
        out.append(Line("It will run (install asks before it does):"))
        out += [Line(f"  {e.describe()}") for e in result.plan.executions]
    if not result.dry_run and result.writes == 0:
        out.append(Line("Already installed: nothing changed."))
    if not verbose and rows:
        out.append(Line("Every projection, its route and target: "
                               f"`uze status {package.name}` or --verbose", style="dim"))
    return out


def uninstall_view(result: UninstallResult) -> list[Block]:
    """Lines for a human reading `uze uninstall`."""
    verb = "Would remove" if result.dry_run else "Removed"
    head = (f"Dry run, nothing written: would uninstall {result.name}" if result.dry_run
            else f"Uninstalled {result.name}")
    out: list[Block] = [Line(head)]
    out += [Line(f"{verb} {a.target}" + (f": {a.detail}" if a.detail else ""))
            for a in result.actions if a.action == "remove"]
    out += _kept_lines(result.actions)
    if result.kept:
        out.append(Line("What was kept now belongs to you; uze no longer tracks it."))
    return out


def status_view(result: StatusResult, *, full: bool = True) -> list[Block]:
    """What a human reads for `uze status NAME` (full: one row per projection) or `uze status`
    (`glance_view`)."""
    if result.gate:
        return [Line(line) for line in check_lines(result)]
    if not result.packages and not result.declared:
        return [Line(f"No packages installed for {result.project}.")]
    if not result.packages:
        return [Line(line) for line in fresh_clone_lines(result)]
    if not full:
        return glance_view(result)
    out: list[Block] = []
    for package in result.packages:
        data = package.to_json()
        title = f"{data['name']} {data['version']} ({data['scope']} scope)"
        out.append(Line(title, style="bold"))
        out += projection_table(data["projections"], "state", labels=True)
        if data["executions"]:
            out.append(Line("Runs (accepted at install):"))
            out += [Line(f"  {line}") for line in data["executions"]]
    lines = [line for d in result.differences for line in difference_lines(d)]
    return [*out, *([Line("Not as uze.toml and uze.lock say:")] if lines else []),
            *(Line(line) for line in lines)]


def list_view(found: list[Installed]) -> list[Block]:
    """The table of `uze list`."""
    if not found:
        return [Line("No packages installed.")]
    sourced = any(p.source for p in found)
    stated = any(p.state != "installed" for p in found)
    table = Grid("package", "version", "scope", "harnesses", *(["source"] if sourced else []),
                 *(["here"] if stated else []))
    for p in found:
        origin = [p.source + (f" at {p.commit[:12]}" if p.commit else "")] if sourced else []
        here = [STATE_WORDS.get(p.state, p.state)] if stated else []
        table.add_row(p.name, p.version, p.scope, ", ".join(p.harnesses), *origin, *here)
    fixes = sorted({p.fix for p in found if p.fix})
    return [table, *(Line(f"fix: {fix}") for fix in fixes)]


def check_view(result: CheckResult, verbose: bool = False) -> list[Block]:
    """Per harness what install would deliver and what needs attention (`uze.ui.summary`);
    `verbose`: the matrix, one row per resource, one column per harness, each cell the route."""
    plan = result.plan
    head = Line(
        f"{plan.package.name} {plan.package.version}: valid; routes install would take")
    if not verbose:
        found = [{f: getattr(p, f) for f in ("kind", "resource", "harness", "route", "reason")}
                 for p in plan.projections]
        out = [head, *(Line(line) for line in summary.harness_lines(found, plan.harnesses)),
               *(Line(line) for line in summary.attention_lines(found))]
        out += [Line(f"refused: the package requires {p.kind} {p.resource} native on "
                            f"{p.harness}, where it is {p.route}")
                for p in plan.unmet_requirements()]
        return [*out, *instruction_lines(plan.package), *warning_lines(plan.package.warnings),
                *setting_lines(plan.package), *_runs(plan),
                Line("Every resource by harness: --verbose", style="dim")]
    table = Grid("resource", *plan.harnesses)
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
        table.add_row(f"{kind} {resource}", *(cells.get(h, "") for h in plan.harnesses))
    notes = [Line(f"[{i}] {reason}") for i, reason in enumerate(reasons, start=1)]
    return [head, table, *notes, *instruction_lines(plan.package),
            *warning_lines(plan.package.warnings), *setting_lines(plan.package), *_runs(plan)]


def _runs(plan: Any) -> list[Block]:
    """What the package would run or allow (or that nothing runs)."""
    if not plan.executions:
        return [Line("Nothing runs: install asks no question.")]
    return [Line("It would run or allow (install asks before it does):"),
            *(Line(f"  {e.describe()}") for e in plan.executions)]


def delivery_summary(rows: list[dict[str, Any]], harnesses: Iterable[str]) -> list[Block]:
    """One line: per harness, how many resources it receives and how many it cannot (the
    table above names each with its reason)."""
    parts = []
    for harness in harnesses:
        mine = [row for row in rows if row["harness"] == harness]
        lost = sum(row["route"] == "unsupported" for row in mine)
        parts.append(f"{harness} {len(mine) - lost} delivered" + (f", {lost} not" if lost else ""))
    return [Line("Per harness: " + "; ".join(parts))] if rows else []


def instruction_lines(package: object) -> list[Block]:
    """Before instruction text lands in a user's files: its size and first line (inert)."""
    found = instructions_json(package)
    if found is None:
        return []
    return [Line(f"instructions: {found['file']}, {found['bytes']} bytes, first line: "
                  f"{found['first_line']}")]


def setting_lines(package: object) -> list[Block]:
    """One line per plugin setting: how each harness gets it (adr/0078; never a value)."""
    return [Line(setting.describe()) for setting in getattr(package, "settings", ())]


def warning_lines(warnings: tuple[str, ...]) -> list[Block]:
    """One `warning: location: message` line per thing read leniently (shown inert)."""
    return [Line(f"warning: {line}") for line in warnings]
