"""What every harness's MCP dialect shares: the `Translated` result and the helpers each
`dialect` in `uze/harnesses/<id>.py` builds on (one portable server -> the value its config
file holds, or why it cannot be delivered). Pure (harnesses.md x.5).

`${PLUGIN_ROOT}` is already resolved by the caller. Environment values that are `${NAME}`
references stay references (passed by name); literal values are the package's own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

import msgspec

from uze.patterns import compile_later

if TYPE_CHECKING:
    from uze.package import McpServer


REF: Final = compile_later(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
WHOLE_REF: Final = compile_later(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")
BEARER: Final = compile_later(r"^Bearer \$\{([A-Za-z_][A-Za-z0-9_]*)\}$")
_DEFAULTED: Final = compile_later(r"\$\{([A-Za-z_][A-Za-z0-9_]*):-([^}]*)\}")


class Translated(msgspec.Struct, frozen=True):
    """The entry value (None = not written), with what differs from the portable meaning."""

    value: dict[str, object] | None
    degraded: list[str] = msgspec.field(default_factory=list)
    unsupported: str = ""


Dialect = Callable[["McpServer"], Translated]


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


def remote_kind(server: McpServer) -> str:
    return server.type or "http"


def skip(reason: str) -> Translated:
    return Translated(None, unsupported=reason)


def disabled(server: McpServer, harness: str) -> Translated | None:
    if server.enabled:
        return None
    return skip(f"disabled in the package, and {harness} has no disabled state for a server: "
                 "not written")


def drop_cwd(server: McpServer, harness: str, out: Translated) -> Translated:
    if server.cwd:
        out.degraded.append(f"{harness} has no working-directory key: cwd {server.cwd!r} dropped")
    return out


def headers_of(server: McpServer) -> dict[str, object]:
    return {"headers": dict(server.headers)} if server.headers else {}


def unverified_refs(server: McpServer, harness: str, out: Translated) -> Translated:
    texts = [*server.env.values(), *server.headers.values()]
    if any(REF.search(text) for text in texts):
        out.degraded.append(f"{harness}'s expansion of ${{VAR}} in values is unverified")
    return out
