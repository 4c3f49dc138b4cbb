"""A tiny MCP server for the conformance suite: stdio (run as a script) or streamable HTTP.

One tool, `probe_echo`. It answers just enough of MCP for a harness's health check to report
the server connected: `initialize`, `tools/list`, `tools/call`, empty prompt/resource lists and
`ping`; notifications get no answer. The HTTP server binds 127.0.0.1 only, answers at most
`max_requests` requests and is stopped by its owner (a fixture), so it never outlives a test.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOOL = {
    "name": "probe_echo",
    "description": "Echo the arguments back.",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
}
EMPTY: dict[str, dict[str, list[object]]] = {
    "prompts/list": {"prompts": []},
    "resources/list": {"resources": []},
    "resources/templates/list": {"resourceTemplates": []},
    "ping": {},
}


def answer(request: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON-RPC response to one message, or None for a notification."""
    if "id" not in request:
        return None
    method, params = request.get("method"), request.get("params") or {}
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request["id"]}
    if method == "initialize":
        reply["result"] = {
            "protocolVersion": params.get("protocolVersion", "2025-03-26"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "uze-conformance-probe", "version": "0"},
        }
    elif method == "tools/list":
        reply["result"] = {"tools": [TOOL]}
    elif method == "tools/call":
        text = json.dumps(params.get("arguments") or {})
        reply["result"] = {"content": [{"type": "text", "text": text}]}
    elif method in EMPTY:
        reply["result"] = EMPTY[method]
    else:
        reply["error"] = {"code": -32601, "message": f"method not found: {method}"}
    return reply


def serve_stdio() -> None:
    """Answer JSON-RPC lines on stdin until it closes."""
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = answer(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


class _Handler(BaseHTTPRequestHandler):
    server: _ProbeServer

    def log_message(self, *_args: object) -> None:  # keep pytest output clean
        pass

    def do_POST(self) -> None:
        if not self.server.count_request():
            self.send_error(503)
            return
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        messages = body if isinstance(body, list) else [body]
        replies = [r for r in map(answer, messages) if r is not None]
        if not replies:
            self.send_response(202)
            self.end_headers()
            return
        data = json.dumps(replies if isinstance(body, list) else replies[0]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # no server-initiated stream, no OAuth metadata
        self.server.count_request()
        self.send_error(405 if self.path.startswith("/mcp") else 404)

    do_DELETE = do_GET


class _ProbeServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, max_requests: int) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.remaining = max_requests
        self.lock = threading.Lock()

    def count_request(self) -> bool:
        with self.lock:
            self.remaining -= 1
            return self.remaining >= 0


@contextmanager
def http_server(max_requests: int = 500) -> Iterator[str]:
    """A streamable-HTTP MCP server on loopback for the `with` block; yields its /mcp URL."""
    server = _ProbeServer(max_requests)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


if __name__ == "__main__":
    serve_stdio()
