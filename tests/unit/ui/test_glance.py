"""The glance of `uze status` (ADR 0026): marks per harness, and a source column only where the
terminal has room for it."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from rich.console import Console

from uze.state.receipts import ProjectionRecord, Receipt
from uze.ui import plain
from uze.ui.console import renderable
from uze.ui.glance import glance_view, harness_mark


@pytest.mark.parametrize(("routes", "states", "waiting", "mark"), [
    ([], [], False, "·"),
    (["native", "adapted"], ["matched", "matched"], False, "✓"),
    (["native", "degraded"], ["matched", "matched"], False, "~"),
    (["native", "unsupported"], ["matched", "undelivered"], False, "~"),
    (["unsupported"], ["undelivered"], False, "-"),
    (["native"], ["drifted"], False, "✓!"),
    (["adapted", "degraded"], ["missing", "matched"], True, "~!?"),
])
def test_harness_mark(routes: list[str], states: list[str], waiting: bool, mark: str) -> None:
    assert harness_mark(routes, states, waiting) == mark


def _package(name: str, source: str) -> Any:
    receipt = Receipt(name=name, version="1.0.0", tree="0" * 64, scope="project",
                      harnesses=["claude_code", "codex"], artifacts=[], projections=[
                          ProjectionRecord(kind="skill", resource="r", harness=h, route="native",
                                           target=f".{h}/skills/{name}-r")
                          for h in ("claude_code", "codex")])
    return SimpleNamespace(receipt=receipt, states=("matched", "matched"), source=source, lock="")


def _draw(result: Any, width: int) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, highlight=False, color_system=None)
    for item in glance_view(result):
        console.print(renderable(item))
    return buffer.getvalue()


def test_a_source_column_appears_where_it_fits_and_gives_way_where_it_does_not() -> None:
    source = "git+https://github.com/example/a-rather-long-repository-name@v1.0.0"
    result = SimpleNamespace(project=Path("/p"), untrusted_hooks=(), declared=(),
                             differences=(), packages=(
        _package("hello", source), _package("local", "")))
    wide = _draw(result, 160).splitlines()
    assert wide[0].split() == ["package", "version", "claude", "codex", "source"]
    assert wide[1].split() == ["hello", "1.0.0", "✓", "✓", source]
    assert wide[2].split() == ["local", "1.0.0", "✓", "✓", "-"]
    narrow = _draw(result, 60).splitlines()
    assert narrow[0].split() == ["package", "version", "claude", "codex"]
    assert narrow[1].split() == ["hello", "1.0.0", "✓", "✓"]
    assert narrow[3].startswith("4 projections in place")


def test_without_any_source_there_is_no_source_column() -> None:
    result = SimpleNamespace(project=Path("/p"), untrusted_hooks=(), declared=(),
                             differences=(), packages=(
        _package("hello", ""),))
    assert _draw(result, 160).splitlines()[0].split() == ["package", "version", "claude",
                                                          "codex"]


def test_not_at_a_terminal_the_glance_has_every_column_as_plain_text() -> None:
    source = "git+https://github.com/example/a-rather-long-repository-name@v1.0.0"
    result = SimpleNamespace(project=Path("/p"), untrusted_hooks=(), declared=(),
                             differences=(), packages=(
        _package("hello", source), _package("local", "")))
    found = plain.lines(glance_view(result))
    assert found[0].split() == ["package", "version", "claude", "codex", "source"]
    assert found[1].split() == ["hello", "1.0.0", "✓", "✓", source]
    assert found[3].startswith("4 projections in place")
