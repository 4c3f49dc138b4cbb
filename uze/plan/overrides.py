"""Author overrides from plugin.json `extensions.uze.routes`.

    {"extensions": {"uze": {"routes": {
        "<harness id>": {"skill.invoke": "required", "agent": "optional"}}}}}

`required`: refuse to install for that harness unless the route is native. `optional`: a
degraded or unsupported route is expected and says so instead of reading as a problem.
Keys are a resource kind (`instructions`, `skill`, `agent`, `mcp`, `hook`) or `skill.invoke`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import msgspec

from uze.errors import PackageInvalid
from uze.package import Package

KEYS: Final = ("instructions", "skill", "skill.invoke", "command", "agent", "mcp", "hook")
LEVELS: Final = ("required", "optional")


class Overrides(msgspec.Struct, frozen=True):
    """harness -> key -> level."""

    routes: Mapping[str, Mapping[str, str]]

    def level(self, harness: str, kind: str, feature: str) -> str | None:
        """The author's level for this projection: the feature key wins over the kind key."""
        block = self.routes.get(harness, {})
        if feature.startswith("invoke.") and f"{kind}.invoke" in block:
            return block[f"{kind}.invoke"]
        return block.get(kind)


def read_overrides(package: Package, harness_ids: tuple[str, ...]) -> Overrides:
    """Parse and check `extensions.uze.routes`; every problem is reported at once."""
    extensions = package.manifest.extensions or {}
    uze = extensions.get("uze", {}) if isinstance(extensions, Mapping) else {}
    routes = uze.get("routes", {}) if isinstance(uze, Mapping) else None
    issues: list[str] = []
    if not isinstance(routes, Mapping):
        issues.append("plugin.json: extensions.uze.routes: must be an object of harness ids")
        routes = {}
    for harness, block in routes.items():
        where = f"plugin.json: extensions.uze.routes.{harness}"
        if harness not in harness_ids:
            issues.append(f"{where}: unknown harness; use one of {', '.join(harness_ids)}")
        elif not isinstance(block, Mapping):
            issues.append(f"{where}: must map {', '.join(KEYS)} to required or optional")
        else:
            issues += [f"{where}.{key}: unknown key; use one of {', '.join(KEYS)}"
                       for key in block if key not in KEYS]
            issues += [f"{where}.{key}: {value!r} is not required or optional"
                       for key, value in block.items() if key in KEYS and value not in LEVELS]
    if issues:
        raise PackageInvalid(package.root, issues)
    return Overrides({h: dict(b) for h, b in routes.items()})
