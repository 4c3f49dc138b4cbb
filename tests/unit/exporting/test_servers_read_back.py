"""A server written in a harness's dialect reads back as the portable server it came from
(ADR 0095): export's reader of each harness's MCP config is the inverse of install's writer,
for every harness export reads servers from."""

from __future__ import annotations

import msgspec
import pytest

from uze.exporting.harness import readers
from uze.harnesses import REGISTRY
from uze.package.manifest import McpServer
from uze.package.servers import Dialect, read_servers

SERVERS = (
    McpServer(name="db", command="db-mcp", args=["--stdio", "--level", "${LEVEL}"],
              env={"DB_TOKEN": "${DB_TOKEN}", "MODE": "fast"}),
    McpServer(name="web", url="https://web.example/mcp", type="http",
              headers={"Authorization": "Bearer ${WEB_TOKEN}"}),
    McpServer(name="bare", command="bare-mcp"),
)
READ_BACK = ("claude_code", "codex", "gemini_cli", "opencode")


def _dialect(harness: str) -> Dialect:
    target = REGISTRY[harness].mcp
    assert target is not None
    found = readers(REGISTRY[harness]).servers
    if found is None:
        assert target.portable is not None, f"{harness}: no reader of its MCP config"
        found = Dialect(translate=target.portable)
    return found


@pytest.mark.parametrize("harness", READ_BACK)
@pytest.mark.parametrize("server", SERVERS, ids=lambda server: server.name)
def test_a_server_written_for_a_harness_reads_back_as_it_was(
        harness: str, server: McpServer) -> None:
    target = REGISTRY[harness].mcp
    assert target is not None
    written = target.dialect(server).value
    assert written is not None
    warnings: list[str] = []
    (read,) = read_servers({server.name: written}, "config", ["mcpServers"], _dialect(harness),
                           warnings)
    assert warnings == []
    assert _http_default(read) == _http_default(server)


def _http_default(server: McpServer) -> McpServer:
    """A remote server without `type` is streamable HTTP (`uze.harnesses.mcp.remote_kind`):
    Codex and OpenCode write no type for it."""
    return msgspec.structs.replace(server, type=server.type or "http") if server.url else server
