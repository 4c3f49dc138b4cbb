"""read_package: a package folder in, a validated Package out, or one PackageInvalid.

The PackageInvalid lists every problem at once. Reading never writes anything.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

from uze.errors import PackageInvalid
from uze.package.config_files import validate_hooks, validate_mcp
from uze.package.model import Package
from uze.package.tree import read_tree
from uze.package.validate import (
    detect_layout,
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


def read_package(source: Path) -> Package:
    """Read and validate the package folder `source`.

    Every file is read byte for byte (`.git/` at the root is ignored). A plugin.json at the
    root wins; otherwise a Claude-native layout (`.claude-plugin/plugin.json`, `.mcp.json`,
    `hooks/hooks.json`) is read as the same resources. Raises PackageInvalid with one
    `location: message` line per problem, all of them at once.
    """
    root = _check_source(source)
    tree = read_tree(root)
    issues = list(tree.issues)
    layout = detect_layout(tree)
    manifest = validate_manifest(tree, layout, issues)
    instructions = validate_instructions(tree, issues)
    skills = validate_skills(tree, issues)
    agents = validate_agents(tree, issues)
    mcp_servers = validate_mcp(tree, layout, issues)
    hooks = validate_hooks(tree, layout, issues)
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
    )
