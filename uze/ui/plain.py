"""Human views as plain text, for a stdout that is not a terminal (issue 32 item 4).

A pipe, a file or a CI log gets the same words as a terminal without rich (about 30 ms of
imports): lines as they are, and each table as columns two spaces apart under a header row,
every line's trailing spaces dropped; a cell's line breaks continue below it in its column.
Nothing here imports rich.
"""

from __future__ import annotations

import os
import sys
import unicodedata
from collections.abc import Iterable

from uze.inert import inert
from uze.ui.blocks import Block, Cell, Fits, Grid, Line


def width(text: str) -> int:
    """Terminal columns of one line: East Asian wide and full-width characters take two,
    combining marks none."""
    if text.isascii():
        return len(text)
    return sum(0 if unicodedata.combining(c) else
               2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in text)


def _grid(grid: Grid) -> list[str]:
    rows: list[list[Cell]] = [grid.headers, *grid.rows]
    cells = [[cell.text.split("\n") for cell in row] for row in rows]
    columns = max(len(row) for row in cells)
    widths = [max((width(text) for row in cells if i < len(row) for text in row[i]), default=0)
              for i in range(columns)]
    out = []
    for row in cells:
        for depth in range(max(len(cell) for cell in row)):
            parts = []
            for i, cell in enumerate(row):
                text = cell[depth] if depth < len(cell) else ""
                parts.append(text + " " * (widths[i] - width(text)))
            out.append("  ".join(parts).rstrip())
    return out


def lines(items: Iterable[Block | str]) -> list[str]:
    """The text lines of a view (a `str` is a line, or lines, shown inert)."""
    out: list[str] = []
    for item in items:
        if isinstance(item, str):
            out.append(inert(item, lines=True))
        elif isinstance(item, Line):
            out.append(item.text)
        elif isinstance(item, Fits):
            out += _grid(item.choices[0])
        else:
            out += _grid(item)
    return out


def text(items: Iterable[Block | str]) -> str:
    """A view as plain text, a line feed after each line (`uze.cli` prints it)."""
    return "".join(f"{line}\n" for line in lines(items))


def quiet_stdout() -> None:
    """Point standard output at /dev/null, so nothing more (the interpreter's last flush
    included) can fail on a pipe whose reader has gone."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
