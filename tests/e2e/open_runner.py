"""Run the real uze command and record every file it opens (a `sys.addaudithook` hook).

Usage: python -m tests.e2e.open_runner LOG uze-args...  (one opened path per line in LOG)
Proves what a command did not read, without timing it.
"""

from __future__ import annotations

import atexit
import os
import sys


def _record(log: str) -> None:
    opened: list[str] = []

    def hook(event: str, args: tuple[object, ...]) -> None:
        if event == "open" and isinstance(args[0], str | bytes | os.PathLike):
            opened.append(os.fsdecode(args[0]))  # type: ignore[arg-type]

    def dump() -> None:
        # os and open, not pathlib: the runner adds no import to the run it records
        lines = [os.path.abspath(path) for path in opened]  # noqa: PTH100
        with open(log, "w", encoding="utf-8") as handle:  # noqa: PTH123
            handle.write("".join(f"{line}\n" for line in lines))

    sys.addaudithook(hook)
    atexit.register(dump)


if __name__ == "__main__":
    _record(sys.argv[1])
    sys.argv = ["uze", *sys.argv[2:]]
    from uze.cli import main

    main()
