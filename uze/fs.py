"""The only module that writes to disk: atomic writes, directory creation, removal, locks.

Every write is `temp file in the same directory -> fsync -> os.replace -> fsync(dir)`, so a
reader (or a crash) sees either the old bytes or the new bytes, never a torn file. Files that
replace no bytes (new files in a folder a transaction created, store objects) skip the fsyncs
while they are written, and their writer makes them all durable with one
`uze.durability.barrier()` before it commits (ADR 0014). A full file system (ENOSPC, EDQUOT)
raises DiskFull naming the path, never a bare OSError. Bytes reach the disk only through `_put`
and folders through `_mkdir` (where tests inject a full disk).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from uze import portable
from uze.errors import DiskFull, LockBusy, UzeError, WriteFailed
from uze.threads import each_in_threads

TEMP_MARK: Final = ".uze-tmp-"
_HELD: set[Path] = set()  # the locks this process holds (file_lock)
_FULL: Final = frozenset({errno.ENOSPC, errno.EDQUOT})
# Failures a user fixes (permissions, a file where a folder goes, a read-only file system):
# reported as WriteFailed naming the path, never as a traceback.
_REFUSED: Final = frozenset({
    errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOTDIR, errno.EISDIR, errno.EEXIST,
    errno.ELOOP, errno.ENAMETOOLONG, errno.ENOTEMPTY, errno.ETXTBSY,
})


def _put(fd: int, data: bytes) -> None:
    """Write `data` to the open file `fd`: the one place bytes go to disk. A write may take
    part of it per call (a signal, a file system filling up)."""
    view: bytes | memoryview = data  # a view only after a short write (rare): none per file
    while view:
        written = os.write(fd, view)
        if not written:  # a regular file takes at least one byte or raises
            raise OSError(errno.EIO, "the file took no bytes")
        if written == len(view):
            return
        view = memoryview(view)[written:]


def _mkdir(path: Path, *, parents: bool = False, exist_ok: bool = False) -> None:
    """Create a folder: the one place folders are made."""
    path.mkdir(parents=parents, exist_ok=exist_ok)


@contextlib.contextmanager
def writing(path: Path) -> Iterator[None]:
    """Turn a full file system into DiskFull(path), a refused write into WriteFailed(path);
    other errors pass unchanged."""
    try:
        yield
    except OSError as exc:
        raise _failure(exc, path) from None


def _failure(exc: OSError, path: Path) -> Exception:
    """What `writing` raises for `exc`: DiskFull, WriteFailed or `exc` (the hot writers call it
    in their own `except`: a context manager per file costs more than a small file's write)."""
    if exc.errno in _FULL:
        return DiskFull(path, exc.strerror or "no space left on device")
    if exc.errno in _REFUSED:
        return WriteFailed(Path(exc.filename or path), exc.strerror or str(exc))
    return exc


def replace_problem(path: Path) -> str | None:
    """Why uze must not replace the existing file at `path` by a rename, or None.

    A rename needs only the folder's permission and gives the file to whoever renames, so the
    file's own permissions are checked here, by its mode bits, for root too (ADR 0020): a file
    you own must be owner-writable; a file someone else owns must be writable for you through
    its group or other bits, and only a process that may give it back to its owner (root)
    replaces it. A missing file (or a link, refused elsewhere) has no problem here."""
    try:
        info = path.lstat()
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    me = portable.user()
    if me is None or info.st_uid == me[0]:  # Windows: no uid owns a file, only its bits count
        return None if info.st_mode & stat.S_IWUSR else "is read-only"
    uid, groups = me
    group_ok = info.st_mode & stat.S_IWGRP and info.st_gid in groups
    if not (info.st_mode & stat.S_IWOTH or group_ok) or uid != 0:
        return f"belongs to another user (uid {info.st_uid})"
    return None


def fsync_dir(directory: Path) -> None:
    if not portable.POSIX:  # pragma: no cover - directories cannot be fsynced on Windows
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes, mode: int | None = None, *, durable: bool = True) -> None:
    """Replace `path` with `data` atomically.

    Keeps the mode of the file it replaces unless `mode` is given. Refuses to write through a
    symlink (uze never follows a link it did not create). Leaves no temp file behind on failure.
    `durable=False` skips the fsyncs: the caller must pass `path` to `barrier()` before anything
    durable refers to it (ADR 0014).
    """
    try:
        old: os.stat_result | None = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        old = None
    if old is not None and stat.S_ISLNK(old.st_mode):
        raise UzeError(
            f"refusing to write through a symbolic link: {path}",
            hint="replace the link with a regular file or remove it",
        )
    if old is not None:
        if (why := replace_problem(path)) is not None:
            raise WriteFailed(path, f"it {why}; uze replaces only files you may write")
        mode = stat.S_IMODE(old.st_mode) if mode is None else mode
    _replace(path, data, 0o644 if mode is None else mode, old, durable=durable)


