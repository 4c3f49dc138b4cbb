"""Planning a package's tools (`tools.json`): one generated stdio MCP server per package,
delivered to every harness through its MCP route (adr/0083). Pure."""

from __future__ import annotations

import posixpath

from uze.capabilities import Capability
from uze.package import McpServer
from uze.package.tools import server_name
from uze.plan.builder import Builder
from uze.plan.model import PlannedTree
from uze.plan.plugin_root import plugin_root, tool_folder
from uze.plan.runs import plan_package_copy, plan_server
from uze.plan.tool_server import SERVER_FILE, render_server


def generated_note(names: list[str]) -> Capability:
    """The route a generated tool server takes at best: adapted, naming the tools it serves."""
    return Capability("adapted", f"a stdio MCP server uze generates from tools.json, serving "
                      f"the tools {', '.join(names)}", "uze/plan/tools.py")


def plan_tools(b: Builder) -> None:
    """The package's tool server: its config entry in each harness (kind `mcp`, named
    `<package>-tools`), the server script in the package's tool folder and the package copy
    its commands run from."""
    if not b.package.tools:
        return
    folder, root = tool_folder(b.loc, b.package.name), plugin_root(b.loc, b.package.name)
    portable = McpServer(name=server_name(b.package.name),
                         command=f"${{PLUGIN_ROOT}}/{SERVER_FILE}")
    note = generated_note([tool.name for tool in b.package.tools])
    users = tuple(h for h in b.harnesses if plan_server(b, portable, h, folder, note))
    if not users:
        return
    relative = posixpath.relpath(root.as_posix(), folder.as_posix())
    files = {SERVER_FILE: render_server(b.package, relative)}
    b.artifacts.append(PlannedTree(folder, b.loc.display(folder), files, frozenset(files), users))
    plan_package_copy(b, root, users)
