"""The consoles views are printed on (colour, quiet stdout) and the pieces every view is built
from: cells, lines and tables. Nothing here prints (ADR 0037)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.padding import Padding
from rich.segment import Segment
from rich.table import Column, Table
from rich.text import Text

from uze.inert import inert

if TYPE_CHECKING:
    pass



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


def styled_line(text: str, style: str = "") -> Text:
    """One line of a view, its text made inert (`uze.inert`: control characters escaped)."""
    return Text(inert(text), style=style)


def new_table(*headers: str) -> Table:
    """A table whose cells are `Cell`s (`add_row`), drawn as rich draws a table of strings."""
    return Table(*(Column(header=Cell(h)) for h in headers), padding=0)


def add_row(table: Table, *cells: str | Cell) -> None:
    """Add a row to a `new_table`; a plain string becomes an unstyled `Cell`."""
    table.add_row(*(c if isinstance(c, Cell) else Cell(c) for c in cells))
