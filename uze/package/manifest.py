"""Pydantic models for the JSON files at a package's trust boundary: plugin.json and mcp.json."""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from uze.package.names import McpServerName, PackageName

STDIO_KEYS: Final = frozenset({"command", "args", "env", "cwd"})
REMOTE_KEYS: Final = frozenset({"url", "type", "headers"})


class Manifest(BaseModel):
    """plugin.json: the package identity plus the keys Claude and Codex plugin manifests carry.

    Only `name` is required. Keys uze does not interpret are accepted loosely (Any) so that
    an existing Claude or Codex plugin reads as a package; any other key is an error.
    `extensions.uze` is free-form here and parsed elsewhere.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    name: PackageName
    version: str = "0.0.0"
    description: str | None = None
    author: Any = None
    homepage: Any = None
    repository: Any = None
    license: Any = None
    keywords: Any = None
    display_name: Any = Field(default=None, alias="displayName")
    schema_url: Any = Field(default=None, alias="$schema")
    extensions: dict[str, Any] | None = None
    # Claude component path keys: where Claude looks for components besides the defaults.
    commands: Any = None
    agents: Any = None
    skills: Any = None
    hooks: Any = None
    mcp_servers: Any = Field(default=None, alias="mcpServers")
    output_styles: Any = Field(default=None, alias="outputStyles")
    lsp_servers: Any = Field(default=None, alias="lspServers")
    # Codex-only keys: app connectors and marketplace presentation.
    apps: Any = None
    interface: Any = None


class McpServer(BaseModel):
    """One MCP server: a local stdio `command` or a remote `url`, never both."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

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
    def _check_transport(self) -> McpServer:
        if (self.command is None) == (self.url is None):
            raise ValueError(
                "set exactly one of `command` (a local stdio server) or `url` (a remote server)"
            )
        if self.command is not None:
            stray, kind = REMOTE_KEYS & self.model_fields_set, "remote (url)"
        else:
            stray, kind = STDIO_KEYS & self.model_fields_set, "stdio (command)"
        if stray:
            keys = ", ".join(sorted(stray))
            raise ValueError(f"{keys} only apply to a {kind} server")
        return self

    @property
    def is_remote(self) -> bool:
        """Whether the server is reached over the network (`url`) rather than started locally."""
        return self.url is not None
