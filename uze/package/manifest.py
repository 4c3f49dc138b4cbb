"""The JSON files at a package's trust boundary, plugin.json and mcp.json, as msgspec Structs.

uze reads with these, and only these (ADR 0038). msgspec stops at the first problem; when it
finds one, `uze.package.problems` walks the same Struct's fields and lists every problem in
uze's wording. The rules that are more than a type are the Struct's `rules` (one field each)
and `given_problem` (the whole value), which both the Struct and the walk apply.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Annotated, Any, ClassVar, Final, Literal

import msgspec

from uze.package.names import MAX_MCP_NAME_CHARS, MAX_NAME_CHARS, name_problem, version_problem

STDIO_KEYS: Final = frozenset({"command", "args", "env", "cwd"})
REMOTE_KEYS: Final = frozenset({"url", "type", "headers"})

NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]


class Strict(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A package value: immutable, every key known. Read with `convert.convert(raw, Kind, ...)`.

    `rules` are the rules on one field beyond its type, by field name (applied to a value that
    is not None); `given_problem` is a rule on the whole value that its raw keys show.
    """

    rules: ClassVar[Mapping[str, Callable[[Any], str | None]]] = {}

    @classmethod
    def given_problem(cls, raw: object) -> str | None:
        """A rule only the raw value shows (which keys it gives), checked before converting."""
        return None

    def __post_init__(self) -> None:
        for field, rule in self.rules.items():
            value = getattr(self, field)
            if value is not None:
                check(rule(value))


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
    user_config: Any = msgspec.field(default=None, name="userConfig")  # uze.package.settings
    # Codex-only keys: app connectors and marketplace presentation.
    apps: Any = None
    interface: Any = None

    rules: ClassVar[Mapping[str, Callable[[Any], str | None]]] = {
        "name": lambda name: name_problem(name, MAX_NAME_CHARS), "version": version_problem}


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
    # Codex's own keys of a server a Codex plugin publishes (`oauth_resource`,
    # `tool_timeout_sec`, ...): written into Codex's entry as given (uze.package.servers).
    codex_keys: dict[str, Any] = {}
    # The settings this server reads from a variable (`api_key from $API_KEY`), where a
    # `${user_config.KEY}` was replaced for delivery (uze.package.settings.ready).
    settings: tuple[str, ...] = ()

    rules: ClassVar[Mapping[str, Callable[[Any], str | None]]] = {
        "name": lambda name: name_problem(name, MAX_MCP_NAME_CHARS)}

    @classmethod
    def given_problem(cls, raw: object) -> str | None:
        if not isinstance(raw, dict):
            return None
        for own in ("codex_keys", "settings"):
            if own in raw:
                return f"{own}: unknown key"
        return transport_problem(raw.get("command"), raw.get("url"), raw)

    def __post_init__(self) -> None:
        super().__post_init__()
        check(transport_problem(self.command, self.url, None))

    @property
    def is_remote(self) -> bool:
        """Whether the server is reached over the network (`url`) rather than started locally."""
        return self.url is not None
