"""Progress of long work: the core says what it is doing, the command line decides whether a
person sees it (issue 23; ADR 0027).

The core calls `stage("storing 409 files", total=409)` and `advance()` as it goes; both do
nothing unless a command runs them `under` a reporter (`uze.ui.progress_view` draws one on a
terminal). A module-level reporter, not a parameter, so a fetch, an install step or a store
loop can report without every signature between the command and it changing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class Reporter:
    """What the core reports to. This base ignores everything (off a terminal, with --json)."""

    def stage(self, what: str, total: int | None = None) -> None:
        """A new step: what it does, and how many `advance` units it has (None: unknown)."""

    def advance(self, done: int = 1) -> None:
        """`done` more units of the current step are finished."""


_current = Reporter()


def stage(what: str, total: int | None = None) -> None:
    """Report a new step of the running command (see `Reporter.stage`)."""
    _current.stage(what, total)


def advance(done: int = 1) -> None:
    """Report progress within the current step (see `Reporter.advance`)."""
    _current.advance(done)


@contextmanager
def under(reporter: Reporter) -> Iterator[Reporter]:
    """Send what the core reports to `reporter` until the block ends."""
    global _current
    previous, _current = _current, reporter
    try:
        yield reporter
    finally:
        _current = previous
