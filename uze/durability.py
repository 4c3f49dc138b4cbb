"""The durability barrier: make many files written without fsync durable at once, before a
commit stands on them (ADR 0014, ADR 0046). It writes no byte; `uze.fs` writes them.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final, cast

from uze.fs import fsync_dir, writing
from uze.threads import each_in_threads

# Threads of barrier()'s per-file path: each mostly waits in fsync, and the more wait at once,
# the more of them one journal commit serves (8 -> 32: a two-harness install of the real skills,
# 1,464 fsyncs, 1.48 -> 1.30 s at load 11 and 2.00 -> 1.80 s at load 19; ADR 0102).
_FLUSHERS: Final = 32


def barrier(paths: Iterable[Path]) -> None:
    """Make files written with `durable=False`, and the folders naming them, durable.

    When the system holds little unwritten data besides these files (`foreign_limit`: less
    than the fsyncs of these files would cost), one `syncfs` per file system they are on does
    it (a single journal commit and cache flush); when all its unwritten data is that little,
    the files are not even stat'ed one by one (their folders name the file systems). Otherwise
    every file is fsynced from a small pool of threads (the file system's journal folds
    concurrent fsyncs into shared commits), then each of their folders once: the wait covers
    these files only, never a large amount of other programs' unwritten data (ADR 0014, ADR
    0046). A write-back error surfaces here (ENOSPC as DiskFull): a commit must not stand on
    bytes that never reached the disk.
    """
    files = list(paths)
    if not files:
        return
    syncfs = _syncfs_call()
    # Within the limit even counting all unwritten data as someone else's (the usual case):
    # the files need no stat each (1,120 lstats for a two-harness install of the real skills),
    # their folders name the file systems to sync. (A file listed twice, or removed since,
    # counts here as one more file: 128 KiB of the limit.)
    if syncfs is not None and _foreign_dirty(0) <= foreign_limit(len(files)):
        _sync_file_systems(syncfs, _folder_devices(files))
        return
    found = _stat_all(files)
    if syncfs is not None and _foreign_dirty(_own_unwritten(found)) <= foreign_limit(len(found)):
        _sync_file_systems(syncfs, {st.st_dev: path.parent for path, st in found})
        return
    threads = min(_FLUSHERS, len(found))
    each_in_threads(_flush_file, [path for path, _ in found], threads)
    each_in_threads(_flush_folder, sorted(_folders(found)), threads)


# Unwritten bytes of other programs (all file systems together) that the barrier may wait for
# by syncing a whole file system instead of fsyncing each file: a few tens of ms of writing,
# and _FSYNC_WORTH more for each file the syncfs spares an fsync (ADR 0106).
SYNCFS_FOREIGN_LIMIT = 16 * 1024 * 1024
# What the fsync of one new file costs, as foreign data a syncfs writes in the same time: on
# ext4 (this project's machine, 1,227 files of the real skills) 1,227 fsyncs from the thread
# pool took 140-185 ms of wall time and 105-113 ms of CPU, one syncfs 44 ms with no foreign
# data, 87 with 64 MiB, 192 with 256 MiB: about 200 KiB per fsync; counted at 128 KiB.
_FSYNC_WORTH: Final = 128 * 1024


def foreign_limit(files: int) -> int:
    """How much of other programs' unwritten data a barrier over `files` files may wait for
    with one `syncfs` rather than fsync each file: the fsyncs it spares would take about as
    long. A negative SYNCFS_FOREIGN_LIMIT (benchmarks' `--busy`) always takes the fsyncs."""
    if SYNCFS_FOREIGN_LIMIT < 0:
        return SYNCFS_FOREIGN_LIMIT
    return SYNCFS_FOREIGN_LIMIT + _FSYNC_WORTH * files


# What a file system writes for a new file besides its data blocks (its inode, its directory
# entry, a share of the bitmaps) and for each folder holding new files (a directory block, its
# inode): estimates from ext4, where a fresh install of 3,002 files in 331 folders left about
# 5.9 MiB of such metadata unwritten (ADR 0052).
_FILE_METADATA: Final = 1024
_FOLDER_METADATA: Final = 8192


def _own_unwritten(found: list[tuple[Path, os.stat_result]]) -> int:
    """How much unwritten data `found` may account for at most: each file's allocated blocks
    (a file of 53,498 bytes holds 57,344 of them: counting sizes alone left 11.5 MB of a
    3,000-file install looking like someone else's) and the metadata of the files and their
    folders."""
    data = sum(max(st.st_blocks * 512, st.st_size) for _, st in found)
    return data + _FILE_METADATA * len(found) + _FOLDER_METADATA * len(_folders(found))


def _folders(found: list[tuple[Path, os.stat_result]]) -> set[Path]:
    """The folders naming `found`, each once (by its text: a Path per file costs more than
    the lstat; a thousand-file install has some 300 folders)."""
    return {Path(name) for name in {os.path.dirname(path) for path, _ in found}}  # noqa: PTH120


def _stat_all(files: list[Path]) -> list[tuple[Path, os.stat_result]]:
    """Each file still there (a later step of the same transaction may have removed it), with
    its lstat."""
    found = []
    lstat = os.lstat
    for path in files:
        try:
            found.append((path, lstat(path)))
        except FileNotFoundError:
            continue
    return found


def _syncfs_call() -> Callable[[int], int] | None:
    """libc's `syncfs(fd)` (Linux), or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # here: only a commit with files to flush needs it

    try:
        call = ctypes.CDLL(None, use_errno=True).syncfs
    except (AttributeError, OSError):  # pragma: no cover - a libc without syncfs
        return None
    call.argtypes = [ctypes.c_int]
    call.restype = ctypes.c_int
    return cast("Callable[[int], int]", call)


def _foreign_dirty(own: int) -> int:
    """Bytes waiting to be written on this system besides `own` (dirty or being written back,
    from /proc/meminfo); unknown counts as a lot."""
    try:
        with open("/proc/meminfo", "rb") as handle:  # noqa: PTH123 (a hot, tiny read)
            text = handle.read()
    except OSError:
        return 1 << 62
    total = 0
    for line in text.splitlines():
        if line.startswith((b"Dirty:", b"Writeback:")):
            total += int(line.split()[1]) * 1024
    return max(total - own, 0)


def _folder_devices(files: list[Path]) -> dict[int, Path]:
    """A folder on each file system that holds one of `files`, by device: each file lives on
    its folder's file system (the folder stat'ed once, a link to it followed, as the file's
    own path is); a folder gone with its files (a later step of the same transaction removed
    them) names none."""
    devices: dict[int, Path] = {}
    for name in {os.path.dirname(path) for path in files}:  # noqa: PTH120 (one str per file)
        try:
            devices.setdefault(os.stat(name).st_dev, Path(name))  # noqa: PTH116 (a str path)
        except (FileNotFoundError, NotADirectoryError):
            continue
    return devices


def _sync_file_systems(syncfs: Callable[[int], int], devices: dict[int, Path]) -> None:
    """One `syncfs` on each file system of `devices` (device -> a folder on it): its data and
    metadata, the files written and their folders included, are on disk when it returns
    (errors of write-back are reported by syncfs since Linux 5.8)."""
    for folder in devices.values():
        with writing(folder):
            fd = os.open(folder, os.O_RDONLY)
            try:
                if syncfs(fd) != 0:
                    import ctypes

                    code = ctypes.get_errno()
                    raise OSError(code, os.strerror(code), str(folder))
            finally:
                os.close(fd)


def _flush_file(path: Path) -> None:
    with writing(path):
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:  # a later step of the same transaction removed it
            return
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _flush_folder(folder: Path) -> None:
    with writing(folder), contextlib.suppress(FileNotFoundError):
        fsync_dir(folder)
