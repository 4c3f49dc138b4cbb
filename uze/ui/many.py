"""The report of a command that installs many packages: `uze install` with no SOURCE (a
converge) and `uze update` (issue 30 item 12, ADR 0066). Each package's line, then the line per
harness a single install prints (`uze.ui.summary`), then what needs attention once for all of
them, each row named with its package; `verbose`: each package's table of every projection.

The default view is plain lines (the projection tables load only for `verbose`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from uze.ui import summary

if TYPE_CHECKING:
    from uze.commands.converge import ConvergeResult
    from uze.commands.update import DriftReport
    from uze.install.rows import Row

HINT = "Every projection, its route and target: `uze status NAME` or --verbose"


def _harnesses(rows: Sequence[Row]) -> list[str]:
    return list(dict.fromkeys(row["harness"] for row in rows))


def packages_view(packages: Sequence[tuple[str, str, Sequence[str], Sequence[Row]]], *,
                  verbose: bool) -> list[Any]:
    """Per package (its name, line, notes, rows): the line, per harness what it gets
    (`verbose`: the table of every row), then each note indented; after them every degraded or
    undelivered reason once, with the rows of every package it covers."""
    out: list[Any] = []
    named: list[Row] = []
    for name, head, notes, rows in packages:
        out.append(head)
        if verbose and rows:
            from uze.ui.render import projection_table  # start-up: the tables only for --verbose

            out += projection_table(list(rows), "action")
        else:
            out += summary.harness_lines(rows, _harnesses(rows))
        out += [f"  {note}" for note in notes]
        named += [{**row, "package": name} for row in rows]
    if not verbose:
        out += summary.attention_lines(named)
        out += [HINT] if named else []
    return out


def converge_view(result: ConvergeResult, *, verbose: bool) -> list[Any]:
    """`uze install` with no SOURCE: every declared package, then the pins dropped and the
    merge conflicts resolved."""
    out = packages_view([(p.name, p.head(), p.notes, p.projections) for p in result.packages],
                        verbose=verbose)
    return out + result.tail() or ["nothing declared in uze.toml"]


def update_view(report: DriftReport, *, verbose: bool) -> list[Any]:
    """`uze update`: every pinned package asked about; each one updated with its routes."""
    out = packages_view([(p.name, p.head(), p.notes, p.projections) for p in report.packages],
                        verbose=verbose)
    return out or ["nothing pinned in uze.lock"]
