"""`${PLUGIN_ROOT}`: a materialised copy of the package that the receipt owns.

Project scope: `<project>/.uze/packages/<name>/`, so it travels with the project. User scope:
`$UZE_HOME/packages/<name>/`. Commands that name `${PLUGIN_ROOT}` (or Claude's
`${CLAUDE_PLUGIN_ROOT}`), or a `./`-relative command, are resolved to that copy. Pure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import msgspec

from uze.location import Location
from uze.package import McpServer

_VARIABLES: Final = ("${PLUGIN_ROOT}", "${CLAUDE_PLUGIN_ROOT}")


def plugin_root(loc: Location, package: str) -> Path:
    """Where the package's files are materialised for commands that run them."""
    if loc.scope == "project":
        return loc.project / ".uze" / "packages" / package
    return loc.paths.uze_home / "packages" / package


def hook_folder(loc: Location, package: str) -> Path:
    """Where the generated hook wrappers of a package live (owned by its receipt)."""
    if loc.scope == "project":
        return loc.project / ".uze" / "hooks" / package
    return loc.paths.uze_home / "hooks" / package


def tool_folder(loc: Location, package: str) -> Path:
    """Where the generated MCP server of a package's tools lives (owned by its receipt)."""
    if loc.scope == "project":
        return loc.project / ".uze" / "tools" / package
    return loc.paths.uze_home / "tools" / package


def as_written(loc: Location, path: Path, form: str | None) -> str | None:
    """`path` (a place uze writes inside the project) as a project-scope entry names it: the
    harness's form of the project root (`.`, `${CLAUDE_PROJECT_DIR}`, adr/0039) joined to the
    project-relative path. None in user scope, or where the harness has no form: the entry
    then names `path` itself, which holds only on this machine."""
    if loc.scope != "project" or form is None:
        return None
    return f"{form}/{path.relative_to(loc.project).as_posix()}"


def _resolve(text: str, root: str) -> str:
    for variable in _VARIABLES:
        text = text.replace(variable, root)
    return text


def resolve_server(server: McpServer, root: str) -> tuple[McpServer, bool]:
    """The server with package-relative paths resolved against `root` (the package copy, as
    the entry names it); True if it needs the copy."""
    command = server.command
    if command is not None and command.startswith("./"):
        command = f"{root}/{command[2:]}"
    resolved = msgspec.structs.replace(
        server,
        command=_resolve(command, root) if command is not None else None,
        args=[_resolve(arg, root) for arg in server.args],
        cwd=_resolve(server.cwd, root) if server.cwd else server.cwd,
        env={k: _resolve(v, root) for k, v in server.env.items()},
        url=_resolve(server.url, root) if server.url else server.url,
        headers={k: _resolve(v, root) for k, v in server.headers.items()},
    )
    return resolved, resolved != server
