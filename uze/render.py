"""Human views of command results: rich renderables, and the consoles `uze.cli` prints them
on (JSON: uze.documents). Nothing here prints a view (ADR 0037)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.padding import Padding
from rich.segment import Segment
from rich.table import Column, Table
from rich.text import Text

from uze.documents import instructions_json, planned_rows
from uze.harnesses import HARNESS_IDS, REGISTRY
from uze.inert import inert

if TYPE_CHECKING:
    from uze.artifacts.kind import Action
    from uze.commands.check import CheckResult
    from uze.commands.listing import Installed
    from uze.commands.results import InstallResult
    from uze.commands.status import StatusResult
    from uze.commands.uninstall import UninstallResult
    from uze.vocabulary import State


COLOR_MODES = ("auto", "always", "never")
_color = "auto"


def set_color(mode: str) -> None:
    """Colour for every console made after this: `auto` (a terminal without `NO_COLOR`),
    `always` (even piped, even with `NO_COLOR`) or `never`. ValueError for anything else."""
    global _color
    if mode not in COLOR_MODES:
        raise ValueError(mode)
    _color = mode


class _Console(Console):
    """A console that treats a reader who stopped reading (`uze status | head -1`) as done:
    the rest of the output goes nowhere and uze exits 0, with nothing on stderr."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        quiet_stdout()
        raise SystemExit(0)


def quiet_stdout() -> None:
    """Point standard output at /dev/null, so nothing more (the interpreter's last flush
    included) can fail on a pipe whose reader has gone."""

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def console(*, stderr: bool = False, **options: Any) -> Console:
    """A console in the colour mode of `set_color`; `NO_COLOR` counts only in `auto`."""
    if _color == "never":
        options["color_system"] = None
    elif _color == "always":
        options.update(force_terminal=True, no_color=False)
    return _Console(stderr=stderr, highlight=False, **options)


def stdout_console() -> Console:
    """The console a human view is printed on; piped output is wide enough that tables do not
    fold."""

    first = console()
    if first.is_terminal and (_color != "always" or sys.stdout.isatty()):
        return first
    return console(width=160)


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
        self.text, self.style = inert(text, lines=True), style
        self.width = max(cell_len(line) for line in self.text.split("\n")) + 2

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


def _line(text: str, style: str = "") -> Text:
    """One line of a view, its text made inert (`uze.inert`: control characters escaped)."""
    return Text(inert(text), style=style)


def new_table(*headers: str) -> Table:
    """A table whose cells are `Cell`s (`add_row`), drawn as rich draws a table of strings."""
    return Table(*(Column(header=Cell(h)) for h in headers), padding=0)


def add_row(table: Table, *cells: str | Cell) -> None:
    """Add a row to a `new_table`; a plain string becomes an unstyled `Cell`."""
    table.add_row(*(c if isinstance(c, Cell) else Cell(c) for c in cells))


_STATE_STYLE = {"matched": "green", "drifted": "yellow", "missing": "red", "conflict": "red",
                "blocked": "red", "undelivered": "dim"}


