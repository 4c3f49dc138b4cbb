"""`python -m uze` and the `uze` console script.

Some command lines answer before typer and rich are imported, since start-up is most of their
cost: `uze --version`, the command people and scripts run most to check an install, and a plain
`uze status|list|install|uninstall ... --json`, what scripts, editors and CI run (issue 8). typer
builds a pydantic adapter per option and rich loads its whole console before a command runs.
Anything else, `--help` and every argument a fast path does not recognise included, goes to the
full command line (`uze.cli`), and a failure is rendered by the same code there, so both paths
print the same bytes and exit with the same code.
"""

from __future__ import annotations

import sys
from typing import Any, Final

# Per command: the options taking one value, the flags, and its argument (None: it takes none).
_FAST: Final[dict[str, tuple[tuple[str, ...], tuple[str, ...], str | None]]] = {
    "status": (("--scope", "--project"), (), "optional"),
    "list": (("--project",), (), None),
    "install": (("--scope", "--project", "--harness"), ("--dry-run", "--force", "--trust"), "required"),
    "uninstall": (("--scope", "--project"), ("--dry-run", "--force"), "required"),
}


def _json_args(args: list[str]) -> dict[str, str] | None:
    """The arguments of a `status`, `list`, `install` or `uninstall` command line with `--json`,
    each at most once, by option (the argument under "name", a flag as "yes").

    None for anything else, so the parser decides: a help flag, an unknown option, an `=`
    form, a repeated or empty value, a value that looks like an option, a second or a missing
    argument.
    """
    if not args or args[0] not in _FAST or "--json" not in args:
        return None
    options, flags, argument = _FAST[args[0]]
    found = {"command": args[0]}
    rest = iter(args[1:])
    for token in rest:
        key = token if token.startswith("-") else "name"
        value = next(rest, "") if key in options else token
        if key == "--json" or key in flags:
            value = "yes"
        elif (key not in options and not (key == "name" and argument)) or not value \
                or value.startswith("-") or "\0" in value:
            return None
        if key in found:
            return None
        found[key] = value
    if argument == "required" and "name" not in found:
        return None
    return found


def _scope(found: dict[str, str], default: str, allowed: tuple[str, ...]) -> Any:
    from uze.location import checked_scope

    return checked_scope(found.get("--scope", default), allowed)


def _document(found: dict[str, str]) -> dict[str, Any]:
    """Run the command as `uze.cli` would and return its JSON document (raises as it does)."""
    from pathlib import Path

    from uze.paths import Paths

    project = None if "--project" not in found else Path(found["--project"])
    command = found["command"]
    if command == "list":
        from uze.commands.listing import list_installed, listing_json

        return listing_json(*list_installed(Paths.from_env(), project=project, cwd=Path.cwd()))
    if command == "install":  # --json never asks: a package that needs consent is refused
        from uze.commands.reinstall import install_or_unchanged
        from uze.documents import install_json

        return install_json(install_or_unchanged(
            Paths.from_env(), Path(found["name"]), scope=_scope(found, "project", ("project", "user")),
            project=project, harness=found.get("--harness"), dry_run="--dry-run" in found,
            force="--force" in found, trust="--trust" in found, cwd=Path.cwd()))
    if command == "uninstall":
        from uze.commands.uninstall import uninstall
        from uze.documents import uninstall_json

        return uninstall_json(uninstall(
            Paths.from_env(), found["name"], scope=_scope(found, "project", ("project", "user")),
            project=project, dry_run="--dry-run" in found, force="--force" in found, cwd=Path.cwd()))
    from uze.commands.status import status

    scope = _scope(found, "all", ("project", "user", "all"))
    return status(Paths.from_env(), found.get("name"), scope=scope, project=project,
                  cwd=Path.cwd()).to_json()


def _print_document(found: dict[str, str]) -> int:
    """A `--json` command without typer: the same core call and bytes as `uze.cli`."""
    import json

    try:
        document = _document(found)
    except (Exception, KeyboardInterrupt) as exc:
        from uze.cli import failure_code

        return failure_code(exc)
    sys.stdout.write(json.dumps(document, indent=2, sort_keys=True) + "\n")
    return 0


def main() -> None:
    """Entry point: the fast paths, else the full command line."""
    args = sys.argv[1:]
    if args == ["--version"]:
        from uze import __version__

        sys.stdout.write(f"uze {__version__}\n")
        return
    found = _json_args(args)
    if found is not None:
        sys.exit(_print_document(found))
    from uze.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
