"""What a human view is made of: lines, cells and tables as plain data, no rich (issue 32 item
4). `uze.ui.plain` writes them as text when stdout is not a terminal (a pipe, a file, CI),
without importing rich; `uze.ui.console` draws them with rich on a terminal. Every text is made
inert (`uze.inert`) when the block is built, so both print the same characters."""

from __future__ import annotations

from uze.inert import inert


class Line:
    """One line of a view, with a rich style for a terminal; `lines`: a block of lines (its
    line feeds kept, each line made inert), else a line feed is shown as `\\n`."""

    __slots__ = ("style", "text")

    def __init__(self, text: str, style: str = "", *, lines: bool = False) -> None:
        self.text, self.style = inert(text, lines=lines), style


class Cell:
    """One table cell (it may hold line breaks), with a rich style for a terminal."""

    __slots__ = ("style", "text")

    def __init__(self, text: str, style: str = "") -> None:
        self.text, self.style = inert(text, lines=True), style


class Grid:
    """A table: a header row and rows of cells. `boxed`: drawn with rich's borders on a
    terminal; else borderless columns, where only the first column may wrap (the glance)."""

    __slots__ = ("boxed", "headers", "rows")

    def __init__(self, *headers: str, boxed: bool = True) -> None:
        self.headers = [Cell(h) for h in headers]
        self.rows: list[list[Cell]] = []
        self.boxed = boxed

    def add_row(self, *cells: str | Cell) -> None:
        """Add a row; a plain string becomes an unstyled cell."""
        self.rows.append([c if isinstance(c, Cell) else Cell(c) for c in cells])


class Fits:
    """The first of several blocks whose natural width fits the terminal (the last when none
    does); not on a terminal, the first."""

    __slots__ = ("choices",)

    def __init__(self, *choices: Grid) -> None:
        self.choices = choices


Block = Line | Grid | Fits


def line(text: str, style: str = "") -> Line:
    """One line of a view."""
    return Line(text, style)
