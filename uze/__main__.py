"""`python -m uze` and the `uze` console script.

`uze --version`, the line people and scripts run most to check an install, answers before
anything else is imported; every other line goes to `uze.cli.main` (whose fast verbs run
without typer, ADR 0037).
"""

from __future__ import annotations

import os
import sys


def _main() -> None:
    if sys.argv[1:] == ["--version"]:
        from uze import __version__

        sys.stdout.write(f"uze {__version__}\n")
        return
    from uze.cli import main as cli_main

    cli_main()


def main() -> None:
    """Entry point. A reader that stops reading (`uze status | head -1`) ends the output
    quietly: exit 0, nothing on stderr."""
    try:
        try:
            _main()
        finally:
            sys.stdout.flush()
    except BrokenPipeError:

        devnull = os.open(os.devnull, os.O_WRONLY)  # the interpreter's last flush goes there
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)


if __name__ == "__main__":
    main()
