"""Run the real uze command on a file system that fills up at its Nth write.

Usage: python -m tests.e2e.full_disk_runner N uze-args...
From the Nth call on, every write of bytes (`fs._put`) and every new folder (`fs._mkdir`) fails
with ENOSPC, as on a real full disk (removing and renaming still work). Prints
`writes attempted: K` on stderr at exit, so the caller knows when N passed the last write.
"""

from __future__ import annotations

import atexit
import errno
import os
import sys
from pathlib import Path
from typing import Any

from uze import fs


def _arm(limit: int) -> None:
    count = {"n": 0}
    real_put, real_mkdir = fs._put, fs._mkdir

    def full() -> bool:
        count["n"] += 1
        return count["n"] >= limit

    def put(handle: Any, data: bytes) -> None:
        if data and full():
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_put(handle, data)

    def mkdir(path: Path, *, parents: bool = False, exist_ok: bool = False) -> None:
        if not path.is_dir() and full():
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_mkdir(path, parents=parents, exist_ok=exist_ok)

    fs._put, fs._mkdir = put, mkdir  # type: ignore[assignment]
    atexit.register(lambda: sys.stderr.write(f"writes attempted: {count['n']}\n"))


if __name__ == "__main__":
    _arm(int(sys.argv[1]))
    sys.argv = ["uze", *sys.argv[2:]]
    from uze.cli import main

    main()
