"""The package layer: read a plugin package folder and validate it. This layer never writes."""

from __future__ import annotations

from uze.package.model import (
    Agent,
    ClaudeHookGroup,
    ClaudeHooks,
    Command,
    HookGroup,
    HookHandler,
    HooksFile,
    InvokePolicy,
    Manifest,
    McpServer,
    Package,
    PackageFile,
    Skill,
)
from uze.package.reader import read_package
from uze.package.tree import MAX_FILE_BYTES, MAX_PACKAGE_BYTES

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_PACKAGE_BYTES",
    "Agent",
    "ClaudeHookGroup",
    "ClaudeHooks",
    "Command",
    "HookGroup",
    "HookHandler",
    "HooksFile",
    "InvokePolicy",
    "Manifest",
    "McpServer",
    "Package",
    "PackageFile",
    "Skill",
    "read_package",
]
