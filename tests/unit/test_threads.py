"""uze.threads.each_in_threads: every item once, from several threads, the first failure raised
in the caller once all threads stopped (the barrier's and remove_tree's pool, ADR 0106)."""

from __future__ import annotations

import threading

import pytest

from uze.threads import each_in_threads


def test_every_item_is_worked_once_from_several_threads() -> None:
    seen: list[int] = []
    names: set[str] = set()
    gate = threading.Barrier(4, timeout=10)  # four calls must run at once to pass the gate

    def work(item: int) -> None:
        if item < 4:
            gate.wait()
        names.add(threading.current_thread().name)
        seen.append(item)

    each_in_threads(work, range(100), 8)
    assert sorted(seen) == list(range(100))
    assert len(names) >= 4
    each_in_threads(work, [], 8)  # nothing to do: returns at once
    assert len(seen) == 100


def test_the_first_failure_is_raised_and_no_new_item_starts_after_it() -> None:
    started: list[int] = []

    def work(item: int) -> None:
        started.append(item)
        if item == 3:
            raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        each_in_threads(work, range(1000), 1)
    assert started == [0, 1, 2, 3]
    assert not any(t.name.startswith("Thread-") and t.is_alive() for t in threading.enumerate()
                   if t is not threading.current_thread())
