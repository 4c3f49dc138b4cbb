"""How much of a large install is durability? Write the bytes of the large benchmark package the
way uze does today and the ways it could, without uze itself (issue 8, recommendation 1).

    python benchmarks/write_strategies.py [--quick]

The work is what `uze install` does for the 1,000-file, 50 MiB package with `--harness all`: one
store copy (blobs fanned out under objects/<2 hex>/) plus two delivered copies of every skill
folder (.claude/skills and .agents/skills). Each strategy runs in a fresh folder; medians of
wall time are printed next to `cp -r` of the two delivered copies.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from blake3 import blake3  # the venv uze runs in has it

Files = list[tuple[str, bytes]]  # (skill/rel path, bytes)


def make_files(skills: int, per_skill: int, size: int) -> Files:
    rng = random.Random(1)
    return [(f"skill-{s:02d}/references/ref-{f:03d}.md", rng.randbytes(size))
            for s in range(skills) for f in range(per_skill)]


def _fsync(path: Path) -> None:
    """fsync a file or a folder."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _atomic(path: Path, data: bytes, mode: int) -> None:
    """STYLE.md's atomic write: temp file, write, fsync, chmod, replace, fsync(dir)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.uze-tmp-", dir=path.parent)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.chmod(tmp, mode)
    os.replace(tmp, path)
    _fsync(path.parent)


def _plain(path: Path, data: bytes, mode: int, fsync: bool) -> None:
    """Create a new file (O_EXCL: never follows or replaces anything), optionally fsync it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        os.write(fd, data)
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)


def _targets(root: Path, files: Files) -> list[tuple[Path, bytes, int]]:
    out = []
    for rel, data in files:
        digest = blake3(data).hexdigest()
        out.append((root / "store" / "objects" / digest[:2] / digest[2:], data, 0o444))
    for copy in (".claude/skills", ".agents/skills"):
        out += [(root / "project" / copy / rel, data, 0o644) for rel, data in files]
    return out


def _syncfs(path: Path) -> None:
    """syncfs(2) on the file system holding `path` (Linux); os.sync() elsewhere."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open(path, os.O_RDONLY)
        try:
            if libc.syncfs(fd) == 0:
                return
        finally:
            os.close(fd)
    except (OSError, AttributeError):
        pass
    os.sync()


def today(root: Path, files: Files) -> None:
    for path, data, mode in _targets(root, files):
        _atomic(path, data, mode)


def fsync_files_dirs_once(root: Path, files: Files) -> None:
    dirs = set()
    for path, data, mode in _targets(root, files):
        _plain(path, data, mode, fsync=True)
        dirs.add(path.parent)
    for folder in sorted(dirs):
        _fsync(folder)


def one_syncfs(root: Path, files: Files) -> None:
    for path, data, mode in _targets(root, files):
        _plain(path, data, mode, fsync=False)
    _syncfs(root)


def fsync_at_end_threads(root: Path, files: Files, threads: int = 8) -> None:
    """Write without fsync, then fsync every file (from `threads` threads: the journal batches
    concurrent fsyncs into shared commits) and each folder once: waits for this run's data only."""
    from concurrent.futures import ThreadPoolExecutor

    written = []
    for path, data, mode in _targets(root, files):
        _plain(path, data, mode, fsync=False)
        written.append(path)
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(_fsync, written))
        list(pool.map(_fsync, sorted({p.parent for p in written})))


def no_fsync(root: Path, files: Files) -> None:
    for path, data, mode in _targets(root, files):
        _plain(path, data, mode, fsync=False)


def cp_two_copies(root: Path, source: Path) -> None:
    for copy in (".claude/skills", ".agents/skills"):
        dest = root / "project" / copy
        dest.mkdir(parents=True)
        subprocess.run(["cp", "-r", f"{source}/.", f"{dest}/"], check=True)


def _clean(root: Path) -> None:
    for folder, _dirs, _files in os.walk(root):
        os.chmod(folder, 0o755)
    shutil.rmtree(root)


def measure(fn: Callable[[Path], None], root: Path) -> tuple[float, float]:
    """Wall and CPU seconds (this process, user + sys) of one run in a fresh folder."""
    root.mkdir()
    start, cpu = time.perf_counter(), time.process_time()
    fn(root)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    _clean(root)
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10 MiB instead of 50 MiB, 1 repetition")
    args = parser.parse_args()
    skills, per_skill, size, reps = (10, 20, 52_000, 1) if args.quick else (20, 49, 53_498, 5)
    files = make_files(skills, per_skill, size)
    base = Path(tempfile.mkdtemp(prefix="uze-writes-"))
    source = base / "source"
    for rel, data in files:
        (source / rel).parent.mkdir(parents=True, exist_ok=True)
        (source / rel).write_bytes(data)
    total = sum(len(d) for _, d in files)
    print(f"{len(files)} files, {total / 2**20:.1f} MiB; 3 copies written (store + 2 skill roots); "
          f"median of {reps}, round-robin (cp's CPU is in a child: it shows as waiting)")
    rows = [
        ("STYLE.md write: temp+fsync+rename+fsync(dir) each", lambda r: today(r, files)),
        ("fsync per file, each folder fsynced once", lambda r: fsync_files_dirs_once(r, files)),
        ("no per-file fsync, one syncfs() at the end", lambda r: one_syncfs(r, files)),
        ("uze (ADR 0014): fsync every file at the end, 8 threads", lambda r: fsync_at_end_threads(r, files)),
        ("the same from 32 threads", lambda r: fsync_at_end_threads(r, files, 32)),
        ("no fsync at all (cp-like floor, in Python)", lambda r: no_fsync(r, files)),
        ("cp -r, the 2 delivered copies only", lambda r: cp_two_copies(r, source)),
    ]
    walls: dict[str, list[float]] = {label: [] for label, _ in rows}
    cpus: dict[str, list[float]] = {label: [] for label, _ in rows}
    for r in range(reps):  # round-robin, so load drift on a shared machine hits all alike
        for i, (label, fn) in enumerate(rows):
            wall, cpu = measure(fn, base / f"run-{r}-{i}")
            walls[label].append(wall)
            cpus[label].append(cpu)
    for label, _ in rows:
        wall, cpu = statistics.median(walls[label]), statistics.median(cpus[label])
        print(f"  {label:<52} {wall * 1000:7.0f} ms wall  {cpu * 1000:7.0f} ms cpu  "
              f"{(wall - cpu) * 1000:7.0f} ms waiting")
    shutil.rmtree(base)
    return 0


if __name__ == "__main__":
    sys.exit(main())
