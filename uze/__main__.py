"""`python -m uze` and the `uze` console script.

Some command lines answer before typer is imported, since start-up is most of their cost:
`uze --version`, the command people and scripts run most to check an install, and a plain
`uze status|list|install|uninstall ...`, with `--json` (what scripts, editors and CI run) or
without it (what a person types; rich then prints the same views `uze.cli` prints) (issue 8).
typer builds a pydantic adapter per option before a command runs. Anything else, `--help` and
every argument a fast path does not recognise included, goes to the full command line
(`uze.cli`), and a failure is rendered by the same code there, so both paths print the same
bytes and exit with the same code. An install that needs consent at a terminal is handed to
`uze.cli` too, which asks (nothing was written before the question).
"""

from __future__ import annotations

import sys
from typing import Any, Final

# Per command: the options taking one value, the flags, and its argument (None: it takes none).
_FAST: Final[dict[str, tuple[tuple[str, ...], tuple[str, ...], str | None]]] = {
    "status": (("--scope", "--project"), (), "optional"),
    "list": (("--project",), (), None),
    "install": (("--scope", "--project", "--harness", "--ref", "--subdirectory"),
                ("--dry-run", "--force", "--trust", "--replace", "--frozen"), "optional"),
    "uninstall": (("--scope", "--project"), ("--dry-run", "--force"), "required"),
}


def _fast_args(args: list[str]) -> dict[str, str] | None:
    """The arguments of a `status`, `list`, `install` or `uninstall` command line, each at most
    once, by option (the argument under "name", a flag and `--json` as "yes").

    None for anything else, so the parser decides: a help flag, an unknown option, an `=`
    form, a repeated or empty value, a value that looks like an option, a second or a missing
    argument.
    """
    if not args or args[0] not in _FAST:
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
    if args[0] == "install" and "name" in found and "--frozen" in found:
        return None  # the parser's usage error
    return found


def _scope(found: dict[str, str], default: str, allowed: tuple[str, ...]) -> Any:
    from uze.location import checked_scope

    return checked_scope(found.get("--scope", default), allowed)


def _result(found: dict[str, str]) -> Any:
    """Run the command's core call as `uze.cli` would and return its result (raises as it does)."""
    from pathlib import Path

    from uze.paths import Paths

    project = None if "--project" not in found else Path(found["--project"])
    command = found["command"]
    if command == "list":
        from uze.commands.listing import list_installed

        return list_installed(Paths.from_env(), project=project, cwd=Path.cwd())
    if command == "install":
        from uze.commands.acquire import Options, install_source

        options = Options(
            scope=_scope(found, "project", ("project", "user")), project=project,
            harness=found.get("--harness"), dry_run="--dry-run" in found,
            force="--force" in found, trust="--trust" in found, replace="--replace" in found)
        if "name" not in found:  # no SOURCE: converge to uze.toml + uze.lock
            from uze.commands.converge import converge

            return converge(Paths.from_env(), options, Path.cwd(), frozen="--frozen" in found)
        return install_source(Paths.from_env(), found["name"], options, Path.cwd(),
                              ref=found.get("--ref", ""),
                              subdirectory=found.get("--subdirectory", ""))
    if command == "uninstall":
        from uze.commands.uninstall import uninstall

        return uninstall(
            Paths.from_env(), found["name"], scope=_scope(found, "project", ("project", "user")),
            project=project, dry_run="--dry-run" in found, force="--force" in found,
            cwd=Path.cwd())
    from uze.commands.status import status

    scope = _scope(found, "all", ("project", "user", "all"))
    return status(Paths.from_env(), found.get("name"), scope=scope, project=project, cwd=Path.cwd())


