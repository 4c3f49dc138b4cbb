"""read_package: a package folder in, a validated Package out, or one PackageInvalid.

The PackageInvalid lists every problem at once. Reading never writes anything.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType

import msgspec

from uze.errors import PackageInvalid
from uze.package.codex import read_codex
from uze.package.commands import validate_commands
from uze.package.config_files import validate_claude_hooks, validate_hooks, validate_mcp
from uze.package.context import read_context
from uze.package.gemini import read_extension
from uze.package.hidden import hidden_in, hidden_text, read_by_models
from uze.package.issues import issue, key_path
from uze.package.layout import ComponentPaths, Layout, component_paths, detect_layout
from uze.package.model import Command, Manifest, McpServer, Package, Setting
from uze.package.settings import read_user_config, undeclared
from uze.package.tools import TOOLS_FILE, read_tools
from uze.package.tree import Tree, read_tree
from uze.package.validate import (
    validate_agents,
    validate_instructions,
    validate_manifest,
    validate_skills,
)


class _Read(msgspec.Struct, frozen=True):
    """What a layout's manifest gives: the identity, component paths, and (for another
    harness's envelope) the servers and commands it carries (None: read the usual files)."""

    manifest: Manifest | None
    paths: ComponentPaths = ComponentPaths()
    servers: tuple[McpServer, ...] | None = None
    commands: tuple[Command, ...] | None = None
    settings: tuple[Setting, ...] | None = None  # None: the manifest's userConfig


def _manifests(tree: Tree, layout: Layout, folder: str, issues: list[str],
               warnings: list[str]) -> _Read:
    """The manifest of the layout: a Gemini CLI extension's, a Codex plugin's, or uze's and
    Claude's (uze.package.validate)."""
    if layout.envelope == "gemini-extension":
        extension = read_extension(tree, issues, warnings)
        if extension is None:
            return _Read(None)
        return _Read(extension.manifest, servers=extension.servers, commands=extension.commands,
                     settings=extension.settings)
    if layout.envelope == "codex-plugin":
        plugin = read_codex(tree, issues, warnings)
        if plugin is None:
            return _Read(None)
        if any(path.startswith("commands/") for path in tree.seen):
            warnings.append(issue("commands", f"not installed ({CODEX_COMMANDS})"))
        return _Read(plugin.manifest, plugin.paths, plugin.servers, ())
    manifest, claude = validate_manifest(tree, layout, folder, issues, warnings)
    return _Read(manifest, component_paths(claude, tree, issues, warnings))


CODEX_COMMANDS = "a Codex plugin's manifest names no commands; Codex loads none from it"
NOTHING = "nothing to deliver: all the package offers is skipped or not installed (see above)"
EMPTY = ("nothing to deliver: the package carries no resource (no instructions, skill, agent, "
         "command, MCP server or hook group); a manifest alone installs nothing")



def _check_source(source: Path) -> Path:
    try:
        found = source.exists()
    except OSError as error:  # a name too long to look up
        raise PackageInvalid(source, [f"{source}: cannot read: {error.strerror}"]) from None
    if not found:
        raise PackageInvalid(source, [f"{source}: no such folder"])
    if not source.is_dir():
        raise PackageInvalid(source, [f"{source}: not a folder (a package is a folder)"])
    return source.resolve()


ExtraWarnings = Callable[[Tree, tuple[str, ...]], list[str]]


def read_package(
    source: Path, *, strict: bool = False, skip: frozenset[str] = frozenset(),
    extra_warnings: ExtraWarnings | None = None, deliverable: bool = False,
) -> Package:
    """Read and validate the package folder `source`.

    Every file is read byte for byte (`.git/` at the root is ignored). The layout decides
    where resources come from (`uze.package.layout`). Unsafe or unreadable input as a whole
    raises PackageInvalid with one `location: message` line per problem, all at once; what is
    read leniently (a Claude manifest's unknown keys, one skill or agent that cannot be read)
    is a warning in `Package.warnings`, or a problem too when `strict`. The root entries
    named in `skip` are not read (what uze writes when the package folder is the project).
    `extra_warnings(tree, instruction files)` adds warnings a caller knows more about (what a
    package's own envelopes for other harnesses carry: uze.plan.envelopes). `deliverable`:
    a package that carries no resource is refused, "nothing to deliver": every offer skipped
    (adr/0069) or none made, a manifest alone (adr/0077); what install and check read.
    """
    root = _check_source(source)
    tree = read_tree(root, skip)
    issues = list(tree.issues)
    warnings: list[str] = []
    layout = detect_layout(tree)
    read = _manifests(tree, layout, root.name, issues, warnings)
    manifest, paths = read.manifest, read.paths
    root_name = manifest.name if manifest is not None else root.name
    # A published plugin's root AGENTS.md / CLAUDE.md are the repository's own documents
    # (Claude Code, Codex and Gemini CLI never load them as the plugin's), not instructions
    # for the user's files. Without instructions of its own, a package's instructions are the
    # context files its gemini-extension.json names (uze.package.context; ADR 0049).
    instructions = None if layout.published else validate_instructions(tree, issues)
    if instructions is None:
        instructions = read_context(tree, issues, warnings)
    skills = validate_skills(tree, layout, paths, root_name, issues, warnings)
    agents = validate_agents(tree, paths, issues, warnings)
    if layout.envelope == "gemini-extension":  # its agents name Gemini CLI's tools
        agents = tuple(msgspec.structs.replace(a, tools_from=layout.manifest) for a in agents)
    commands = read.commands if read.commands is not None else (
        validate_commands(tree, paths, warnings) if not layout.bare else ())
    mcp_servers = read.servers if read.servers is not None else validate_mcp(
        tree, layout, paths, issues, warnings)
    settings = read.settings if read.settings is not None or manifest is None else (
        read_user_config(manifest.user_config, manifest.name, mcp_servers, layout.manifest,
                         warnings))
    mcp_servers = undeclared(mcp_servers, settings or (), layout.manifest, warnings)
    hooks = None if layout.hooks_are_claude else validate_hooks(tree, layout, issues)
    # tools.json is the portable format's own (adr/0083): a published plugin's is a file
    tools = () if layout.published else read_tools(
        tree, manifest.name if manifest is not None else None, mcp_servers, issues)
    claude_default = layout.hooks if layout.hooks_are_claude else None
    claude_hooks = validate_claude_hooks(tree, claude_default, paths, issues, warnings)
    warnings += hidden_text(tree.files, read_by_models(skills, agents, commands, instructions))
    warnings += hidden_in(TOOLS_FILE, {  # what a model reads of a tool, decoded
        key_path(["tools", i]): f"{t.description}\n{json.dumps(t.input_schema, ensure_ascii=False)}"
        for i, t in enumerate(tools)})
    if extra_warnings is not None:
        warnings += extra_warnings(tree, instructions.files if instructions else ())
    if strict:
        issues += warnings
    if issues or manifest is None:
        raise PackageInvalid(source, issues)
    package = Package(
        root=root,
        manifest=manifest,
        files=MappingProxyType(dict(sorted(tree.files.items()))),
        instructions=instructions,
        skills=skills,
        agents=agents,
        mcp_servers=mcp_servers,
        hooks=hooks,
        warnings=tuple(warnings),
        claude_hooks=claude_hooks,
        commands=commands,
        tools=tools,
        settings=settings or (),
    )
    if deliverable and package.is_empty:
        raise PackageInvalid(source, [*package.warnings,
                                      issue(".", NOTHING if package.warnings else EMPTY)])
    return package
