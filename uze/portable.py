"""What only POSIX has, each with its Windows branch: the one module that asks which operating
system uze runs on (issue 29).

Importing it (or any module of uze) runs nothing only one system has: flags one system lacks
are 0 there, and the calls are made only when a function runs. `tests/unit/test_portable.py`
imports every module of uze with `fcntl` and the POSIX-only names of `os` taken away, and runs
each Windows branch here on this machine.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Final

POSIX: Final = os.name == "posix"
# A new file is opened without following a link planted at its name (POSIX; creating a link
# on Windows needs a privilege), not inherited by child processes, and in binary mode (Windows
# opens a descriptor in text mode otherwise, turning "\n" into "\r\n").
NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)
CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOINHERIT", 0)
BINARY: Final = getattr(os, "O_BINARY", 0)
NEW_FILE: Final = NOFOLLOW | CLOEXEC | BINARY  # with O_CREAT: a private new file


def user() -> tuple[int, frozenset[int]] | None:
    """This process's effective uid and groups; None on Windows, where no uid owns a file."""
    if not POSIX:
        return None
    return os.geteuid(), frozenset({os.getegid(), *os.getgroups()})


def set_mode(fd: int, path: str, mode: int) -> None:
    """Give the file open as `fd` at `path` exactly `mode`, whatever the umask. Windows keeps
    only the read-only bit of a mode, set through the path."""
    if POSIX:
        os.fchmod(fd, mode)
    else:
        os.chmod(path, mode)  # noqa: PTH101 (a str path, as the caller has it)


def keep_owner(fd: int, old: os.stat_result) -> None:
    """Give a file that replaces `old` the owner and group `old` had, where they are not this
    process's (POSIX; only root replaces such a file, ADR 0020). Windows: nothing to keep."""
    if POSIX and old.st_uid != os.geteuid():
        os.fchown(fd, old.st_uid, old.st_gid)


def kill_group(pid: int) -> None:
    """End the process `pid`, started in a session of its own, with everything in its process
    group (POSIX). Windows has no process groups to signal: the process itself is ended
    (TerminateProcess)."""
    import signal  # here: only `uze doctor --probe` ends processes (signal builds enums)

    if POSIX:
        os.killpg(pid, signal.SIGKILL)
    else:
        os.kill(pid, signal.SIGTERM)


LOCK_POLL: Final = 0.05  # seconds between two tries of a lock another process holds


def lock_file(path: str, timeout: float) -> Callable[[], None] | None:
    """Take an exclusive lock on the file at `path` (created if absent, never through a link),
    waiting up to `timeout` seconds: the function that releases it, or None when another
    process held it all that time. The system drops the lock when its holder dies.

    POSIX: `flock(2)` on the file, the lock filelock takes there too, so every uze version
    excludes every other; `fcntl` loads here, in a command that writes (ADR 0072). Windows:
    filelock (`LockFileEx`), loaded only there (its import costs ~30 ms of CPU)."""
    if not POSIX:
        return _lock_with_filelock(path, timeout)
    import fcntl  # here: only commands that write take a lock, and Windows has no fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT | NOFOLLOW | CLOEXEC, 0o644)
    deadline = time.monotonic() + timeout
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # another process holds it: wait, then try again
                if time.monotonic() >= deadline:
                    os.close(fd)
                    return None
                time.sleep(LOCK_POLL)
            else:
                return lambda: os.close(fd)  # closing the only descriptor drops the lock
    except BaseException:
        os.close(fd)
        raise


def _lock_with_filelock(path: str, timeout: float) -> Callable[[], None] | None:
    from filelock import FileLock, Timeout  # here: Windows only; POSIX takes flock itself

    lock = FileLock(path, timeout=timeout, mode=0o644)
    try:
        lock.acquire()
    except Timeout:
        return None
    return lock.release
