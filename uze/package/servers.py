"""MCP servers as published for a harness: Claude's `.mcp.json` and manifest `mcpServers`, a
Codex plugin's `.mcp.json`, a Gemini CLI extension's `mcpServers`.

Read leniently about vocabulary (docs/package-format.md): a key uze does not carry is a
warning (in a Codex plugin, Codex's own keys are kept for Codex instead: `oauth_resource`,
`tool_timeout_sec`...), a name that breaks the rule is made valid, and a server that cannot be
read is skipped with a warning; `check --strict` refuses on any of them. The portable
`mcp.json` stays strict (uze.package.config_files). Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

import msgspec

from uze.package.convert import convert
from uze.package.issues import issue, key_path
from uze.package.layout import word_name
from uze.package.manifest import REMOTE_KEYS, STDIO_KEYS, McpServer
from uze.package.names import MAX_MCP_NAME_CHARS, name_problem

READ_KEYS: Final = STDIO_KEYS | REMOTE_KEYS | {"enabled"}


class Dialect(msgspec.Struct, frozen=True):
    """How one harness publishes servers: `translate` turns a body into the portable keys
    (and notes what it changed); `keep_unknown`: every other key is Codex's own, kept for Codex
    as written (else each is an unknown key, ignored)."""

    keep_unknown: bool = False
    translate: Callable[[dict[str, object], list[str]], dict[str, object]] | None = None


CLAUDE: Final = Dialect()


def read_servers(
    servers: object, location: str, prefix: list[str | int], dialect: Dialect,
    warnings: list[str],
) -> list[McpServer]:
    """The servers of the object `servers` (name -> body) found at `prefix` of `location`."""
    if not isinstance(servers, dict):
        warnings.append(issue(location, key_path(prefix), "must be a JSON object of servers by "
                              "name; ignored"))
        return []
    found = [_server(str(name), body, location, [*prefix, str(name)], dialect, warnings)
             for name, body in servers.items()]
    return [server for server in found if server is not None]


def _server(name: str, body: object, location: str, where: list[str | int], dialect: Dialect,
            warnings: list[str]) -> McpServer | None:
    at = issue(location, key_path(where))
    if not isinstance(body, dict):
        warnings.append(f"{at}: must be a JSON object; skipped")
        return None
    valid = _valid_name(name, at, warnings)
    if valid is None:
        return None
    notes: list[str] = []
    body = dialect.translate(dict(body), notes) if dialect.translate else dict(body)
    warnings += [f"{at}: {note}" for note in notes]
    if "command" in body and body.get("type") == "stdio":
        body.pop("type")
    extra = set(body) - READ_KEYS - {"name"}
    kept = {key: body[key] for key in sorted(extra)} if dialect.keep_unknown else {}
    for key in sorted(extra - set(kept)) + (["name"] if "name" in body else []):
        why = "unknown key; ignored" if key != "name" else "unknown key (the key above names it)"
        warnings.append(issue(location, key_path([*where, key]), why))
    read = {key: value for key, value in body.items() if key in READ_KEYS}
    found: list[str] = []
    server = convert({**read, "name": valid}, McpServer, location, found, where, own_key="name")
    if server is None:
        warnings += [f"{line}; the server is skipped" for line in found]
        return None
    return msgspec.structs.replace(server, codex_keys=kept) if kept else server


def _valid_name(name: str, at: str, warnings: list[str]) -> str | None:
    problem = name_problem(name, MAX_MCP_NAME_CHARS)
    if problem is None:
        return name
    slug = word_name(name)
    if slug is None or name_problem(slug, MAX_MCP_NAME_CHARS) is not None:
        warnings.append(f"{at}: {problem}; skipped")
        return None
    warnings.append(f"{at}: {problem}; installed as {slug!r}")
    return slug


def merged(groups: list[list[McpServer]], where: Mapping[int, str], warnings: list[str]
           ) -> tuple[McpServer, ...]:
    """The servers of each group in order, a second server of one name skipped with a warning
    (`where[i]` names group i's file); sorted by name."""
    found: dict[str, tuple[McpServer, str]] = {}
    for index, group in enumerate(groups):
        for server in group:
            if server.name in found:
                used = found[server.name][1]
                warnings.append(issue(where[index], f"mcpServers.{server.name}", "a server of "
                                      f"this name is already read from {used}; skipped"))
                continue
            found[server.name] = (server, where[index])
    return tuple(found[name][0] for name in sorted(found))
