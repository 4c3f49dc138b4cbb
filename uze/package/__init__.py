"""The package layer: read a plugin package folder and validate it. This layer never writes.

The names below load on first use (PEP 562), so importing one light module of the layer
(`uze.package.tree`, the file walk the re-install shortcut shares) does not load the reader,
its validators and YAML.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from uze.package.hidden import hidden_warnings
    from uze.package.model import (
        Agent,
        ClaudeHookGroup,
        ClaudeHooks,
        Command,
        HookGroup,
        HookHandler,
        HooksFile,
        Instructions,
        InvokePolicy,
        Manifest,
        McpServer,
        Package,
        PackageFile,
        Setting,
        Skill,
    )
    from uze.package.reader import read_package
    from uze.package.tree import MAX_FILE_BYTES, MAX_PACKAGE_BYTES

_HOMES: Final = {
    **dict.fromkeys(("Agent", "ClaudeHookGroup", "ClaudeHooks", "Command", "HookGroup",
                     "HookHandler", "HooksFile", "Instructions", "InvokePolicy", "Manifest",
                     "McpServer", "Package", "PackageFile", "Setting", "Skill"),
                    "uze.package.model"),
    "read_package": "uze.package.reader",
    "hidden_warnings": "uze.package.hidden",
    "MAX_FILE_BYTES": "uze.package.tree",
    "MAX_PACKAGE_BYTES": "uze.package.tree",
}

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
    "Instructions",
    "InvokePolicy",
    "Manifest",
    "McpServer",
    "Package",
    "PackageFile",
    "Setting",
    "Skill",
    "hidden_warnings",
    "read_package",
]


def __getattr__(name: str) -> Any:
    """Load a public name from the module that defines it."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'uze.package' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value
