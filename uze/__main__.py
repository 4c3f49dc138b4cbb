"""`python -m uze` and the `uze` console script.

`uze --version` answers before the command line (typer, rich) is imported: it is the command
people and scripts run most to check an install, and start-up is most of its cost.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Entry point: the version fast path, else the full command line."""
    if sys.argv[1:] == ["--version"]:
        from uze import __version__

        sys.stdout.write(f"uze {__version__}\n")
        return
    from uze.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
