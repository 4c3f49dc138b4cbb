"""The consoles human views are drawn on at a terminal (colour, quiet stdout), and the rich
renderables of the view blocks (`uze.ui.blocks`). Nothing here prints (ADR 0037); a stdout
that is not a terminal gets `uze.ui.plain` instead, without rich (issue 32 item 4)."""

from __future__ import annotations

import sys
from typing import Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.padding import Padding
from rich.segment import Segment
from rich.table import Column, Table
from rich.text import Text

from uze.ui.blocks import Block, Cell, Fits, Grid, Line
from uze.ui.plain import quiet_stdout

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


def console(*, stderr: bool = False, **options: Any) -> Console:
    """A console in the colour mode of `set_color`; `NO_COLOR` counts only in `auto`."""
    if _color == "never":
        options["color_system"] = None
    elif _color == "always":
        options.update(force_terminal=True, no_color=False)
    return _Console(stderr=stderr, highlight=False, **options)


def stdout_console() -> Console:
    """The console a human view is printed on; piped output (with `--color always`) is wide
    enough that tables do not fold."""

    first = console()
    if first.is_terminal and (_color != "always" or sys.stdout.isatty()):
        return first
    return console(width=160)


class RichCell:
    """A cell's text (already inert) with the table's one-space padding built in.

    What `Table(...).add_row(Text(text))` draws, about 3x cheaper: rich wraps, pads and
    measures a `Text` per cell (0.5 ms a projection row, 0.7 s of `uze status` on 20 packages,
    issue 8), where a cell that fits is one segment. One that does not fit is handed to the
    `Text` and `Padding` rich uses, so a narrow terminal wraps it the same way. No markup or
    emoji codes are read (a path with `[x]` in it prints as it is).
    """

    __slots__ = ("style", "text", "width")

    def __init__(self, cell: Cell) -> None:
        self.text, self.style = cell.text, cell.style
        self.width = max(cell_len(line) for line in self.text.split("\n")) + 2

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        """The width of the whole text: the one figure a top-level table's layout reads (its
        column widths come from the maximum; tests/unit/ui/test_render.py holds it to rich's)."""
        return Measurement(self.width, self.width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.width > options.max_width or "\n" in self.text:
            yield Padding(Text(self.text, style=self.style), (0, 1))
            return
        yield Segment(" ")
        yield Segment(self.text, console.get_style(self.style) if self.style else None)
        yield Segment(" ")


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


def _table(grid: Grid) -> Table:
    """A boxed grid as rich draws a table of strings; a borderless one as columns two spaces
    apart (bold headers) where only the first column gives way on a narrow terminal."""
    if grid.boxed:
        table = Table(*(Column(header=RichCell(h)) for h in grid.headers), padding=0)
    else:
        table = Table(*(Column(header=RichCell(h), no_wrap=i > 0)
                        for i, h in enumerate(grid.headers)), padding=0, box=None)
    for row in grid.rows:
        table.add_row(*map(RichCell, row))
    return table


def renderable(block: Block | str) -> RenderableType:
    """The rich renderable of a view block (a `str`: one plain line, not read as markup)."""
    if isinstance(block, str):
        return Text(block)
    if isinstance(block, Line):
        return Text(block.text, style=block.style)
    if isinstance(block, Fits):
        return FirstThatFits(*map(_table, block.choices))
    return _table(block)