def write_absent(path: Path, data: bytes, mode: int) -> None:
    """`atomic_write(path, data, mode, durable=False)` for a `path` the caller found absent
    and nobody else writes (a store object under the store lock): temp file + rename, without
    looking at the target again. The caller passes `path` to `barrier()` (ADR 0014)."""
    _replace(path, data, mode, None, durable=False)


_NEW_FILE: Final = os.O_WRONLY | os.O_CREAT | os.O_EXCL | portable.NEW_FILE
_temp_names = iter(range(1 << 62))


def _replace(path: Path, data: bytes, mode: int, old: os.stat_result | None, *,
             durable: bool) -> None:
    """Write `data` to a new temp file beside `path` and rename it onto `path`."""
    try:
        folder, base = os.path.split(name := os.fspath(path))
        fd, tmp = _open_temp(f"{folder}/.{base}{TEMP_MARK}{os.getpid()}-", path)
        try:
            try:  # the bare descriptor: no file object, tell or tty check per file
                _put(fd, data)
                portable.set_mode(fd, tmp, mode)
                if old is not None:
                    portable.keep_owner(fd, old)
                if durable:
                    os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, name)  # noqa: PTH105 (str paths: no Path on the hot path)
        except BaseException:  # no temp file is left behind
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)  # noqa: PTH108 (tmp is a str, as above)
            raise
        if durable:
            fsync_dir(path.parent)
    except OSError as exc:
        raise _failure(exc, path) from None


def _open_temp(prefix: str, path: Path) -> tuple[int, str]:
    """Create a new private temp file named `prefix` + a number (the folder first if it is
    missing; most writes go to one that exists). A name a killed process left is skipped."""
    while True:
        tmp = f"{prefix}{next(_temp_names)}"
        try:
            return os.open(tmp, _NEW_FILE, 0o600), tmp
        except FileExistsError:
            continue
        except FileNotFoundError:
            _mkdir(path.parent, parents=True, exist_ok=True)
            return os.open(tmp, _NEW_FILE, 0o600), tmp


def create_new(path: Path, data: bytes, mode: int) -> None:
    """Create the file `path`, which must not exist, holding `data`, under its own name.

    For files inside a folder a transaction created (its rollback removes the folder with
    whatever a kill left in it, so no temp file + rename is needed: ADR 0046); the folders a
    file needs inside it are made here. Not durable: the caller passes `path` to `barrier()`.
    """
    try:
        try:
            fd = os.open(path, _NEW_FILE, mode)
        except FileNotFoundError:
            _mkdir(path.parent, parents=True, exist_ok=True)
            fd = os.open(path, _NEW_FILE, mode)
        try:
            _put(fd, data)
            portable.set_mode(fd, os.fspath(path), mode)  # whatever the umask
        finally:
            os.close(fd)
    except OSError as exc:
        raise _failure(exc, path) from None


