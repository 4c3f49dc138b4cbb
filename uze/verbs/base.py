"""The command table's types (ADR 0037): a parameter, a verb, a parsed line, and what the
table's entries share (common options, the core calls' arguments).

Nothing here prints or imports a command's modules: an entry's core call and view load them
when called.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Final, Literal

import msgspec

from uze.errors import UzeError
from uze.location import checked_scope
from uze.paths import Paths, marked_project

Call = dict[str, Any]
"""A parsed command line: every parameter's `dest` with its value (the default if not given)."""
ParamKind = Literal["flag", "text", "texts", "path", "argument", "path-argument", "arguments"]


class Param(msgspec.Struct, frozen=True):
    """One option or argument. `flag` is its option name ("" for the argument); `default` is
    None for an argument that may be left out, and `...` for one that is required."""

    dest: str
    kind: ParamKind
    help: str
    flag: str = ""
    default: Any = None


class Verb(msgspec.Struct, frozen=True):
    """One command. `run` is its core call, `document` its `--json` output, `view` its human
    output (rich renderables; a `str` is one plain line). `fast`: parsed without typer.
    `asks`: may ask for consent at a terminal (retried with the digest the user accepted in
    `call["accepted"]`, ADR 0056). `writes`: it may write into the project (`project_note`
    runs before it). `progress`: the label of its progress display. `finish`: after printing,
    the exit code (it may raise)."""

    path: str
    help: str
    params: tuple[Param, ...]
    run: Callable[[Call], Any]
    document: Callable[[Any], dict[str, Any]]
    view: Callable[[Any, Call], list[Any]]
    fast: bool = False
    asks: bool = False
    writes: bool = False  # writes in the project scope: `project_note` is checked first
    progress: Callable[[Call], str] | None = None
    finish: Callable[[Any], int] | None = None


def paths() -> Any:
    """The locations of this run (`uze.paths.Paths`, read from the environment)."""

    return Paths.from_env()


def project(call: Call) -> Path | None:
    """The `--project` folder given, or None."""
    return None if call["project"] is None else Path(call["project"])


def project_note(call: Call) -> str | None:
    """Before a command writes in project scope with no `--project`: which folder it will use
    when no `.git` or `.uze/` marks one (the current folder), else None. Raises UzeError when
    that folder would be the home folder, whose `.claude/`, `.codex/`... are the harnesses'
    user folders: only `--project` naming it (or `--scope user`) writes there."""
    if call.get("project") is not None or call.get("scope", "project") != "project":
        return None
    cwd = Path.cwd()
    marked = marked_project(cwd)
    folder = marked or cwd.absolute()
    home = paths().home
    if folder.resolve() == home.resolve():
        raise UzeError(
            f"{folder} is your home folder: uze does not use it as a project unless --project "
            "names it (its .claude/, .codex/, ... are the harnesses' user folders)",
            hint="run it in a project (a folder with .git or .uze/), use --scope user for your "
                 f"user-level harness folders, or name it: --project {folder}")
    if marked is None:
        return (f"no .git or .uze/ in {folder} or above it: using {folder} as the project "
                "(--project DIR names another)")
    return None


def lines(result: Any, _call: Call) -> list[Any]:
    """The human view of a result that has `lines()`."""
    return list(result.lines())


def to_json(result: Any) -> dict[str, Any]:
    """The `--json` document of a result that has `to_json()`."""
    document: dict[str, Any] = result.to_json()
    return document


PROJECT: Final = Param("project", "path",
                       "Project folder (default: nearest .uze/ or .git ancestor, else the "
                       "current folder, named; never your home folder unless named here).",
                       "--project")
JSON: Final = Param("as_json", "flag", "Print one JSON document on stdout.", "--json")
DRY_RUN: Final = Param("dry_run", "flag", "Print the plan; write nothing.", "--dry-run")
FORCE: Final = Param("force", "flag", "Also replace or remove artifacts the user edited.",
                     "--force")
SCOPE: Final = Param("scope", "text", "project or user.", "--scope", "project")
VERBOSE: Final = Param("verbose", "flag", "Show every projection (default: a summary, then what "
                                          "needs attention).", "--verbose")
QUIET: Final = Param("quiet", "flag", "Print nothing but errors (for scripts; the exit code "
                                      "says how it went).", "--quiet")


def scope(call: Call) -> Any:
    """The `--scope` given, checked: project or user."""
    return checked_scope(call["scope"], ("project", "user"))
