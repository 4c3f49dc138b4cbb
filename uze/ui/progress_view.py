"""What a person sees of long work: rich's progress on standard error, drawn only on a terminal,
only without --json, and only once the work has run for `DELAY` seconds (ADR 0027), or as many
as `UZE_PROGRESS_DELAY` says.

A short command pays for a timer thread and nothing else: rich's progress module is imported
and drawn by the timer, never before it fires. The display is transient: when the work ends its
lines are erased, and the command's own output follows as it would without it.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

from uze import progress
from uze.inert import inert
from uze.paths import progress_delay

DELAY: Final = 0.5


class DelayedProgress(progress.Reporter):
    """Keeps the current step and its counts; after `delay` seconds draws them with rich, and
    keeps the drawing current until `close`. Thread-safe: the timer thread draws, the command's
    thread reports. What a step says may quote a source or a remote: it is drawn inert and
    never read as rich markup (`[/]` in a path raised in the drawing thread)."""

    def __init__(self, title: str, delay: float = DELAY) -> None:
        self._lock = threading.Lock()
        self._what, self._done = inert(title), 0
        self._total: int | None = None
        self._bar: Any = None
        self._task: Any = None
        self._closed = False
        self._timer = threading.Timer(delay, self._start)
        self._timer.daemon = True
        self._timer.start()

    def stage(self, what: str, total: int | None = None) -> None:
        with self._lock:
            self._what, self._total, self._done = inert(what), total, 0
            self._draw()

    def advance(self, done: int = 1) -> None:
        with self._lock:
            self._done += done
            if self._bar is not None:
                self._bar.update(self._task, completed=self._done)

    def _draw(self) -> None:
        if self._bar is not None:  # a new task: rich's update cannot set a total back to None
            self._bar.remove_task(self._task)
            self._task = self._bar.add_task(self._what, total=self._total, completed=self._done)

    def _start(self) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        from uze.ui.console import console

        with self._lock:
            if self._closed:
                return
            self._bar = Progress(SpinnerColumn(), TextColumn("{task.description}", markup=False),
                                 BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                 console=console(stderr=True), transient=True)
            self._task = self._bar.add_task(self._what, total=self._total,
                                            completed=self._done)
            self._bar.start()

    def close(self) -> None:
        """Stop the timer, or erase what was drawn."""
        self._timer.cancel()
        with self._lock:
            self._closed = True
            if self._bar is not None:
                self._bar.stop()


def _delay() -> float:
    """The delay in force: `DELAY` unless UZE_PROGRESS_DELAY says otherwise (uze.paths)."""

    return progress_delay(DELAY)


@contextmanager
def shown(title: str, *, enabled: bool = True) -> Iterator[None]:
    """Report the block's work to a person: a `DelayedProgress` when `enabled` (not --json)
    and standard error is a terminal; otherwise the core's reports go nowhere."""
    if not (enabled and sys.stderr.isatty()):
        yield
        return
    reporter = DelayedProgress(title, _delay())
    try:
        with progress.under(reporter):
            yield
    finally:
        reporter.close()
