"""`python -m uze` and the `uze` console script.

`uze --version`, the line people and scripts run most to check an install, answers before
anything else is imported; every other line goes to `uze.cli.main` (whose fast verbs run
without typer, ADR 0037).
"""

from __future__ import annotations

import gc
import os
import sys


def _load_msgspec() -> None:
    """Import msgspec without typing_extensions (ADR 0051). msgspec takes `get_type_hints`
    from typing_extensions when it can, and typing's otherwise; on Python 3.11 the two agree
    on every annotation uze has. typing_extensions imports `inspect` (with ast, dis and
    tokenize): about 9 ms of every command that only the typer command line needs. A later
    `import typing_extensions` (typer's) loads it as usual."""
    if "msgspec" in sys.modules or "typing_extensions" in sys.modules:
        return
    sys.modules["typing_extensions"] = None  # type: ignore[assignment]  # import -> ImportError
    try:
        import msgspec  # noqa: F401
    finally:
        del sys.modules["typing_extensions"]


# Commands that only read: they build many objects and no garbage cycles to speak of.
_READERS = frozenset({"status", "list", "doctor"})


def _verb(argv: list[str]) -> str | None:
    """The first word of the command line that is not an option (the verb, when no option
    before it takes a value)."""
    return next((word for word in argv if not word.startswith("-")), None)


_GC_YOUNG = 100_000
"""Allocations between two collections of the youngest generation (Python's default: 700).
A command that edits a project's shared config files parses documents that hold every
package's entries: hundreds of thousands of dicts, lists and strings, none in a reference
cycle (reference counting frees them). At the default thresholds the collector walked them
again and again, more the more packages: 50 ms of the 200th install (issue 32, ADR 0099).
Garbage in cycles waits at most this many allocations longer to be found."""


def _main() -> None:
    if _verb(sys.argv[1:]) in _READERS:
        # The cyclic garbage collector is off for a read-only command (ADR 0101): the objects
        # of 200 decoded receipts make its full passes walk them again and again (about a
        # sixth of `status --json` at 200 packages), and what such a command builds is freed
        # by reference counts; the process ends right after.
        gc.disable()
    if sys.argv[1:] == ["--version"]:
        from uze import __version__

        sys.stdout.write(f"uze {__version__}\n")
        return
    gc.set_threshold(_GC_YOUNG, 20, 100)  # (a reader's collector is off altogether)
    _load_msgspec()
    from uze.cli import main as cli_main

    cli_main()


def main() -> None:
    """Entry point. A reader that stops reading (`uze status | head -1`) ends the output
    quietly: exit 0, nothing on stderr. The objects left at exit are frozen out of the
    garbage collector (ADR 0051): the interpreter's last collection then does not walk every
    class and Struct type the command loaded, about 6 ms of a `uze status`; the process ends
    right after, and files, locks and threads were closed and joined by the command."""
    try:
        try:
            _main()
        finally:
            gc.freeze()
            sys.stdout.flush()
    except BrokenPipeError:

        devnull = os.open(os.devnull, os.O_WRONLY)  # the interpreter's last flush goes there
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)


if __name__ == "__main__":
    main()