def _projection_table(rows: list[dict[str, Any]], last: str,
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
    notes = [_line(f"[{i}] {reason}") for i, reason in enumerate(reasons, start=1)]
    return [table, *notes]


def _kept_lines(actions: tuple[Action, ...]) -> list[RenderableType]:
    out: list[RenderableType] = []
    for a in actions:
        if a.action in ("kept", "merge"):
            out.append(_line(f"kept {a.target}: {a.detail}", style="yellow"))
        if a.new_value:
            out.append(Text("  the new version reads:\n" + "\n".join(
                f"  | {inert(line)}" for line in a.new_value.splitlines())))
    return out


def install_view(result: InstallResult) -> list[RenderableType]:
    """Lines and tables for a human reading `uze install`."""
    package, loc = result.plan.package, result.plan.location
    head = "Dry run, nothing written: would install" if result.dry_run else "Installed"
    out: list[RenderableType] = [_line(
        f"{head} {package.name} {package.version} ({loc.scope} scope, {loc.project}) "
        f"for {', '.join(result.plan.harnesses)}"
    )]
    rows = planned_rows(result)
    out += _projection_table(rows, "action")
    out += delivery_summary(rows, result.plan.harnesses)
    out += instruction_lines(package) if result.dry_run else []
    out += warning_lines(package.warnings)
    out += _kept_lines(result.actions)
    if result.dry_run and result.plan.executions:
        out.append(_line("It will run (install asks before it does):"))
        out += [_line(f"  {e.describe()}") for e in result.plan.executions]
    if not result.dry_run and result.writes == 0:
        out.append(_line("Already installed: nothing changed."))
    return out


def uninstall_view(result: UninstallResult) -> list[RenderableType]:
    """Lines for a human reading `uze uninstall`."""
    verb = "Would remove" if result.dry_run else "Removed"
    head = (f"Dry run, nothing written: would uninstall {result.name}" if result.dry_run
            else f"Uninstalled {result.name}")
    out: list[RenderableType] = [_line(head)]
    out += [_line(f"{verb} {a.target}") for a in result.actions if a.action == "remove"]
    out += _kept_lines(result.actions)
    if result.kept:
        out.append(_line("What was kept now belongs to you; uze no longer tracks it."))
    return out


def status_view(result: StatusResult, *, full: bool = True) -> list[RenderableType]:
    """What a human reads for `uze status NAME` (full: one row per projection) or `uze status`
    (`glance_view`)."""
    if not result.packages:
        return [_line(f"No packages installed for {result.project}.")]
    if not full:
        return glance_view(result)
    out: list[RenderableType] = []
    for package in result.packages:
        data = package.to_json()
        out.append(_line(f"{data['name']} {data['version']} ({data['scope']} scope)", style="bold"))
        out += _projection_table(data["projections"], "state", labels=True)
        if data["executions"]:
            out.append(_line("Runs (accepted at install):"))
            out += [_line(f"  {line}") for line in data["executions"]]
    return out


def list_view(found: list[Installed]) -> list[RenderableType]:
    """The table of `uze list`."""
    if not found:
        return [_line("No packages installed.")]
    sourced = any(p.source for p in found)
    table = new_table("package", "version", "scope", "harnesses", *(["source"] if sourced else []))
    for p in found:
        origin = [p.source + (f" at {p.commit[:12]}" if p.commit else "")] if sourced else []
        add_row(table, p.name, p.version, p.scope, ", ".join(p.harnesses), *origin)
    return [table]


def check_view(result: CheckResult) -> list[RenderableType]:
    """The matrix: one row per resource, one column per harness, each cell the route."""
    plan = result.plan
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
    head = _line(f"{plan.package.name} {plan.package.version}: valid; routes install would take")
    notes = [_line(f"[{i}] {reason}") for i, reason in enumerate(reasons, start=1)]
    runs: list[RenderableType] = []
    if plan.executions:
        runs.append(_line("It would run or allow (install asks before it does):"))
        runs += [_line(f"  {e.describe()}") for e in plan.executions]
    else:
        runs.append(_line("Nothing runs: install asks no question."))
    return [head, table, *notes, *instruction_lines(plan.package),
            *warning_lines(plan.package.warnings), *runs]


# The glance (issue 23): one row per package, one mark per harness.
_PROBLEM_STATES = ("drifted", "missing", "conflict", "blocked")
_MARK_STYLE = {"✓": "green", "~": "yellow", "-": "dim", "·": "dim"}
LEGEND = ("✓ delivered  ~ degraded  - unsupported  · nothing there  ! not as written  "
          "? waits for trust")
_MAX_PROBLEM_LINES = 24


def harness_mark(routes: list[str], states: list[str], waiting: bool) -> str:
    """One harness's mark for one package: ✓ everything delivered with its meaning (native or
    adapted), ~ degraded (something lost or not delivered), - nothing delivered (unsupported),
    · nothing for that harness; then ! if anything is not as uze wrote it, ? if a hook waits
    for trust."""
    if not routes:
        return "·"
    if all(r == "unsupported" for r in routes):
        mark = "-"
    elif any(r in ("degraded", "unsupported") for r in routes):
        mark = "~"
    else:
        mark = "✓"
    if any(s in _PROBLEM_STATES for s in states):
        mark += "!"
    if waiting:
        mark += "?"
    return mark


def _problem_fix(name: str, state: str) -> str:
    if state == "drifted":
        return (f"`uze install <its folder> --force` overwrites the edits; `uze uninstall {name}` "
                "keeps the edited copies (--force removes them)")
    if state == "missing":
        return "`uze install <its folder>` writes it again"
    if state == "conflict":
        return "move what now owns the target away, then `uze install <its folder>`"
    return "repair each uze:begin/uze:end marker pair by hand, then run the command again"


class FirstThatFits:
    """The first of several renderables whose natural width fits where it is drawn; the last
    one when none does."""

    def __init__(self, *choices: RenderableType) -> None:
        self.choices = choices

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        unbounded = options.update_width(1 << 16)  # Measurement.get clamps to the width
        for choice in self.choices[:-1]:
            if Measurement.get(console, unbounded, choice).maximum <= options.max_width:
                yield choice
                return
        yield self.choices[-1]


def _glance_table(headers: list[str]) -> Table:
    """Columns without borders (two spaces apart, bold headers), so 7 harnesses fit 80
    columns; only the package column gives way on a narrow terminal."""
    columns = [Column(header=Cell(h), no_wrap=i > 0) for i, h in enumerate(headers)]
    return Table(*columns, padding=0, box=None)


def glance_view(result: StatusResult) -> list[RenderableType]:
    """`uze status`: one row per package (version, scope, a mark per harness), a footer that
    counts, then each problem with its fix; 20 packages x 7 harnesses fit in 60 lines."""
    waiting = {(name, scope) for name, scope, _ in result.untrusted_hooks}
    present = {h for package in result.packages for h in package.receipt.harnesses}
    used = [(h, REGISTRY[h].column or h) for h in HARNESS_IDS if h in present]
    extra = sorted(present - set(HARNESS_IDS))
    used += [(h, h) for h in extra]
    scoped = any(package.receipt.scope == "user" for package in result.packages)
    sources = [str(getattr(package, "source", "") or "") for package in result.packages]
    headers = ["package", "version", *(["scope"] if scoped else []), *(label for _, label in used)]
    rows: list[list[str | Cell]] = []
    in_place = undelivered = 0
    problems: dict[tuple[str, str], list[tuple[State, str, str, str]]] = {}
    for package in result.packages:
        r = package.receipt
        per: dict[str, tuple[list[str], list[str]]] = {}
        for p, state in zip(r.projections, package.states, strict=True):
            routes, states = per.setdefault(p.harness, ([], []))
            routes.append(p.route)
            states.append(state)
            if state == "matched":
                in_place += 1
            elif state == "undelivered":
                undelivered += 1
            else:
                problems.setdefault((r.name, r.scope), []).append(
                    (state, p.kind, p.resource, p.harness))
        trust_waiting = (r.name, r.scope) in waiting
        marks = []
        for h, _ in used:
            routes, states = per.get(h, ([], []))
            gated = h in REGISTRY and REGISTRY[h].hook_trust is not None
            mark = harness_mark(routes, states, trust_waiting and gated)
            style = "red" if "!" in mark else _MARK_STYLE.get(mark[0], "")
            marks.append(Cell(mark, style))
        rows.append([r.name, r.version, *([r.scope] if scoped else []), *marks])
    table = _glance_table(headers)
    for row in rows:
        add_row(table, *row)
    out: list[RenderableType] = [table]
    if any(sources):  # a column of its own where the terminal has room for it
        with_source = _glance_table([*headers, "source"])
        for row, source in zip(rows, sources, strict=True):
            add_row(with_source, *row, source or "-")
        out = [FirstThatFits(with_source, table)]
    footer = f"{in_place} projections in place"
    for index, ((name, scope), found) in enumerate(problems.items()):
        if index == 3:
            footer += f"; more in {len(problems) - 3} other packages"
            break
        counts: dict[State, int] = {}
        for state, *_ in found:
            counts[state] = counts.get(state, 0) + 1
        what = ", ".join(f"{n} {state}" for state, n in counts.items())
        first = ", ".join(sorted({f"{kind} {resource}" for _, kind, resource, _ in found})[:2])
        where = f"{name} (user scope)" if scope == "user" else name
        footer += f"; {what} in {where} ({first}{', ...' if len(found) > 2 else ''})"
    if undelivered:
        footer += f"; {undelivered} not delivered (unsupported)"
    out += [_line(footer + "."), _line(LEGEND, style="dim")]
    lines = _problem_lines(result, problems)
    if lines:
        out.append(_line("Problems:"))
        out += [_line(line) for line in lines]
    return out


def _problem_lines(result: StatusResult,
                   problems: dict[tuple[str, str], list[tuple[State, str, str, str]]]) -> list[str]:
    """Each problem with its fix, at most _MAX_PROBLEM_LINES lines (then where to see the rest)."""
    lines: list[str] = []
    for (name, _scope), found in problems.items():
        by_state: dict[State, list[str]] = {}
        for state, kind, resource, harness in found:
            by_state.setdefault(state, []).append(f"{kind} {resource} in {harness}")
        for state, items in by_state.items():
            shown = ", ".join(items[:4]) + (f" and {len(items) - 4} more" if len(items) > 4 else "")
            lines.append(f"  {name}: {state} {shown}")
            lines.append(f"    fix: {_problem_fix(name, state)}")
    hooks: dict[str, int] = {}
    for name, _scope, _target in result.untrusted_hooks:
        hooks[name] = hooks.get(name, 0) + 1
    if hooks:
        names = list(hooks)
        listed = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        lines.append(f"  {sum(hooks.values())} Codex hooks wait for trust ({listed}); Codex "
                     "skips them until trusted")
        lines.append(f"    fix: run `codex` in {result.project}, open /hooks and trust them "
                     "(one run only: `codex exec --dangerously-bypass-hook-trust`)")
    if len(lines) > _MAX_PROBLEM_LINES:
        rest = len(lines) - _MAX_PROBLEM_LINES + 1
        lines = lines[:_MAX_PROBLEM_LINES - 1]
        lines.append(f"  ... {rest} more lines: run `uze status NAME` for one package's detail")
    return lines


def delivery_summary(rows: list[dict[str, Any]], harnesses: Iterable[str]) -> list[RenderableType]:
    """One line: per harness, how many resources it receives and how many it cannot (the
    table above names each with its reason)."""
    parts = []
    for harness in harnesses:
        mine = [row for row in rows if row["harness"] == harness]
        lost = sum(row["route"] == "unsupported" for row in mine)
        parts.append(f"{harness} {len(mine) - lost} delivered" + (f", {lost} not" if lost else ""))
    return [_line("Per harness: " + "; ".join(parts))] if rows else []


def instruction_lines(package: object) -> list[RenderableType]:
    """Before instruction text lands in a user's files: its size and first line (inert)."""
    found = instructions_json(package)
    if found is None:
        return []
    return [_line(f"instructions: {found['file']}, {found['bytes']} bytes, first line: "
                  f"{found['first_line']}")]


def warning_lines(warnings: tuple[str, ...]) -> list[RenderableType]:
    """One `warning: location: message` line per thing read leniently (shown inert)."""
    return [_line(f"warning: {line}") for line in warnings]
