"""Run a blocking call on each of many items from a few threads, without concurrent.futures
(it imports logging: about 8 ms of a command's start-up, ADR 0106)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

T = TypeVar("T")


def each_in_threads(work: Callable[[T], object], items: Iterable[T], threads: int) -> None:
    """Call `work(item)` for every item from up to `threads` threads and wait for them all.

    The calls are meant to wait in the kernel (fsync, unlink), where the threads overlap. The
    first exception raised by a call is raised here once every thread has stopped; after it,
    no thread starts another item."""
    import threading  # start-up: a command that starts no thread does not load it

    pending = iter(list(items))
    take = threading.Lock()
    failures: list[BaseException] = []

    def worker() -> None:
        while not failures:
            with take:
                try:
                    item = next(pending)
                except StopIteration:
                    return
            try:
                work(item)
            except BaseException as error:  # raised again by the calling thread
                failures.append(error)
                return

    pool = [threading.Thread(target=worker, daemon=True) for _ in range(max(threads, 1))]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    if failures:
        raise failures[0]
