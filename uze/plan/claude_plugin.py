"""Claude Code's own plugin mechanism, for a package that ships `.claude-plugin/plugin.json`.

Such a package goes to Claude Code whole, byte for byte with its own manifest, as one folder
`<package>/` of Claude Code's skill root, which Claude Code loads as the plugin
`<package>@skills-dir` (measured with the real binary, ADR 0041): its skills, commands and
agents are listed as `<package>:<name>`, its hooks run and its MCP servers start as the
plugin's. No settings file is edited; uninstall removes the folder, so nothing else changes.
Pure: reads no file and writes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Final

from uze.harnesses import REGISTRY
from uze.harnesses.base import ClaudePlugins, invoke_feature
from uze.location import Location
from uze.package import Package
from uze.package.layout import CLAUDE_MANIFEST, PORTABLE_MANIFEST
from uze.plan import labels
from uze.vocabulary import Kind

NATIVE_REASON: Final = "native package, its own manifest"
SEP: Final = labels.SEP


_HARMLESS: Final = "unknown key; ignored"  # Claude Code's own validator only warns on these
# Claude Code expands ${CLAUDE_PLUGIN_ROOT} in a plugin's configs but leaves ${PLUGIN_ROOT}
# as written (2.1.197, `claude mcp get`); uze resolves both, so such a package is projected.
_UNEXPANDED: Final = b"${PLUGIN_ROOT}"


def claude_native(package: Package) -> bool:
    """Whether the package is a Claude Code plugin: `.claude-plugin/plugin.json` and no portable
    `plugin.json` (with both, the portable manifest describes the package)."""
    return CLAUDE_MANIFEST in package.files and PORTABLE_MANIFEST not in package.files


def delivered_whole(package: Package) -> bool:
    """Whether Claude Code gets the package whole, as its own plugin.

    It must be Claude-native (`.claude-plugin/plugin.json` and no portable `plugin.json`: with
    both, the portable manifest describes the package and uze projects it) and read with no
    warning but unknown keys. A package uze read only in part (a hook group, skill or command
    skipped or renamed) goes capability by capability instead: verbatim, Claude Code would get
    what uze skipped, and it refuses a whole hooks file for one bad handler (2.1.197,
    `hook-load-failed`), which would silence the good groups too. A JSON file that spells the
    root `${PLUGIN_ROOT}` also keeps the package projected (Claude Code does not expand it).
    So does a package with settings (adr/0078): Claude Code would take their values only from
    its own store (`pluginConfigs` in settings.json, sensitive ones in its keychain or
    credentials file) and refuse every server that names one unset; projected, its servers
    and hooks carry each value or the variable uze wrote in its place.
    """
    return (claude_native(package) and not package.settings
            and all(warning.endswith(_HARMLESS) for warning in package.warnings)
            and not any(_UNEXPANDED in f.data for rel, f in package.files.items()
                        if rel.endswith(".json")))


def loader(harness: str = labels.PLUGIN_HARNESS) -> ClaudePlugins:
    """How `harness` loads a plugin folder (`Harness.claude_plugins`); ValueError for a harness
    that loads none (the planner asks only those that do)."""
    plugins = REGISTRY[harness].claude_plugins
    if plugins is None:
        raise ValueError(f"{harness} loads no Claude plugin folder")
    return plugins


def folder(loc: Location, package: Package) -> Path:
    """The plugin folder: `<the loading harness's plugin root>/<package>`."""
    return loader().root(loc) / package.name


def reason(loc: Location) -> str:
    """The route text; in project scope it adds what the harness waits for (Claude Code: the
    workspace's trust)."""
    note = loader().project_note
    if loc.scope == "project" and note:
        return f"{NATIVE_REASON}; {note}"
    return NATIVE_REASON


def resources(package: Package, harness: str = labels.PLUGIN_HARNESS
              ) -> Iterator[tuple[Kind, str, str, str]]:
    """(kind, resource, label in `harness`, override feature) of each resource the plugin
    carries."""
    for skill in package.skills:
        yield "skill", skill.name, labels.skill(harness, package, skill), invoke_feature(
            skill.invoke)
    for command in package.commands:
        yield "command", command.name, labels.command(harness, package, command,
                                                      surface=True), "base"
    for agent in package.agents:
        yield "agent", agent.name, labels.agent(harness, package, agent), "base"
    for server in package.mcp_servers:
        yield "mcp", server.name, f"plugin{SEP}{package.name}{SEP}{server.name}", "base"
    if package.claude_hooks is not None:
        for group in package.claude_hooks.groups:
            yield "hook", group.name, "", "base"


def parts(package: Package) -> dict[tuple[Kind, str], str]:
    """Where each skill, command and agent sits in the plugin folder (its package path, the
    folder being the package): status reads each one's own files (`uze.artifacts.parts`). MCP
    servers and hooks have no part: they are the rest of the folder."""
    found: dict[tuple[Kind, str], str] = {}
    for skill in package.skills:
        if skill.folder:
            found["skill", skill.name] = skill.folder
    for command in package.commands:
        found["command", command.name] = command.relpath
    for agent in package.agents:
        found["agent", agent.name] = agent.relpath
    return found
