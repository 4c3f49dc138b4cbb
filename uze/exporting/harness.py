"""What one harness has in one scope, read kind by kind from the locations its data names
(`uze.harnesses.<id>.HARNESS`), into a Found (ADR 0095).

Each kind is read with the reader uze already has for it, chosen by the harness's data, never
its id: skills from `skills.roots`; agents as they are where the harness reads Claude's agent
files (`AgentFormat.claude_keys`), else translated by its `AgentFormat` (uze.exporting.agents);
Markdown commands as they are, TOML commands by the Gemini extension reader; MCP servers by the
reader of that harness's published servers (its `envelope`, or Claude Code's plugins), else
by the inverse of its dialect that its data names (`McpTarget.portable`: OpenCode); hook
groups where they speak Claude's protocol (Claude Code's settings, and Codex's hooks, which
uze reads as Claude's in a Codex plugin); the instructions file without uze's regions.

A kind export cannot translate into the portable format yet (OpenCode's plugins, Gemini CLI's
hook protocol, the MCP dialect of a harness uze has no reader of) is refused whole when the
harness has anything of it in the scope: `NotExportable` names each location and what is
missing, so a user never gets a package that silently lacks part of their setup.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import msgspec

from uze.errors import UzeError
from uze.exporting.agents import read_agents
from uze.exporting.config import (
    group_commands,
    read_config,
    read_hooks,
    read_instructions,
    read_mcp,
)
from uze.exporting.files import read_files, read_skills, read_toml_commands, resource_files
from uze.exporting.model import Found, Left
from uze.exporting.owned import Owned
from uze.harnesses.base import Harness
from uze.location import Location
from uze.package.layout import CODEX_MANIFEST
from uze.package.servers import Dialect
from uze.plan.server_form import server_dialect
from uze.vocabulary import ConfigFormat


class Readers(msgspec.Struct, frozen=True):
    """How export reads a harness's config kinds: the MCP dialect (None: no reader yet,
    uze.plan.server_form) and whether its hook config holds Claude-protocol groups."""

    servers: Dialect | None = None
    claude_hooks: bool = False
    # Its user config also holds servers private to one project (Claude Code's local scope,
    # `projects.<path>.mcpServers` of ~/.claude.json): listed, never exported.
    private_servers: bool = False


def readers(harness: Harness) -> Readers:
    """The readers of `harness`'s config kinds (Claude Code: it loads Claude plugins; Codex's
    hooks are read as Claude's, as in a Codex plugin, docs/package-format.md)."""
    plugins = harness.claude_plugins is not None
    codex = harness.envelope is not None and harness.envelope.manifest == CODEX_MANIFEST
    return Readers(server_dialect(harness), claude_hooks=plugins or codex,
                   private_servers=plugins)


class NotExportable(UzeError):
    """The harness has something in the scope that export cannot carry yet."""

    def __init__(self, harness: str, missing: list[str]) -> None:
        super().__init__(
            f"cannot export {harness} yet: it has what uze export cannot translate into a "
            "portable package; nothing was written",
            hint="move those aside (or export from a harness that can be exported, such as "
                 "claude_code) and run again", details=missing)


def read_harness(harness: Harness, loc: Location, owned: Owned) -> Found:
    """Every resource `harness` has in the scope of `loc` that uze does not own.

    Raises NotExportable when it has something export cannot read yet, UzeError for a config
    file that does not parse."""
    found = Found()
    missing: list[str] = []
    read_skills(harness.skills.roots(loc), loc, owned, found)
    agents = harness.agents
    if agents is not None and agents.claude_keys:
        read_files("agent", agents.folder(loc), agents.suffix, loc, owned, found)
    elif agents is not None:
        read_agents(harness.id, agents, loc, owned, found)
    commands = harness.commands
    if commands is not None and commands.suffix == ".md":
        read_files("command", commands.folder(loc), commands.suffix, loc, owned, found)
    elif commands is not None and commands.suffix == ".toml":
        read_toml_commands(commands.folder(loc), loc, owned, found)
    _servers(harness, loc, owned, found, missing)
    _hooks(harness, loc, owned, found, missing)
    read_instructions(harness.instructions.file(loc), loc, owned, found)
    if missing:
        raise NotExportable(harness.id, missing)
    return found


def _servers(harness: Harness, loc: Location, owned: Owned, found: Found,
             missing: list[str]) -> None:
    target = harness.mcp
    if target is None:
        return
    path, prefix = target.file(loc), target.key(loc, "")[:-1]
    dialect = readers(harness).servers
    if dialect is not None:
        read_mcp(path, target.fmt, prefix, dialect, loc, owned, found)
        if loc.scope == "project" and readers(harness).private_servers:
            _private(target.file(Location("user", loc.project, loc.paths)), target.fmt,
                     loc, found)
        return
    document = read_config(path, target.fmt, loc)
    node: object = document
    for key in prefix:
        node = node.get(key) if isinstance(node, dict) else None
    if isinstance(node, dict) and any(not owned.owns_entry(path, (*prefix, name))
                                      for name in node):
        missing.append(f"{loc.display(path)}: {'.'.join(prefix)}: {harness.id}'s MCP server "
                       "entries are not yet read back into portable servers")


PRIVATE: Final = ("a server Claude Code keeps for you alone in this project (its local scope): "
           "not exported into a package meant to be shared; `claude mcp add --scope project` "
           "makes it the project's")


def _private(path: Path, fmt: ConfigFormat, loc: Location, found: Found) -> None:
    """List the servers the user config keeps for this project alone (never exported)."""
    document = read_config(path, fmt, loc)
    projects = document.get("projects") if document is not None else None
    if not isinstance(projects, dict):
        return
    for key in dict.fromkeys((str(loc.project), str(loc.project.resolve()))):
        entry = projects.get(key)
        servers = entry.get("mcpServers") if isinstance(entry, dict) else None
        for name in servers if isinstance(servers, dict) else ():
            found.left.append(Left("mcp", name, f"{loc.display(path)}: projects.<this "
                                   "project>.mcpServers", PRIVATE))


def _hooks(harness: Harness, loc: Location, owned: Owned, found: Found,
           missing: list[str]) -> None:
    target = harness.hooks
    path = target.file(loc) if target is not None else None
    if target is None or path is None:
        return
    if readers(harness).claude_hooks:
        protocol = harness.hook_protocol
        events = {native: claude for claude, native in protocol.claude_events.items()}
        read_hooks(path, target.fmt, loc, owned, found, (events, protocol.claude_tools))
        return
    if target.layout == "plugin":
        if resource_files(path, "", owned):
            missing.append(f"{loc.display(path)}: {harness.id}'s plugins are code, not hook "
                           "groups a package carries")
        return
    document = read_config(path, target.fmt, loc)
    groups_by_event = document.get("hooks") if document is not None else None
    if isinstance(groups_by_event, dict) and any(
            not owned.owns_group(path, group_commands(group))
            for groups in groups_by_event.values() if isinstance(groups, list) for group in groups):
        missing.append(f"{loc.display(path)}: hooks: {harness.id}'s hook groups speak its own "
                       "protocol, not Claude's; they are not yet read back into a package")

