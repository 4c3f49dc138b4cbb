"""`python -m uze` runs the command line."""

from __future__ import annotations

from uze.cli import main

if __name__ == "__main__":
    main()
