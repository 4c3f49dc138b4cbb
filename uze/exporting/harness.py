"""What one harness has in one scope, read kind by kind from the locations its data names
(`uze.harnesses.<id>.HARNESS`), into a Found (ADR 0095).

A kind export cannot translate into the portable format yet (Codex's TOML agents, OpenCode's
MCP dialect, hooks that do not speak Claude's protocol...) is refused whole when the harness
has anything of it in the scope: `NotExportable` names each location and what is missing, so a
user never gets a package that silently lacks part of their setup.
"""

from __future__ import annotations

from pathlib import Path

from uze.errors import UzeError
from uze.exporting.config import (
    group_commands,
    read_config,
    read_hooks,
    read_instructions,
    read_mcp,
)
from uze.exporting.files import read_files, read_skills
from uze.exporting.model import Found
from uze.exporting.owned import Owned
from uze.harnesses.base import Harness
from uze.location import Location
from uze.package.codex import CODEX_SERVERS
from uze.package.gemini import GEMINI_SERVERS
from uze.package.layout import CODEX_MANIFEST, GEMINI_MANIFEST
from uze.package.servers import CLAUDE, Dialect


def _dialect(harness: Harness) -> Dialect | None:
    """The dialect export reads the harness's MCP config in: the one uze reads the same
    harness's published servers in (`uze.package`), found by the harness's data, never its id
    (its own package format, or Claude Code's plugins); None when uze has no reader of it."""
    if harness.claude_plugins is not None:
        return CLAUDE
    manifest = harness.envelope.manifest if harness.envelope is not None else ""
    return {CODEX_MANIFEST: CODEX_SERVERS, GEMINI_MANIFEST: GEMINI_SERVERS}.get(manifest)


class NotExportable(UzeError):
    """The harness has something in the scope that export cannot carry yet."""

    def __init__(self, harness: str, missing: list[str]) -> None:
        super().__init__(
            f"cannot export {harness} yet: it has what uze export cannot translate into a "
            "portable package; nothing was written",
            hint="move those aside (or export from a harness that can be exported, such as "
                 "claude_code) and run again", details=missing)


def _has_files(folder: Path, suffix: str, owned: Owned) -> bool:
    return folder.is_dir() and any(not owned.owns_path(path)
                                   for path in folder.rglob(f"*{suffix}"))


def read_harness(harness: Harness, loc: Location, owned: Owned) -> Found:
    """Every resource `harness` has in the scope of `loc` that uze does not own.

    Raises NotExportable when it has something export cannot read yet, UzeError for a config
    file that does not parse."""
    found = Found()
    missing: list[str] = []
    read_skills(harness.skills.roots(loc), loc, owned, found)
    agents = harness.agents
    if agents is not None and agents.claude_keys and agents.suffix == ".md":
        read_files("agent", agents.folder(loc), agents.suffix, loc, owned, found)
    elif agents is not None and _has_files(agents.folder(loc), agents.suffix, owned):
        missing.append(f"{loc.display(agents.folder(loc))}: {harness.id}'s agent files "
                       f"({agents.suffix}) are not yet read back into portable agents")
    commands = harness.commands
    if commands is not None and commands.suffix == ".md":
        read_files("command", commands.folder(loc), commands.suffix, loc, owned, found)
    elif commands is not None and _has_files(commands.folder(loc), commands.suffix, owned):
        missing.append(f"{loc.display(commands.folder(loc))}: {harness.id}'s command files "
                       f"({commands.suffix}) are not yet read back into portable commands")
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
    dialect = _dialect(harness)
    if dialect is not None:
        read_mcp(path, target.fmt, prefix, dialect, loc, owned, found)
        return
    document = read_config(path, target.fmt, loc)
    node: object = document
    for key in prefix:
        node = node.get(key) if isinstance(node, dict) else None
    if isinstance(node, dict) and any(not owned.owns_entry(path, (*prefix, name))
                                      for name in node):
        missing.append(f"{loc.display(path)}: {'.'.join(prefix)}: {harness.id}'s MCP server "
                       "entries are not yet read back into portable servers")


def _hooks(harness: Harness, loc: Location, owned: Owned, found: Found,
           missing: list[str]) -> None:
    target = harness.hooks
    path = target.file(loc) if target is not None else None
    if target is None or path is None:
        return
    if harness.hook_protocol.claude_verbatim:  # its settings hold Claude's hook groups
        read_hooks(path, target.fmt, loc, owned, found)
        return
    if target.layout == "plugin":
        if _has_files(path, "", owned):
            missing.append(f"{loc.display(path)}: {harness.id}'s plugins are code, not hook "
                           "groups a package carries")
        return
    document = read_config(path, target.fmt, loc)
    events = document.get("hooks") if document is not None else None
    if isinstance(events, dict) and any(
            not owned.owns_group(path, group_commands(group))
            for groups in events.values() if isinstance(groups, list) for group in groups):
        missing.append(f"{loc.display(path)}: hooks: {harness.id}'s hook groups are not yet "
                       "read back into a package's hooks")

