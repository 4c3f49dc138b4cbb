"""Human views of command results: rich renderables, and the console they are printed on
(JSON: uze.documents). Printed by cli.py and by the typer-free fast path of uze.__main__, so
both print the same bytes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.padding import Padding
from rich.segment import Segment
from rich.table import Column, Table
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


class Cell:
    """One line of plain text in a table cell, with the table's one-space padding built in.

    What `Table(...).add_row("text")` draws, about 3x cheaper: rich wraps, pads and measures a
    `Text` per cell (0.5 ms a projection row, 0.7 s of `uze status` on 20 packages, issue 8),
    where a cell that fits is one segment. One that does not fit is handed to the `Text` and
    `Padding` rich uses, so a narrow terminal wraps it the same way. No markup or emoji codes
    are read (a path with `[x]` in it prints as it is).
    """

    __slots__ = ("style", "text", "width")

    def __init__(self, text: str, style: str = "") -> None:
        self.text, self.style = text, style
        self.width = max(cell_len(line) for line in text.split("\n")) + 2

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        """The width of the whole text: the one figure a top-level table's layout reads (its
        column widths come from the maximum; tests/unit/test_render.py holds it to rich's)."""
        return Measurement(self.width, self.width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.width > options.max_width or "\n" in self.text:
            yield Padding(Text(self.text, style=self.style), (0, 1))
            return
        yield Segment(" ")
        yield Segment(self.text, console.get_style(self.style) if self.style else None)
        yield Segment(" ")


def new_table(*headers: str) -> Table:
    """A table whose cells are `Cell`s (`add_row`), drawn as rich draws a table of strings."""
    return Table(*(Column(header=Cell(h)) for h in headers), padding=0)


def add_row(table: Table, *cells: str | Cell) -> None:
    """Add a row to a `new_table`; a plain string becomes an unstyled `Cell`."""
    table.add_row(*(c if isinstance(c, Cell) else Cell(c) for c in cells))


_STATE_STYLE = {"matched": "green", "drifted": "yellow", "missing": "red", "conflict": "red",
                "blocked": "red", "undelivered": "dim"}


def _projection_table(rows: list[dict[str, Any]], last: str) -> list[RenderableType]:
    """A table of projections, then each distinct reason once, numbered from the table."""
    table = new_table("kind", "resource", "harness", "route", last, "target", "note")
    reasons: list[str] = []
    for row in rows:
        value = row.get(last, "")
        note = ""
        if row["reason"]:
            if row["reason"] not in reasons:
                reasons.append(row["reason"])
            note = f"[{reasons.index(row['reason']) + 1}]"
        add_row(table, row["kind"], row["resource"], row["harness"], row["route"],
                Cell(value, _STATE_STYLE.get(value, "")), row["target"] or "-", note)
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
    table = new_table("package", "version", "scope", "harnesses")
    for p in found:
        add_row(table, p.name, p.version, p.scope, ", ".join(p.harnesses))
    return [table]


def check_view(result: CheckResult) -> list[RenderableType]:
    """The matrix: one row per resource, one column per harness, each cell the route."""
    plan = result.plan
    table = new_table("resource", *plan.harnesses)
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
        add_row(table, f"{kind} {resource}", *(cells.get(h, "") for h in plan.harnesses))
    head = Text(f"{plan.package.name} {plan.package.version}: valid; routes install would take")
    notes = [Text(f"[{i}] {reason}") for i, reason in enumerate(reasons, start=1)]
    return [head, table, *notes]
