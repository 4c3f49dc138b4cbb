"""read_package: a package folder in, a validated Package out, or one PackageInvalid.

The PackageInvalid lists every problem at once. Reading never writes anything.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType

from uze.errors import PackageInvalid
from uze.package.commands import validate_commands
from uze.package.config_files import validate_claude_hooks, validate_hooks, validate_mcp
from uze.package.context import read_context
from uze.package.layout import component_paths, detect_layout
from uze.package.model import Package
from uze.package.tree import Tree, read_tree
from uze.package.validate import (
    validate_agents,
    validate_instructions,
    validate_manifest,
    validate_skills,
)


def _check_source(source: Path) -> Path:
    if not source.exists():
        raise PackageInvalid(source, [f"{source}: no such folder"])
    if not source.is_dir():
        raise PackageInvalid(source, [f"{source}: not a folder (a package is a folder)"])
    return source.resolve()


ExtraWarnings = Callable[[Tree, tuple[str, ...]], list[str]]


def read_package(
    source: Path, *, strict: bool = False, skip: frozenset[str] = frozenset(),
    extra_warnings: ExtraWarnings | None = None,
) -> Package:
    """Read and validate the package folder `source`.

    Every file is read byte for byte (`.git/` at the root is ignored). The layout decides
    where resources come from (`uze.package.layout`). Unsafe or unreadable input as a whole
    raises PackageInvalid with one `location: message` line per problem, all at once; what is
    read leniently (a Claude manifest's unknown keys, one skill or agent that cannot be read)
    is a warning in `Package.warnings`, or a problem too when `strict`. The root entries
    named in `skip` are not read (what uze writes when the package folder is the project).
    `extra_warnings(tree, instruction files)` adds warnings a caller knows more about (what a
    package's own envelopes for other harnesses carry: uze.plan.envelopes).
    """
    root = _check_source(source)
    tree = read_tree(root, skip)
    issues = list(tree.issues)
    warnings: list[str] = []
    layout = detect_layout(tree)
    manifest, claude = validate_manifest(tree, layout, root.name, issues, warnings)
    paths = component_paths(claude, tree, issues, warnings)
    root_name = manifest.name if manifest is not None else root.name
    # A Claude-native plugin's root AGENTS.md / CLAUDE.md are the repository's own documents
    # (Claude Code never loads them), not instructions for the user's files. Without
    # instructions of its own, a package's instructions are the context files its
    # gemini-extension.json names (uze.package.context; ADR 0049).
    own_documents = layout.bare or layout.is_claude
    instructions = None if own_documents else validate_instructions(tree, issues)
    if instructions is None:
        instructions = read_context(tree, issues, warnings)
    skills = validate_skills(tree, layout, paths, root_name, issues, warnings)
    agents = validate_agents(tree, paths, issues, warnings)
    commands = validate_commands(tree, paths, warnings) if not layout.bare else ()
    mcp_servers = validate_mcp(tree, layout, issues)
    hooks = None if layout.hooks_are_claude else validate_hooks(tree, layout, issues)
    claude_default = layout.hooks if layout.hooks_are_claude else None
    claude_hooks = validate_claude_hooks(tree, claude_default, paths, issues, warnings)
    if extra_warnings is not None:
        warnings += extra_warnings(tree, instructions.files if instructions else ())
    if strict:
        issues += warnings
    if issues or manifest is None:
        raise PackageInvalid(source, issues)
    return Package(
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
    )
