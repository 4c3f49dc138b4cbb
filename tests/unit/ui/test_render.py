"""The human tables: `uze.ui.render`'s one-segment cells draw what rich draws for a `Text` cell.

`Cell` exists for speed (issue 8: `uze status` on 20 packages spent 0.7 s in rich's per-cell
wrapping). These tests hold it to rich's own rendering of the same rows, at widths where
nothing wraps and where cells must wrap, with and without colour, and check the one place it
must differ: text in square brackets is printed, never read as markup.
"""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.table import Table
from rich.text import Text

from uze.ui import plain
from uze.ui.blocks import Cell, Grid
from uze.ui.console import renderable
from uze.ui.render import projection_table

ANSI = re.compile(r"\x1b\[[0-9;]*m")
HEADERS = ("kind", "resource", "harness", "route", "state", "target", "note")
ROWS = [
    ("skill", "greet", "claude_code", "native", "matched", ".claude/skills/hello-greet", ""),
    ("mcp", "docs", "codex", "adapted", "drifted", ".codex/config.toml#mcp_servers.hello-docs",
     "[1]"),
    ("hook", "guard", "gemini_cli", "degraded", "missing",
     ".gemini/settings.json#hooks.BeforeTool[hello/guard]", "[2]"),
    ("instructions", "AGENTS.md", "kimi_code", "native", "matched", "AGENTS.md#hello", ""),
    ("skill", "宽字符-技能", "opencode", "native", "matched", ".claude/skills/hello-宽字符", ""),
]
STYLES = {"matched": "green", "drifted": "yellow", "missing": "red"}


def _print(renderable: object, width: int, colour: bool) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, highlight=False, force_terminal=colour,
                      color_system="standard" if colour else None)
    console.print(renderable)
    return buffer.getvalue()


def _rich_table(rows: list[tuple[str, ...]]) -> Table:
    """What render.py drew before: rich's own cells (as Text, so no markup is read)."""
    table = Table(*HEADERS)
    for row in rows:
        table.add_row(*(Text(c, style=STYLES.get(c, "") if i == 4 else "")
                        for i, c in enumerate(row)))
    return table


def _grid(rows: list[tuple[str, ...]]) -> Grid:
    grid = Grid(*HEADERS)
    for row in rows:
        grid.add_row(*row[:4], Cell(row[4], STYLES.get(row[4], "")), *row[5:])
    return grid


def _cell_table(rows: list[tuple[str, ...]]) -> object:
    return renderable(_grid(rows))


@pytest.mark.parametrize("colour", [False, True], ids=["plain", "colour"])
@pytest.mark.parametrize("width", [160, 100, 60, 30])
def test_cells_draw_what_rich_draws_wrapped_or_not(width: int, colour: bool) -> None:
    ours, rich = _print(_cell_table(ROWS), width, colour), _print(_rich_table(ROWS), width, colour)
    assert ANSI.sub("", ours) == ANSI.sub("", rich)
    if not colour:
        assert ours == rich
    if width == 160:
        assert ".gemini/settings.json#hooks.BeforeTool[hello/guard]" in ours
    if width <= 60:  # narrow: cells are wrapped or cut, as rich does it
        assert "…" in ours and ".gemini/settings.json#hooks.BeforeTool[hello/guard]" not in ours
    elif colour:  # the state keeps its colour
        assert "\x1b[32mmatched" in ours and "\x1b[31mmissing" in ours


words = st.text(alphabet=st.sampled_from("abcxyz-_./#[]宽\n"), min_size=1, max_size=12)
cells = st.lists(words, min_size=1, max_size=4).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(*[cells] * 7), min_size=1, max_size=6),
       width=st.integers(min_value=20, max_value=170))
def test_any_rows_at_any_width_draw_as_rich_draws_them(rows: list[tuple[str, ...]],
                                                       width: int) -> None:
    assert _print(_cell_table(rows), width, False) == _print(_rich_table(rows), width, False)


def test_a_hook_target_keeps_its_bracketed_element_in_the_status_table() -> None:
    """rich read `[pkg/id]` in a plain string cell as a closing style tag and dropped it: the
    human status showed `.claude/settings.json#hooks.PostToolUse` for every hook group."""
    row = {"kind": "hook", "resource": "guard", "harness": "claude_code", "route": "native",
           "state": "matched", "target": ".claude/settings.json#hooks.PreToolUse[hello/guard]",
           "reason": ""}
    table, *_notes = projection_table([row], "state")
    assert ".claude/settings.json#hooks.PreToolUse[hello/guard]" in _print(renderable(table), 160,
                                                                           False)
    assert ".claude/settings.json#hooks.PreToolUse[hello/guard]" in plain.lines([table])[1]


def test_plain_text_is_the_table_as_columns_without_rich() -> None:
    """Not at a terminal (a pipe, CI): each row one line, columns two spaces apart under the
    header row, the words rich draws and nothing else (issue 32 item 4)."""
    found = plain.lines([_grid(ROWS)])
    assert found[0].split() == list(HEADERS)
    assert [line.split() for line in found[1:]] == [
        [c for c in row if c] for row in ROWS]
    starts = {plain.width(line[:line.index("matched")]) for line in found[1:]
              if "matched" in line}
    assert len(starts) == 1  # one column, whatever the width (wide characters too) before it
    assert all(line == line.rstrip() for line in found)
    ours = _print(renderable(_grid(ROWS)), 160, False)
    for row in ROWS:
        assert all(cell in ours for cell in row)


def test_a_cell_of_several_lines_continues_below_in_its_column() -> None:
    grid = Grid("harness", "skill roots", "status")
    grid.add_row("codex", ".agents/skills\n.codex/skills", "ok")
    assert plain.lines([grid]) == ["harness  skill roots     status",
                                   "codex    .agents/skills  ok",
                                   "         .codex/skills"]
