"""Package tools (`tools.json`, docs/package-format.md) as msgspec Structs, and the name of the
MCP server uze generates to serve them (adr/0083).

A tool is a command the model may call: `name`, `description`, `inputSchema` (a JSON Schema of
the arguments, an object), the `command` (with `args`, run directly; without, by `/bin/sh -c`,
as a hook handler) naming package files through `${PLUGIN_ROOT}`, and a `timeout` in seconds.
uze delivers a package's tools as one generated stdio MCP server (`uze.plan.tool_server`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, ClassVar, Final

import msgspec

from uze.package.convert import convert
from uze.package.issues import issue, key_path
from uze.package.manifest import McpServer, NonEmpty, Strict, check
from uze.package.names import MAX_MCP_NAME_CHARS
from uze.package.tree import Tree
from uze.patterns import compile_later

TOOLS_FILE: Final = "tools.json"
MAX_TOOLS: Final = 128
MAX_TOOL_NAME_CHARS: Final = 32  # `mcp__<server>__<tool>` stays within 64 characters
MAX_TIMEOUT: Final = 600
DEFAULT_TIMEOUT: Final = 60
SUFFIX: Final = "-tools"
_TOOL_NAME: Final = compile_later(r"[A-Za-z][A-Za-z0-9_-]*")


def tool_name_problem(name: str) -> str | None:
    """Why `name` is not a tool name every harness accepts, or None."""
    if len(name) > MAX_TOOL_NAME_CHARS:
        return f"is {len(name)} characters long; the limit is {MAX_TOOL_NAME_CHARS}"
    if not _TOOL_NAME.fullmatch(name):
        return (f"invalid tool name {name!r}: start with a letter, then letters, digits, "
                "`_` or `-`")
    return None


def schema_problem(schema: dict[str, Any]) -> str | None:
    """Why `schema` is not an MCP tool input schema (a JSON Schema whose type is object)."""
    if schema.get("type") != "object":
        return 'must be a JSON Schema of an object: {"type": "object", "properties": {...}}'
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        return "properties: must be a JSON object of argument schemas"
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        return "required: must be a list of argument names"
    return None


class Tool(Strict, frozen=True, kw_only=True):
    """One tool: what the model is told about it and the command that answers a call."""

    name: str
    description: NonEmpty
    input_schema: dict[str, Any] = msgspec.field(name="inputSchema")
    command: NonEmpty
    args: list[str] | None = None
    timeout: Annotated[int, msgspec.Meta(ge=1, le=MAX_TIMEOUT)] = DEFAULT_TIMEOUT

    rules: ClassVar[Mapping[str, Callable[[Any], str | None]]] = {
        "name": tool_name_problem, "input_schema": schema_problem}


class ToolsFile(Strict, frozen=True, kw_only=True):
    """tools.json: `{"$schema"?, "tools": [tool, ...]}`, names unique."""

    schema_url: str | None = msgspec.field(default=None, name="$schema")
    tools: Annotated[list[Tool], msgspec.Meta(min_length=1, max_length=MAX_TOOLS)]

    def __post_init__(self) -> None:
        super().__post_init__()
        check("\n".join(duplicates(tool.name for tool in self.tools)) or None)


def duplicates(names: Any) -> list[str]:
    """`tools[i].name: ...` for each name already used by an earlier tool."""
    seen: dict[str, int] = {}
    found: list[str] = []
    for index, name in enumerate(names):
        if name in seen:
            found.append(f"{key_path(['tools', index, 'name'])}: {name!r} is already the name "
                         f"of tools[{seen[name]}]")
        seen.setdefault(name, index)
    return found


def server_name(package: str) -> str:
    """The MCP server name of a package's generated tool server: `<package>-tools`, the
    package name cut so the whole stays within the MCP name limit."""
    head = package[: MAX_MCP_NAME_CHARS - len(SUFFIX)].rstrip("-")
    return f"{head}{SUFFIX}"


def read_tools(tree: Tree, package: str | None, servers: tuple[McpServer, ...],
               issues: list[str]) -> tuple[Tool, ...]:
    """The tools of `tools.json` (none without the file), every problem added to `issues`
    located in the file; the generated server's name must not be one of the package's own
    servers (`package`: its name, None when unknown)."""
    if TOOLS_FILE not in tree.seen:
        return ()
    raw = tree.json_object(TOOLS_FILE, issues)
    if raw is None:
        return ()
    found = convert(raw, ToolsFile, TOOLS_FILE, issues)
    if found is None:
        return ()
    if package is not None and server_name(package) in {s.name for s in servers}:
        issues.append(issue(TOOLS_FILE, f"uze serves these tools as the MCP server "
                            f"{server_name(package)!r}, which the package's own servers "
                            "already name; rename that server"))
        return ()
    return tuple(found.tools)
