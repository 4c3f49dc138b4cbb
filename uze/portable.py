"""What only POSIX has, each with its Windows branch: the one module that asks which operating
system uze runs on (issue 29).

Importing it (or any module of uze) runs nothing only one system has: flags one system lacks
are 0 there, and the calls are made only when a function runs. `tests/unit/test_portable.py`
imports every module of uze with `fcntl` and the POSIX-only names of `os` taken away, and runs
each Windows branch here on this machine.
"""

from __future__ import annotations

import os
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
