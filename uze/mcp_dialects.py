"""MCP server entries per harness: translate one portable server into the value a harness's
own config file holds, or say why it cannot be delivered. Pure (harnesses.md x.5).

`${PLUGIN_ROOT}` is already resolved by the caller. Environment values that are `${NAME}`
references stay references (passed by name); literal values are the package's own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

import msgspec

from uze.package import McpServer

_REF: Final = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_WHOLE_REF: Final = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")
_BEARER: Final = re.compile(r"^Bearer \$\{([A-Za-z_][A-Za-z0-9_]*)\}$")
_DEFAULTED: Final = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*):-([^}]*)\}")


class Translated(msgspec.Struct, frozen=True):
    """The entry value (None = not written), with what differs from the portable meaning."""

    value: dict[str, object] | None
    degraded: list[str] = msgspec.field(default_factory=list)
    unsupported: str = ""


Dialect = Callable[[McpServer], Translated]


def _strip_defaults(server: McpServer) -> tuple[McpServer, list[str]]:
    """The server with each `${NAME:-default}` (Claude Code's form) as `${NAME}`, and the
    `NAME ('default')` of each default dropped."""
    dropped: list[str] = []

    def plain(text: str) -> str:
        def one(match: re.Match[str]) -> str:
            dropped.append(f"{match.group(1)} ({match.group(2)!r})")
            return "${" + match.group(1) + "}"
        return _DEFAULTED.sub(one, text)

    stripped = msgspec.structs.replace(
        server, command=plain(server.command) if server.command else server.command,
        args=[plain(a) for a in server.args], env={k: plain(v) for k, v in server.env.items()},
        url=plain(server.url) if server.url else server.url,
        headers={k: plain(v) for k, v in server.headers.items()},
        cwd=plain(server.cwd) if server.cwd else server.cwd)
    return stripped, sorted(set(dropped))


def without_defaults(harness: str, dialect: Dialect) -> Dialect:
    """`dialect` for a harness that has no `${NAME:-default}`: the defaults are dropped and
    named in a degraded reason (the harness gets `${NAME}` in its own terms)."""
    def translate(server: McpServer) -> Translated:
        stripped, dropped = _strip_defaults(server)
        out = dialect(stripped)
        if dropped and out.value is not None:
            out.degraded.append(f"{harness} has no ${{VAR:-default}}: the default of "
                                f"{', '.join(dropped)} is dropped; set the variable")
        return out
    return translate


def _remote_kind(server: McpServer) -> str:
    return server.type or "http"


def _skip(reason: str) -> Translated:
    return Translated(None, unsupported=reason)


def _disabled(server: McpServer, harness: str) -> Translated | None:
    if server.enabled:
        return None
    return _skip(f"disabled in the package, and {harness} has no disabled state for a server: "
                 "not written")


def _drop_cwd(server: McpServer, harness: str, out: Translated) -> Translated:
    if server.cwd:
        out.degraded.append(f"{harness} has no working-directory key: cwd {server.cwd!r} dropped")
    return out


def claude(server: McpServer) -> Translated:
    """`.mcp.json` / `~/.claude.json` `mcpServers` (harnesses.md 1.5)."""
    if (skipped := _disabled(server, "Claude Code")) is not None:
        return skipped
    if server.url:
        return Translated({"type": _remote_kind(server), "url": server.url, **_headers(server)})
    value: dict[str, object] = {"command": server.command, "args": list(server.args)}
    if server.env:
        value["env"] = dict(server.env)
    return _drop_cwd(server, "Claude Code", Translated(value))


def _headers(server: McpServer) -> dict[str, object]:
    return {"headers": dict(server.headers)} if server.headers else {}


def _codex_env(server: McpServer) -> tuple[dict[str, object], str]:
    literal = {k: v for k, v in server.env.items() if not _REF.search(v)}
    forwarded = [m.group(1) for v in server.env.values() if (m := _WHOLE_REF.match(v))]
    templated = [k for k, v in server.env.items() if _REF.search(v) and not _WHOLE_REF.match(v)]
    out: dict[str, object] = {}
    if literal:
        out["env"] = literal
    if forwarded:
        out["env_vars"] = forwarded
    problem = (f"Codex cannot expand ${{...}} inside env values ({', '.join(templated)})"
               if templated else "")
    return out, problem


def _codex_remote(server: McpServer) -> Translated:
    if _remote_kind(server) == "sse":
        return _skip("Codex speaks stdio and streamable HTTP only, not SSE")
    value: dict[str, object] = {"url": server.url}
    plain, by_env = {}, {}
    for name, header in server.headers.items():
        if name.lower() == "authorization" and (m := _BEARER.match(header)):
            value["bearer_token_env_var"] = m.group(1)
        elif m := _WHOLE_REF.match(header):
            by_env[name] = m.group(1)
        elif _REF.search(header):
            return _skip(f"Codex cannot expand ${{...}} inside header {name!r}")
        else:
            plain[name] = header
    value |= ({"http_headers": plain} if plain else {}) | (
        {"env_http_headers": by_env} if by_env else {})
    return Translated(value)


def codex(server: McpServer) -> Translated:
    """`[mcp_servers.<name>]` in config.toml (harnesses.md 2.5)."""
    if server.url:
        out = _codex_remote(server)
    else:
        env, problem = _codex_env(server)
        if problem:
            return _skip(problem)
        value: dict[str, object] = {"command": server.command, "args": list(server.args), **env}
        if server.cwd:
            value["cwd"] = server.cwd
        out = Translated(value)
    if out.value is not None and not server.enabled:
        out.value["enabled"] = False
    return out


def _opencode_refs(text: str) -> str:
    return _REF.sub(lambda m: "{env:" + m.group(1) + "}", text)


def opencode(server: McpServer) -> Translated:
    """`mcp.<name>` in opencode.json: `type` local/remote, command as one array (3.5)."""
    if server.url:
        headers = {k: _opencode_refs(v) for k, v in server.headers.items()}
        url = _opencode_refs(server.url)  # OpenCode substitutes {env:NAME} anywhere in its config
        value: dict[str, object] = {"type": "remote", "url": url, "enabled": server.enabled}
        return Translated(value | ({"headers": headers} if headers else {}))
    value = {"type": "local", "command": [server.command, *server.args], "enabled": server.enabled}
    if server.env:
        value["environment"] = {k: _opencode_refs(v) for k, v in server.env.items()}
    return _drop_cwd(server, "OpenCode", Translated(value))


def gemini(server: McpServer) -> Translated:
    """`mcpServers` in settings.json: `httpUrl` for HTTP, `url` for SSE (4.5)."""
    if (skipped := _disabled(server, "Gemini CLI")) is not None:
        return skipped
    if server.url:
        key = "url" if _remote_kind(server) == "sse" else "httpUrl"
        return Translated({key: server.url, **_headers(server)})
    value: dict[str, object] = {"command": server.command, "args": list(server.args)}
    if server.env:
        value["env"] = dict(server.env)
    if server.cwd:
        value["cwd"] = server.cwd
    return Translated(value)


def _unverified_refs(server: McpServer, harness: str, out: Translated) -> Translated:
    texts = [*server.env.values(), *server.headers.values()]
    if any(_REF.search(text) for text in texts):
        out.degraded.append(f"{harness}'s expansion of ${{VAR}} in values is unverified")
    return out


def antigravity(server: McpServer) -> Translated:
    """`mcpServers` in mcp_config.json; `serverUrl` for remote, `disabled` flag (5.4)."""
    if server.url and _remote_kind(server) == "sse":
        return _skip("Antigravity's SSE support is undocumented; uze writes only streamable HTTP")
    if server.url:
        value: dict[str, object] = {"serverUrl": server.url, **_headers(server)}
    else:
        value = {"command": server.command, "args": list(server.args)}
        if server.env:
            value["env"] = dict(server.env)
    if not server.enabled:
        value["disabled"] = True
    out = _unverified_refs(server, "Antigravity", Translated(value))
    return _drop_cwd(server, "Antigravity", out)


def kimi(server: McpServer) -> Translated:
    """`mcpServers` in mcp.json; SSE as `transport: "sse"`; `enabled` flag (6.1)."""
    if server.url:
        value: dict[str, object] = {"url": server.url, **_headers(server)}
        if _remote_kind(server) == "sse":
            value["transport"] = "sse"
    else:
        value = {"command": server.command, "args": list(server.args)}
        if server.env:
            value["env"] = dict(server.env)
        if server.cwd:
            value["cwd"] = server.cwd
    if not server.enabled:
        value["enabled"] = False
    return _unverified_refs(server, "Kimi Code", Translated(value))
