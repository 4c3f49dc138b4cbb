"""Every problem in an invalid package file, in uze's wording: the pydantic twins of the Structs.

uze reads plugin.json, mcp.json and hooks.json with the msgspec Structs of `manifest.py` and
`hooks.py`, which stop at the first problem. When they find one, `convert.convert` imports this
module and validates the same value with its twin here, which reports every problem at once
(ADR 0017). A twin has its Struct's keys, types and defaults, and calls the same rule functions;
`tests/property/test_package_twins.py` checks that each pair accepts exactly the same values.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any, Final, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from uze.package.hooks import (
    DEFAULT_TIMEOUT,
    MAX_TIMEOUT,
    HookEffect,
    HookGroup,
    HookHandler,
    matcher_problem,
    timeout_problem,
)
from uze.package.issues import issue, key_path
from uze.package.manifest import Manifest, McpServer, check, transport_problem
from uze.package.names import MAX_MCP_NAME_CHARS, MAX_NAME_CHARS, name_problem, version_problem

_MESSAGES: Final = {
    "extra_forbidden": "unknown key",
    "missing": "required key missing",
    "too_short": "must not be empty",
    "string_too_short": "must not be empty",
    "string_type": "must be a string",
    "bool_type": "must be true or false",
    "int_type": "must be a whole number",
    "list_type": "must be a list",
    "dict_type": "must be a JSON object",
    "model_type": "must be a JSON object",
    "model_attributes_type": "must be a JSON object",
}


def _rule(problem: Callable[[str], str | None]) -> AfterValidator:
    def validate(value: str) -> str:
        check(problem(value))
        return value

    return AfterValidator(validate)


PackageName = Annotated[str, _rule(lambda name: name_problem(name, MAX_NAME_CHARS))]
McpServerName = Annotated[str, _rule(lambda name: name_problem(name, MAX_MCP_NAME_CHARS))]
PackageVersion = Annotated[str, _rule(version_problem)]
Matcher = Annotated[str, _rule(matcher_problem)]


class _Twin(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class ManifestTwin(_Twin):
    """plugin.json (`manifest.Manifest`)."""

    name: PackageName
    version: PackageVersion = "0.0.0"
    description: str | None = None
    author: Any = None
    homepage: Any = None
    repository: Any = None
    license: Any = None
    keywords: Any = None
    display_name: Any = Field(default=None, alias="displayName")
    schema_url: Any = Field(default=None, alias="$schema")
    extensions: dict[str, Any] | None = None
    commands: Any = None
    agents: Any = None
    skills: Any = None
    hooks: Any = None
    mcp_servers: Any = Field(default=None, alias="mcpServers")
    output_styles: Any = Field(default=None, alias="outputStyles")
    lsp_servers: Any = Field(default=None, alias="lspServers")
    apps: Any = None
    interface: Any = None


class McpServerTwin(_Twin):
    """One server of mcp.json (`manifest.McpServer`), its name filled from its key."""

    name: McpServerName
    command: str | None = Field(default=None, min_length=1)
    args: list[str] = []
    env: dict[str, str] = {}
    cwd: str | None = None
    url: str | None = Field(default=None, min_length=1)
    type: Literal["http", "sse"] | None = None
    headers: dict[str, str] = {}
    enabled: bool = True

    @model_validator(mode="after")
    def _check_transport(self) -> McpServerTwin:
        check(transport_problem(self.command, self.url, self.model_fields_set))
        return self


class HookHandlerTwin(_Twin):
    """One handler of a hook group (`hooks.HookHandler`)."""

    type: Literal["command"]
    command: str = Field(min_length=1)
    args: list[str] | None = None
    timeout: int = Field(default=DEFAULT_TIMEOUT, ge=1, le=MAX_TIMEOUT)


class HookGroupTwin(_Twin):
    """One group of hooks.json (`hooks.HookGroup`)."""

    id: str | None = None
    matcher: Matcher | None = None
    effect: HookEffect = "observe"
    hooks: list[HookHandlerTwin] = Field(min_length=1)

    @model_validator(mode="after")
    def _check_total_timeout(self) -> HookGroupTwin:
        check(timeout_problem(handler.timeout for handler in self.hooks))
        return self


TWINS: Final[dict[type, type[_Twin]]] = {
    Manifest: ManifestTwin,
    McpServer: McpServerTwin,
    HookHandler: HookHandlerTwin,
    HookGroup: HookGroupTwin,
}


def problems(
    kind: type, raw: object, location: str, prefix: Sequence[str | int] = (), *,
    own_key: str | None = None,
) -> list[str]:
    """Every problem the twin of `kind` finds in `raw`, as located issue lines ([] if none)."""
    try:
        TWINS[kind].model_validate(raw)
    except ValidationError as error:
        return pydantic_issues(error, location, prefix, own_key=own_key)
    return []


def pydantic_issues(
    error: ValidationError,
    location: str,
    prefix: Sequence[str | int] = (),
    *,
    own_key: str | None = None,
) -> list[str]:
    """Translate every pydantic error into a located issue line (no raw pydantic dumps).

    `prefix` is the key path of the validated value inside its file. An error on `own_key`
    (a field filled from the item's key, such as a server's name) is reported at the prefix.
    """
    lines: list[str] = []
    for detail in error.errors(include_url=False):
        loc = list(detail["loc"])
        if own_key is not None and loc == [own_key]:
            loc = []
        message = _MESSAGES.get(detail["type"], detail["msg"])
        message = message.removeprefix("Value error, ").replace("Input should be", "must be")
        for line in message.splitlines():
            lines.append(issue(location, key_path([*prefix, *loc]), line))
    return lines
