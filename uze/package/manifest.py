"""The JSON files at a package's trust boundary, plugin.json and mcp.json, as msgspec Structs.

uze reads with these (ADR 0017). msgspec stops at the first problem; when it finds one, the
pydantic twins in `uze.package.problems` list every problem in uze's wording. The rules that
are more than a type (names, the transport) are functions here that both call.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Annotated, Any, Final, Literal

import msgspec

from uze.package.names import MAX_MCP_NAME_CHARS, MAX_NAME_CHARS, name_problem, version_problem

STDIO_KEYS: Final = frozenset({"command", "args", "env", "cwd"})
REMOTE_KEYS: Final = frozenset({"url", "type", "headers"})

NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]


class Strict(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A package value: immutable, every key known. Read with `convert.convert(raw, Kind, ...)`."""

    @classmethod
    def given_problem(cls, raw: object) -> str | None:
        """A rule only the raw value shows (which keys it gives), checked before converting."""
        return None


def check(problem: str | None) -> None:
    """Raise the rule's message, which msgspec reports as the value's validation error."""
    if problem is not None:
        raise ValueError(problem)


def transport_problem(command: object, url: object, given: Collection[str] | None) -> str | None:
    """Why a server's transport is wrong: it needs exactly one of `command` or `url`, and
    (when the keys `given` are known) no key of the other kind."""
    if (command is None) == (url is None):
        return "set exactly one of `command` (a local stdio server) or `url` (a remote server)"
    if given is None:
        return None
    if command is not None:
        stray, kind = REMOTE_KEYS.intersection(given), "remote (url)"
    else:
        stray, kind = STDIO_KEYS.intersection(given), "stdio (command)"
    return f"{', '.join(sorted(stray))} only apply to a {kind} server" if stray else None


class Manifest(Strict, frozen=True, kw_only=True):
    """plugin.json: the package identity plus the keys Claude and Codex plugin manifests carry.

    Only `name` is required. Keys uze does not interpret are accepted loosely (Any) so that
    an existing Claude or Codex plugin reads as a package; any other key is an error.
    `extensions.uze` is free-form here and parsed elsewhere.
    """

    name: str
    version: str = "0.0.0"
    description: str | None = None
    author: Any = None
    homepage: Any = None
    repository: Any = None
    license: Any = None
    keywords: Any = None
    display_name: Any = msgspec.field(default=None, name="displayName")
    schema_url: Any = msgspec.field(default=None, name="$schema")
    extensions: dict[str, Any] | None = None
    # Claude component path keys: where Claude looks for components besides the defaults.
    commands: Any = None
    agents: Any = None
    skills: Any = None
    hooks: Any = None
    mcp_servers: Any = msgspec.field(default=None, name="mcpServers")
    output_styles: Any = msgspec.field(default=None, name="outputStyles")
    lsp_servers: Any = msgspec.field(default=None, name="lspServers")
    # Codex-only keys: app connectors and marketplace presentation.
    apps: Any = None
    interface: Any = None

    def __post_init__(self) -> None:
        check(name_problem(self.name, MAX_NAME_CHARS))
        check(version_problem(self.version))


class McpServer(Strict, frozen=True, kw_only=True):
    """One MCP server: a local stdio `command` or a remote `url`, never both.

    A key of the other kind is an error even when it holds its default; a Struct cannot see
    which keys were given, so that is checked on the raw value (`given_problem`).
    """

    name: str
    command: NonEmpty | None = None
    args: list[str] = []
    env: dict[str, str] = {}
    cwd: str | None = None
    url: NonEmpty | None = None
    type: Literal["http", "sse"] | None = None
    headers: dict[str, str] = {}
    enabled: bool = True

    @classmethod
    def given_problem(cls, raw: object) -> str | None:
        if not isinstance(raw, dict):
            return None
        return transport_problem(raw.get("command"), raw.get("url"), raw)

    def __post_init__(self) -> None:
        check(name_problem(self.name, MAX_MCP_NAME_CHARS))
        check(transport_problem(self.command, self.url, None))

    @property
    def is_remote(self) -> bool:
        """Whether the server is reached over the network (`url`) rather than started locally."""
        return self.url is not None
