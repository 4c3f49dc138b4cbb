#!/usr/bin/env python3
"""Write docs/cli.md from the command definitions in uze/cli.py (issue 23 item 5).

Usage: python scripts/gen-cli-docs.py          (rewrite docs/cli.md)
       python scripts/gen-cli-docs.py --check  (exit 1 if docs/cli.md is out of date)
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from uze.cli import command  # noqa: E402 - after the path of the repository
from uze.ui.cli_docs import markdown  # noqa: E402

DOC = REPO / "docs" / "cli.md"


def main(args: list[str]) -> int:
    text = markdown(command())
    if args == ["--check"]:
        if DOC.read_text(encoding="utf-8") != text:
            sys.stderr.write("docs/cli.md is out of date: run python scripts/gen-cli-docs.py\n")
            return 1
        return 0
    DOC.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
