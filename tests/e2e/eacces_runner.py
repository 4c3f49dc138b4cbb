"""Run the real uze command as if the files named on its command line could not be read.

Usage: python -m tests.e2e.eacces_runner PATH[:PATH...] uze-args...
Every open (and folder listing) of one of those absolute paths fails with EACCES, as it does
for a user without permission; the tests run as any user, root included, where chmod does not
deny anything. A `sys.addaudithook` hook raises before the operating system is asked.
"""

from __future__ import annotations

import errno
import os
import sys


def _absolute(path: str) -> str:
    """The absolute form of the name as given: no link resolved, as the command named it."""
    return os.path.abspath(path)  # noqa: PTH100 (Path.resolve would follow links)


def _deny(paths: set[str]) -> None:
    def hook(event: str, args: tuple[object, ...]) -> None:
        if event in ("open", "os.scandir", "os.listdir") and args and args[0] is not None \
                and isinstance(args[0], str | bytes | os.PathLike):
            path = _absolute(os.fsdecode(args[0]))  # type: ignore[arg-type]
            if path in paths:
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)

    sys.addaudithook(hook)


if __name__ == "__main__":
    _deny({_absolute(path) for path in sys.argv[1].split(":")})
    sys.argv = ["uze", *sys.argv[2:]]
    from uze.__main__ import main  # the fast paths first, as `python -m uze`

    main()
