"""The marketplace catalogs over a folder of packed packages (ADR 0097). Pure.

`OUT/.claude-plugin/marketplace.json` (Claude Code's) lists each package's Claude Code plugin
folder as a relative source (`./<package>/<claude harness>`); `OUT/.agents/plugins/
marketplace.json` (Codex's, as codex 0.171.0 reads it: `source: {source: local, path}` with
a `./` path, a `policy`, a `category`) lists each package's Codex plugin folder. Both are read
back by uze's own reader (`uze.sources.catalog`) to the same plugins. Claude Code requires an
`owner`: the marketplace's name is its owner's. Each entry carries the package's
description and version; nothing depends on the order the packages were found in.
"""

from __future__ import annotations

from typing import Any, Final

from uze.package import Package
from uze.packing.files import PackedFile, json_bytes
from uze.sources.catalog import CATALOGS

CLAUDE_CATALOG, CODEX_CATALOG = CATALOGS
CODEX_POLICY: Final = {"installation": "AVAILABLE", "authentication": "ON_INSTALL"}
CATEGORY: Final = "Productivity"


def _describe(package: Package) -> dict[str, Any]:
    found: dict[str, Any] = {"name": package.name, "version": package.version}
    if package.manifest.description:
        found["description"] = package.manifest.description
    return found


def catalogs(name: str, packages: list[Package], claude: str, codex: str) -> list[PackedFile]:
    """Both catalogs named `name` for `packages`, each packed into `OUT/<package name>/`, whose
    Claude Code plugin is the folder `claude` and Codex plugin the folder `codex` inside it."""
    ordered = sorted(packages, key=lambda package: package.name)
    claude_plugins = [{**_describe(p), "source": f"./{p.name}/{claude}"} for p in ordered]
    codex_plugins = [{**_describe(p), "source": {"source": "local", "path": f"./{p.name}/{codex}"},
                      "policy": dict(CODEX_POLICY), "category": CATEGORY} for p in ordered]
    return [
        PackedFile(CLAUDE_CATALOG, json_bytes(
            {"name": name, "owner": {"name": name}, "plugins": claude_plugins})),
        PackedFile(CODEX_CATALOG, json_bytes(
            {"name": name, "interface": {"displayName": name}, "plugins": codex_plugins})),
    ]
