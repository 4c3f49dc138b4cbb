"""`python -m uze` and the `uze` console script.

Two command lines answer before typer and rich are imported, since start-up is most of their
cost: `uze --version`, the command people and scripts run most to check an install, and a plain
`uze status ... --json`, what scripts and editors poll (issue 8). typer builds a pydantic adapter
per option and rich loads its whole console before a command runs. Anything else, `--help` and
every argument the fast path does not recognise included, goes to the full command line
(`uze.cli`), and a failure is rendered by the same code there, so both paths print the same bytes.
"""

from __future__ import annotations

import sys
from typing import Any

_STATUS_OPTIONS = ("--scope", "--project")


def _status_json_args(args: list[str]) -> dict[str, str] | None:
    """The arguments of `status [NAME] [--scope S] [--project P] --json`, each at most once.

    None for anything else, so the parser decides: a help flag, an unknown option, an `=`
    form, a repeated or empty value, a value that looks like an option, a second name.
    """
    if not args or args[0] != "status" or "--json" not in args:
        return None
    found: dict[str, str] = {}
    rest = iter(args[1:])
    for token in rest:
        key = token if token.startswith("-") else "name"
        value = next(rest, "") if key in _STATUS_OPTIONS else token
        if key == "--json":
            value = "yes"
        elif key not in (*_STATUS_OPTIONS, "name") or not value or value.startswith("-") or "\0" in value:
            return None
        if key in found:
            return None
        found[key] = value
    return found


def _status_json(found: dict[str, str]) -> int:
    """`uze status --json` without typer: the same core call and the same bytes as `uze.cli`."""
    import json
    from pathlib import Path

    try:
        from uze.commands.status import status
        from uze.paths import Paths

        scope: Any = found.get("--scope", "all")
        if scope not in ("project", "user", "all"):
            from uze.errors import UsageError

            raise UsageError(f"invalid --scope {scope!r}", hint="use one of: project, user, all")
        project = found.get("--project")
        result = status(Paths.from_env(), found.get("name"), scope=scope,
                        project=None if project is None else Path(project), cwd=Path.cwd())
    except (Exception, KeyboardInterrupt) as exc:
        from uze.cli import failure_code

        return failure_code(exc)
    sys.stdout.write(json.dumps(result.to_json(), indent=2, sort_keys=True) + "\n")
    return 0


def main() -> None:
    """Entry point: the fast paths, else the full command line."""
    args = sys.argv[1:]
    if args == ["--version"]:
        from uze import __version__

        sys.stdout.write(f"uze {__version__}\n")
        return
    found = _status_json_args(args)
    if found is not None:
        sys.exit(_status_json(found))
    from uze.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