def _document(command: str, result: Any) -> dict[str, Any]:
    """The `--json` document of a result, as `uze.cli` prints it."""
    if command == "list":
        from uze.commands.listing import listing_json

        return listing_json(*result)
    if command == "install" and not hasattr(result, "plan"):
        from uze.commands.converge import converge_json

        return converge_json(result)
    if command == "install":  # --json never asks: a package that needs consent is refused
        from uze.documents import install_json

        return install_json(result)
    if command == "uninstall":
        from uze.documents import uninstall_json

        return uninstall_json(result)
    document: dict[str, Any] = result.to_json()
    return document


def _color(args: list[str]) -> tuple[str, list[str]]:
    """A leading `--color WHEN` (or `--color=WHEN`) and the arguments after it; `auto` and
    the arguments unchanged when there is none or WHEN is not a mode (typer then says why)."""
    modes = ("auto", "always", "never")
    if len(args) >= 2 and args[0] == "--color" and args[1] in modes:
        return args[1], args[2:]
    if args and args[0].startswith("--color=") and args[0][8:] in modes:
        return args[0][8:], args[1:]
    return "auto", args


def _show_view(found: dict[str, str], result: Any, color: str) -> None:
    """Print the human view of a result, as `uze.cli` prints it."""
    from uze import render

    render.set_color(color)
    command = found["command"]
    if command == "list":
        render.show(render.list_view(result[1]))
    elif command == "install" and not hasattr(result, "plan"):  # a converge, as uze.cli prints
        console = render.stdout_console()
        for line in result.lines():
            console.print(line, markup=False)
    elif command == "install":
        render.show(render.install_view(result))
    elif command == "uninstall":
        render.show(render.uninstall_view(result))
    else:
        render.show(render.status_view(result, full="name" in found))


def _asks_at_terminal(exc: BaseException, found: dict[str, str]) -> bool:
    """Whether `uze.cli` would ask for consent here rather than refuse (its `_asking`)."""
    from uze.errors import TrustRequired

    return isinstance(exc, TrustRequired) and "--json" not in found \
        and sys.stdin.isatty() and sys.stderr.isatty()


def _progress(found: dict[str, str]) -> Any:
    """The progress display of an install or uninstall at a terminal without --json (ADR 0027;
    its module is imported only then), else a context that does nothing."""
    if found["command"] in ("install", "uninstall") and "--json" not in found \
            and sys.stderr.isatty():
        from uze.progress_view import shown

        return shown(" ".join(filter(None, (found["command"], found.get("name")))))
    from contextlib import nullcontext

    return nullcontext()


def _run_fast(found: dict[str, str], color: str) -> int | None:
    """A fast-path command line: the same core call and bytes as `uze.cli`; None to hand it to
    `uze.cli` (an install that needs consent at a terminal: it asks there)."""
    import json

    try:
        with _progress(found):
            result = _result(found)
    except (Exception, KeyboardInterrupt) as exc:
        if _asks_at_terminal(exc, found):
            return None
        from uze.cli import failure_code

        return failure_code(exc)
    if found["command"] == "install" and "name" in found:  # an Outcome: notes go to stderr
        for note in result.notes:
            sys.stderr.write(f"note: {note}\n")
        result = result.result
    if "--json" in found:
        document = _document(found["command"], result)
        sys.stdout.write(json.dumps(document, indent=2, sort_keys=True) + "\n")
    else:
        _show_view(found, result, color)
    return 0


def _main() -> None:
    args = sys.argv[1:]
    if args == ["--version"]:
        from uze import __version__

        sys.stdout.write(f"uze {__version__}\n")
        return
    color, rest = _color(args)
    found = _fast_args(rest)
    if found is not None:
        code = _run_fast(found, color)
        if code is not None:
            sys.stdout.flush()
            sys.exit(code)
    from uze.cli import main as cli_main

    cli_main()


def main() -> None:
    """Entry point: the fast paths, else the full command line. A reader that stops reading
    (`uze status | head -1`) ends the output quietly: exit 0, nothing on stderr."""
    try:
        try:
            _main()
        finally:
            sys.stdout.flush()
    except BrokenPipeError:
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)  # the interpreter's last flush goes there
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)


if __name__ == "__main__":
    main()
