"""Run the real uze command, but SIGKILL the process at its Nth write step (crash injection).

Usage: python -m tests.e2e.crash_runner N uze-args...  (exit by SIGKILL if step N is reached)
"""

from __future__ import annotations

import os
import signal
import sys

from uze import fs, transaction


def _arm(limit: int) -> None:
    count = {"n": 0}

    def wrap(function):  # type: ignore[no-untyped-def]
        def step(*args, **kwargs):  # type: ignore[no-untyped-def]
            count["n"] += 1
            if count["n"] == limit:
                os.kill(os.getpid(), signal.SIGKILL)
            return function(*args, **kwargs)
        return step

    # `_put` is a kill point inside a write: the temp file exists, the rename has not happened.
    for name in ("atomic_write", "write_absent", "create_new", "append_durable", "make_dir",
                 "remove_file", "remove_dir_if_empty", "_put"):
        setattr(fs, name, wrap(getattr(fs, name)))
    transaction.fs = fs  # the module already holds `fs`; the patched functions live on it


if __name__ == "__main__":
    _arm(int(sys.argv[1]))
    sys.argv = ["uze", *sys.argv[2:]]
    from uze.cli import main

    main()
