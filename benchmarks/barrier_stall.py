"""Why uze's commit barrier fsyncs its own files instead of calling syncfs(2) (ADR 0014).

    python benchmarks/barrier_stall.py

Another program writes 400 MiB and does not flush it (`dd`, as a build or a download would);
then 20 new skill files are made durable, once with `uze.durability.barrier` (fsync of each file and
folder from a thread pool) and once with one `syncfs` of the file system. syncfs also waits for
the other program's data. Linux only; runs in a temp folder under /tmp.

Since ADR 0046 `durability.barrier` itself calls syncfs when the system holds at most 16 MiB of other
unwritten data; with `dd`'s 400 MiB waiting it takes the per-file fsync, as this shows.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from uze import durability, fs  # noqa: E402 - the uze of this checkout


def main() -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    base = Path(tempfile.mkdtemp(prefix="uze-stall-", dir="/tmp"))
    try:
        for label in ("uze durability.barrier (busy: fsyncs)", "one syncfs") * 2:
            os.sync()
            subprocess.run(["dd", "if=/dev/urandom", f"of={base}/foreign", "bs=1M", "count=400",
                            "status=none"], check=True)
            files = [base / f"skill-{i}" / "SKILL.md" for i in range(20)]
            for path in files:
                fs.atomic_write(path, os.urandom(2048), durable=False)
            start = time.perf_counter()
            if label == "one syncfs":
                fd = os.open(base, os.O_RDONLY)
                try:
                    libc.syncfs(fd)
                finally:
                    os.close(fd)
            else:
                durability.barrier(files)
            print(f"{label:34} {1000 * (time.perf_counter() - start):6.0f} ms to make 20 files durable")
            shutil.rmtree(base)
            base.mkdir()
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