def replace_unsynced(path: Path, data: bytes) -> None:
    """Replace a file whose loss costs only time (a cache): temp file + rename, no fsync.

    Readers still see the old bytes or the new ones; after a power cut the file may be lost or
    empty, which its reader must treat as absent. Temp files a killed writer left in the same
    folder for more than a minute are swept first.
    """
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    _sweep_stale_temps(path.parent, max_age=60.0)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}{TEMP_MARK}", dir=path.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        tmp.chmod(0o644)
        tmp.replace(path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def _sweep_stale_temps(folder: Path, max_age: float) -> None:
    now = time.time()
    for entry in os.scandir(folder):
        if TEMP_MARK in entry.name and entry.is_file(follow_symlinks=False):
            with contextlib.suppress(OSError):
                if now - entry.stat(follow_symlinks=False).st_mtime > max_age:
                    os.unlink(entry.path)  # noqa: PTH108 (a DirEntry's str path)


def make_dir(path: Path, *, parents: bool = False) -> None:
    """Create one folder (`parents`: and missing parents; an existing folder is fine then)."""
    with writing(path):
        _mkdir(path, parents=parents, exist_ok=parents)


def rename(source: Path, target: Path, *, durable: bool = True) -> None:
    """Rename within one folder (atomic on POSIX); `durable`: then fsync the folder."""
    source.replace(target)
    if durable:
        fsync_dir(target.parent)


def remove_file(path: Path) -> None:
    """Remove one file (or symlink); a missing file (or folder on its way) is no error."""
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        path.unlink()


def remove_dir_if_empty(path: Path) -> bool:
    """Remove `path` if it is an empty folder; return whether it was removed."""
    with contextlib.suppress(OSError):
        path.rmdir()
        return True
    return False


def remove_read_only(path: Path) -> None:
    """Remove a read-only file (a store object being collected)."""
    with contextlib.suppress(FileNotFoundError):
        path.chmod(0o644)
        path.unlink()


def remove_temp_files(folder: Path, *, prefix: str = "", depth: int = 0) -> None:
    """Remove temp files an interrupted atomic_write left in `folder` (those of one file name
    when `prefix` is `.<name>`), and in its subfolders down to `depth` levels. The caller holds
    the lock under which they were written: nobody is writing them now."""
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if depth > 0:
                remove_temp_files(Path(entry.path), prefix=prefix, depth=depth - 1)
        elif entry.name.startswith(prefix) and TEMP_MARK in entry.name:
            remove_file(Path(entry.path))


def remove_temps_of(path: Path) -> None:
    """Remove the temp files an interrupted atomic_write of `path` left beside it."""
    remove_temp_files(path.parent, prefix=f".{path.name}{TEMP_MARK}")


@contextlib.contextmanager
def file_lock(path: Path, timeout: float) -> Iterator[None]:
    """Hold an exclusive lock on `path` for the block; raise LockBusy after `timeout` seconds.
    `portable.lock_file` (`flock(2)`, Windows filelock; dropped when the holder dies; ADRs 0054,
    0072); the holder's pid is kept beside it for the message. A lock this process holds raises
    at once: the system would make it wait for itself."""
    if path in _HELD:
        raise RuntimeError(f"this process already holds the lock {path}")
    with writing(path):
        _mkdir(path.parent, parents=True, exist_ok=True)
        release = portable.lock_file(str(path), timeout)
    owner = path.with_name(path.name + ".pid")
    if release is None:
        holder = owner.read_text(encoding="utf-8").strip() if owner.exists() else ""
        raise LockBusy(path, f"pid {holder}" if holder else "")
    _HELD.add(path)
    try:
        _write_in_place(owner, f"{os.getpid()}\n".encode())
        yield
    finally:
        _HELD.discard(path)
        try:
            remove_file(owner)
        finally:
            release()


def _write_in_place(path: Path, data: bytes) -> None:
    """Write a lock holder's pid beside its lock, in place: only the holder writes it, a reader
    that finds it half-written names no pid, and no temp file can outlive a kill."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | portable.NOFOLLOW | portable.BINARY
    with writing(path), os.fdopen(os.open(path, flags, 0o644), "wb", buffering=0) as handle:
        _put(handle.fileno(), data)


def append_durable(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Append `data` to a journal file and fsync it before returning (`durable=False`: the
    next durable append to the file makes it durable too).

    Journals are the one append-only exception to atomic_write: a torn last line is ignored
    when the journal is read back, because each line is written before the change it records.
    """
    with writing(path):
        _mkdir(path.parent, parents=True, exist_ok=True)
        with path.open("ab", buffering=0) as handle:
            _put(handle.fileno(), data)
            if durable:
                os.fsync(handle.fileno())


def remove_tree(path: Path) -> None:
    """Remove a folder uze created, with everything in it (rollback of a new folder, the trash
    of a commit). Many files are unlinked from a pool of threads: on ext4 each unlink waits on
    the journal, and concurrent ones share its commits (2,000 files: about 1.5 s one by one,
    0.2 to 0.4 s from 16 threads on this project's VM)."""
    if path.is_symlink() or not path.exists():
        remove_file(path)
        return
    files: list[str] = []
    folders: list[str] = [str(path)]  # each after its parent; no recursion (os.walk's is deep)
    for folder in folders:  # the list grows while it is walked: breadth first
        with os.scandir(folder) as entries:
            for entry in entries:  # a link to a folder is a file here: unlinked, not followed
                (folders if entry.is_dir(follow_symlinks=False) else files).append(entry.path)
    if len(files) < _UNLINK_POOL_FROM:
        for name in files:
            _unlink(name)
    else:
        each_in_threads(_unlink, files, _UNLINKERS)
    for folder in reversed(folders):  # every folder after the folders inside it, `path` last
        os.rmdir(folder)  # noqa: PTH106 (a str path from scandir)


_UNLINKERS: Final = 16
_UNLINK_POOL_FROM: Final = 64  # files; fewer are unlinked in the calling thread


def _unlink(name: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name)  # noqa: PTH108 (a str path from scandir)


def scratch_dir(prefix: str) -> Path:
    """A new empty private folder under the system's temporary folder; the caller removes it
    (`remove_tree`). Used for `uze doctor --probe`'s scratch project (ADR 0021)."""
    import tempfile

    return Path(tempfile.mkdtemp(prefix=prefix))


def copy_regular(source: Path, target: Path) -> None:
    """Copy the regular file `source`, or every regular file and folder under the folder
    `source`, to `target` (not durable: scratch copies). Links are never followed nor copied."""
    if source.is_symlink():
        return
    _mkdir(target.parent, parents=True, exist_ok=True)
    if source.is_file():
        target.write_bytes(source.read_bytes())
        return
    if not source.is_dir():
        return
    _mkdir(target, exist_ok=True)
    for child in sorted(source.iterdir()):
        copy_regular(child, target / child.name)
