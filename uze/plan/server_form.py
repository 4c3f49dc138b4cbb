"""An MCP server entry of a harness's config in its portable form: what `uze export` writes for
it (ADR 0095) and what adoption compares (ADR 0096). Pure.

The entry is read back by the reader of that harness's published servers (Claude Code: its
plugins' `.mcp.json`; Codex and Gemini CLI: their own package formats), else by the inverse of
its dialect its data names (`McpTarget.portable`: OpenCode); keys at their defaults (`args: []`,
`env: {}`, `headers: {}`, `enabled: true`) are left out, and every secret value becomes a
`${VARIABLE}` reference (uze.plan.secrets). Two entries with one portable form start the same
server the same way, up to how a harness spells it and the secrets a package never carries.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import msgspec

from uze.harnesses.base import Harness
from uze.package.codex import CODEX_SERVERS
from uze.package.gemini import GEMINI_SERVERS
from uze.package.layout import CODEX_MANIFEST, GEMINI_MANIFEST
from uze.package.manifest import McpServer
from uze.package.servers import CLAUDE, Dialect, read_servers
from uze.plan.secrets import Secret, referenced

DEFAULTS: Final[Mapping[str, object]] = {"args": [], "env": {}, "headers": {}, "enabled": True}
# By the harness's own package format: the reader of that format's servers.
BY_ENVELOPE: Final[Mapping[str, Dialect]] = {
    CODEX_MANIFEST: CODEX_SERVERS,  # docs/package-format.md
    GEMINI_MANIFEST: GEMINI_SERVERS,
}


def server_dialect(harness: Harness) -> Dialect | None:
    """How `harness`'s MCP entries read back into portable servers (None: no reader yet)."""
    if harness.claude_plugins is not None:
        return CLAUDE
    manifest = harness.envelope.manifest if harness.envelope is not None else ""
    if manifest in BY_ENVELOPE:
        return BY_ENVELOPE[manifest]
    target = harness.mcp
    return Dialect(translate=target.portable) if target and target.portable is not None else None


def portable_body(server: McpServer) -> dict[str, object]:
    """The server's portable keys, each at its default left out (as a package writes it)."""
    return {key: value for key, value in msgspec.to_builtins(server).items()
            if key not in ("name", "codex_keys", "settings") and value is not None
            and DEFAULTS.get(key, ...) != value}


def with_references(server: McpServer) -> tuple[dict[str, object], list[Secret]]:
    """`portable_body` with every secret value as a `${VARIABLE}` reference, and one Secret
    per replacement."""
    return referenced(server.name, portable_body(server))


def portable_form(harness: Harness, name: str, value: object) -> dict[str, object] | None:
    """The entry `value` of server `name` in `harness`'s config in portable form (secrets as
    references); None when the harness has no reader or the value is not a server it reads."""
    dialect = server_dialect(harness)
    if dialect is None:
        return None
    servers = read_servers({name: value}, "", [], dialect, [])
    return with_references(servers[0])[0] if servers else None
