"""A scripted model server for the conformance suite: each harness's model API on loopback.

It answers just enough of four wire formats (real-harness-probes.md section 6 and 2.4, 3.3, 4.3,
5.3) for a real harness to run one turn against it:

* Claude Code: `HEAD /`, `POST /v1/messages` (SSE or JSON), `POST /v1/messages/count_tokens`;
* Codex: `POST /v1/responses` (SSE);
* OpenCode (OpenAI-compatible): `POST /v1/chat/completions` (SSE or JSON), `GET /v1/models`;
* Gemini CLI: `POST .../models/<m>:generateContent` (a request with a JSON schema gets a JSON
  answer built from that schema), `:streamGenerateContent?alt=sse`, `:countTokens`.

The script: when `command` is set and a request offers a shell tool but carries no tool result
yet, the answer is one call of that tool running `command`; every other request (a tool result
came back, or a side call without tools such as a title or a router) gets the text `STUB_DONE`.
A `judge` answers Claude Code's prompt and agent hook handlers with a verdict.
Every request is logged with its parsed body, so a test can assert on what reached the model.

Stdlib only; binds 127.0.0.1 only; refuses requests beyond `max_requests` and shuts itself down
after `lifetime` seconds, so a forgotten server cannot outlive its test by much.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

TEXT = "STUB_DONE"
MODEL = "stub-model"
# Native shell tools by wire format, and the argument carrying the command line.
SHELL_TOOLS = {"Bash": "command", "exec_command": "cmd", "shell_command": "command",
               "shell": "command", "bash": "command", "run_shell_command": "command"}
LOGGED_HEADERS = ("user-agent", "content-type", "anthropic-version", "x-goog-api-client")
SECRET_HEADERS = ("authorization", "x-api-key", "x-goog-api-key")


@dataclass(frozen=True)
class Request:
    """One logged request: method, path without query, query, some headers, parsed body."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    api: str  # claude | codex | openai | gemini | other

    def text(self) -> str:
        """The body as JSON text, for substring checks."""
        return json.dumps(self.body, ensure_ascii=False)


@dataclass
class Script:
    """What the server answers: one shell call running `command` (None: text only).

    `calls` come first: (marker, tool, input): a request that carries `marker` and no tool
    result yet gets one call of `tool` with `input`, offered or not (a subagent asked to use a
    tool it was not given, for instance).
    """

    command: str | None = None
    description: str = "scripted by the uze conformance model server"
    calls: tuple[tuple[str, str, dict[str, Any]], ...] = ()
    # For a request that already carries a tool result: the next call, from the request's
    # body (a wait on the agent a call started, say), or None for the text answer.
    follow: Callable[[str, dict[str, Any]], tuple[str, dict[str, Any]] | None] | None = None
    # Claude Code's model-run hook handlers: for a request asking for JSON, or one with no
    # tool result yet, `judge` gets the body as JSON text and returns a verdict (`{"ok": false,
    # "reason": ...}`) or None. A prompt handler's request asks for a JSON answer
    # (`output_config.format`): the verdict is the text. An agent handler's subagent is offered
    # StructuredOutput: the verdict is the input of that call.
    judge: Callable[[str], dict[str, Any] | None] | None = None


@dataclass
class ModelServer:
    """The running server: its base URL, the request log and the script to follow."""

    url: str
    script: Script = field(default_factory=Script)
    requests: list[Request] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def log(self, request: Request) -> None:
        with self.lock:
            self.requests.append(request)

    def logged(self, api: str | None = None) -> list[Request]:
        """A snapshot of the log, optionally only one API's model calls."""
        with self.lock:
            return [r for r in self.requests if api is None or r.api == api]

    def clear(self) -> None:
        with self.lock:
            self.requests.clear()


# --- what a request offers and carries -------------------------------------------------------
def tool_names(api: str, body: dict[str, Any]) -> list[str]:
    """The names of the tools a model request offers (Codex namespaces flattened)."""
    tools = body.get("tools") or []
    if api == "gemini":
        return [d.get("name", "") for t in tools for d in t.get("functionDeclarations") or []]
    if api == "openai":
        return [(t.get("function") or {}).get("name", "") for t in tools]
    names = []
    for tool in tools:
        names.append(tool.get("name", ""))
        names.extend(f"{tool.get('name')}.{sub.get('name')}" for sub in tool.get("tools") or [])
    return names


def has_tool_result(api: str, body: dict[str, Any]) -> bool:
    """Whether the conversation already carries the result of a tool call."""
    if api == "claude":
        return any(
            isinstance(block, dict) and block.get("type") == "tool_result"
            for message in body.get("messages") or []
            for block in (message.get("content")
                          if isinstance(message.get("content"), list) else [])
        )
    if api == "codex":
        return any(item.get("type", "").endswith("call_output") for item in body.get("input") or [])
    if api == "openai":
        return any(m.get("role") == "tool" for m in body.get("messages") or [])
    if api == "gemini":
        return any(
            "functionResponse" in part
            for content in body.get("contents") or []
            for part in content.get("parts") or []
        )
    return False


def verdict(api: str, body: dict[str, Any], script: Script) -> dict[str, Any] | None:
    """The judge's verdict on a Claude request that asks for a JSON answer, or that carries no
    tool result yet; None when there is no judge or it has none."""
    if script.judge is None or api != "claude":
        return None
    if not wants_json(body) and has_tool_result(api, body):  # a prompt handler's request
        return None  # carries the transcript; an agent handler's subagent asks once
    return script.judge(json.dumps(body, ensure_ascii=False))


def wants_json(body: dict[str, Any]) -> bool:
    """Whether a Claude request asks for a JSON answer (`output_config.format`)."""
    config = body.get("output_config")
    return isinstance(config, dict) and isinstance(config.get("format"), dict)


def planned_call(api: str, body: dict[str, Any],
                 script: Script) -> tuple[str, dict[str, Any]] | None:
    """(tool name, arguments) of the scripted call for this request, or None for text."""
    if has_tool_result(api, body):
        return script.follow(api, body) if script.follow is not None else None
    text = json.dumps(body, ensure_ascii=False)
    for marker, tool, arguments in script.calls:
        if marker in text:
            return tool, arguments
    if script.command is None:
        return None
    for name in tool_names(api, body):
        if name in SHELL_TOOLS:
            args = {SHELL_TOOLS[name]: script.command}
            if name != "exec_command":
                args["description"] = script.description
            return name, args
    return None


# --- answers per wire format -----------------------------------------------------------------
def sse(events: list[tuple[str | None, Any]]) -> bytes:
    """Server-sent events: `event:` line when named, one `data:` line each."""
    chunks = []
    for name, data in events:
        text = data if isinstance(data, str) else json.dumps(data)
        chunks.append((f"event: {name}\n" if name else "") + f"data: {text}\n\n")
    return "".join(chunks).encode()


def claude_answer(call: tuple[str, dict[str, Any]] | None, stream: bool,
                  text: str = TEXT) -> tuple[str, bytes]:
    usage = {"input_tokens": 1, "output_tokens": 1}
    if call is None:
        block: dict[str, Any] = {"type": "text", "text": text}
        start, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": text}
    else:
        block = {"type": "tool_use", "id": "toolu_stub_1", "name": call[0], "input": call[1]}
        start = {**block, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(call[1])}
    stop = "end_turn" if call is None else "tool_use"
    message = {"id": "msg_stub", "type": "message", "role": "assistant", "model": MODEL,
               "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage}
    if not stream:
        return "application/json", json.dumps(message).encode()
    return "text/event-stream", sse([
        ("message_start", {"type": "message_start",
                           "message": {**message, "content": [], "stop_reason": None}}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": start}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta",
                           "delta": {"stop_reason": stop, "stop_sequence": None},
                           "usage": {"output_tokens": 1}}),
        ("message_stop", {"type": "message_stop"}),
    ])


def codex_answer(call: tuple[str, dict[str, Any]] | None) -> tuple[str, bytes]:
    if call is None:
        item: dict[str, Any] = {"type": "message", "role": "assistant", "id": "msg_stub",
                                "content": [{"type": "output_text", "text": TEXT}]}
    else:
        namespace, _, name = call[0].rpartition(".")  # `multi_agent_v1.spawn_agent`
        item = {"type": "function_call", "id": "fc_stub", "call_id": "call_stub_1",
                "name": name, "arguments": json.dumps(call[1])}
        if namespace:
            item["namespace"] = namespace
    usage = {"input_tokens": 1, "input_tokens_details": None, "output_tokens": 1,
             "output_tokens_details": None, "total_tokens": 2}
    return "text/event-stream", sse([
        ("response.created", {"type": "response.created", "response": {"id": "resp_stub"}}),
        ("response.output_item.added", {"type": "response.output_item.added",
                                        "output_index": 0, "item": item}),
        ("response.output_item.done", {"type": "response.output_item.done",
                                       "output_index": 0, "item": item}),
        ("response.completed", {"type": "response.completed",
                                "response": {"id": "resp_stub", "usage": usage}}),
    ])


def openai_answer(call: tuple[str, dict[str, Any]] | None, stream: bool) -> tuple[str, bytes]:
    if call is None:
        message: dict[str, Any] = {"role": "assistant", "content": TEXT}
        finish = "stop"
    else:
        function = {"name": call[0], "arguments": json.dumps(call[1])}
        message = {"role": "assistant", "content": None,
                   "tool_calls": [{"id": "call_stub_1", "type": "function", "function": function}]}
        finish = "tool_calls"
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    head = {"id": "chatcmpl-stub", "created": int(time.time()), "model": MODEL}
    if not stream:
        choice = {"index": 0, "message": message, "finish_reason": finish}
        body = {**head, "object": "chat.completion", "choices": [choice], "usage": usage}
        return "application/json", json.dumps(body).encode()
    delta = dict(message)
    if call is not None:
        delta["tool_calls"] = [{"index": 0, **message["tool_calls"][0]}]
    chunk = {**head, "object": "chat.completion.chunk"}
    return "text/event-stream", sse([
        (None, {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}),
        (None, {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
                "usage": usage}),
        (None, "[DONE]"),
    ])


def from_schema(schema: Any) -> Any:
    """A small value that satisfies a JSON schema (routers and classifiers ask for one)."""
    if not isinstance(schema, dict):
        return None
    if "enum" in schema:
        options = schema["enum"]
        return "user" if "user" in options else options[0]  # the next speaker is the user
    kind = str(schema.get("type", "object")).lower()
    if kind == "object":
        props = schema.get("properties") or {}
        return {name: from_schema(sub) for name, sub in props.items()}
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)  # scores and counts start at 1
    return {"string": "stub", "boolean": False, "array": []}.get(kind)


def gemini_answer(
    call: tuple[str, dict[str, Any]] | None, body: dict[str, Any], stream: bool
) -> tuple[str, bytes]:
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if call is not None:
        part: dict[str, Any] = {"functionCall": {"name": call[0], "args": call[1]}}
    elif schema is not None:
        part = {"text": json.dumps(from_schema(schema))}
    else:
        part = {"text": TEXT}
    answer = {
        "candidates": [{"content": {"role": "model", "parts": [part]},
                        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1,
                          "totalTokenCount": 2},
        "modelVersion": MODEL,
    }
    if not stream:
        return "application/json", json.dumps(answer).encode()
    return "text/event-stream", sse([(None, answer)])


# --- the HTTP side -----------------------------------------------------------------------------
def api_of(path: str) -> str:
    if path.startswith("/v1/messages"):
        return "claude"
    if path.startswith("/v1/responses"):
        return "codex"
    if path.startswith("/v1/chat/completions"):
        return "openai"
    if ":generateContent" in path or ":streamGenerateContent" in path:
        return "gemini"
    return "other"


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, *_args: object) -> None:  # keep pytest output clean
        pass

    def _record(self, body: Any) -> Request:
        parts = urlsplit(self.path)
        headers = {k.lower(): v for k, v in self.headers.items()}
        kept = {k: v for k, v in headers.items() if k in LOGGED_HEADERS}
        kept.update({k: "<present>" for k in SECRET_HEADERS if k in headers})
        request = Request(self.command, parts.path, parse_qs(parts.query), kept, body,
                          api_of(parts.path))
        self.server.model.log(request)
        return request

    def _send(self, status: int, content_type: str = "application/json", data: bytes = b"") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def do_HEAD(self) -> None:
        self._record(None)
        self._send(200 if self.server.admit() else 503)

    def do_GET(self) -> None:
        request = self._record(None)
        if not self.server.admit():
            self._send(503)
        elif request.path.endswith("/models"):
            models = {"object": "list", "data": [{"id": MODEL, "object": "model"}],
                      "models": []}
            self._send(200, data=json.dumps(models).encode())
        else:
            self._send(404)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"<unparsed>": raw[:2000].decode("utf-8", "replace")}
        request = self._record(body)
        if not self.server.admit():
            self._send(503)
            return
        self._send(200, *self._answer(request))

    def _answer(self, request: Request) -> tuple[str, bytes]:
        body = request.body if isinstance(request.body, dict) else {}
        if request.path.endswith("/count_tokens"):
            return "application/json", json.dumps({"input_tokens": 1}).encode()
        if request.path.endswith(":countTokens"):
            return "application/json", json.dumps({"totalTokens": 1}).encode()
        script = self.server.model.script
        judged = verdict(request.api, body, script)  # asked once: a judge may count
        if judged is not None:
            stream = bool(body.get("stream"))
            if wants_json(body):
                return claude_answer(None, stream, json.dumps(judged))
            return claude_answer(("StructuredOutput", judged), stream)
        call = planned_call(request.api, body, script)
        if request.api == "claude":
            return claude_answer(call, bool(body.get("stream")))
        if request.api == "codex":
            return codex_answer(call)
        if request.api == "openai":
            return openai_answer(call, bool(body.get("stream")))
        if request.api == "gemini":
            return gemini_answer(call, body, ":streamGenerateContent" in request.path)
        return "application/json", b"{}"


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, model: ModelServer, max_requests: int) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.model = model
        self.remaining = max_requests
        self.count_lock = threading.Lock()

    def admit(self) -> bool:
        """Count one request; False once `max_requests` have been answered."""
        with self.count_lock:
            self.remaining -= 1
            return self.remaining >= 0


@contextmanager
def model_server(lifetime: float = 300, max_requests: int = 400) -> Iterator[ModelServer]:
    """A scripted model server on 127.0.0.1 for the `with` block (and at most `lifetime` s)."""
    model = ModelServer("")
    server = _Server(model, max_requests)
    model.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1})
    timer = threading.Timer(lifetime, server.shutdown)
    timer.daemon = True
    thread.start()
    timer.start()
    try:
        yield model
    finally:
        timer.cancel()
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


# --- the scripted user: a stdio MCP permission-prompt tool -------------------------------------
APPROVE_TOOL = {
    "name": "approve",
    "description": "The scripted user: approves every permission request and logs it.",
    "inputSchema": {"type": "object", "properties": {
        "tool_name": {"type": "string"}, "input": {"type": "object"},
        "tool_use_id": {"type": "string"}}},
}


def user_answer(message: dict[str, Any], log: str) -> dict[str, Any] | None:
    """The JSON-RPC answer of the scripted user to one message (None for a notification).

    A `tools/call` of `approve` is one question a harness asks its user ("may this tool run
    with this input?"): it is appended to `log` as one JSON line and answered `allow`.
    """
    if "id" not in message:
        return None
    method, params = message.get("method"), message.get("params") or {}
    result: dict[str, Any] = {}
    if method == "initialize":
        result = {"protocolVersion": params.get("protocolVersion", "2025-03-26"),
                  "capabilities": {"tools": {}},
                  "serverInfo": {"name": "uze-conformance-user", "version": "0"}}
    elif method == "tools/list":
        result = {"tools": [APPROVE_TOOL]}
    elif method == "tools/call":
        asked = params.get("arguments") or {}
        with Path(log).open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(asked) + "\n")
        decision = {"behavior": "allow", "updatedInput": asked.get("input") or {}}
        result = {"content": [{"type": "text", "text": json.dumps(decision)}]}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def serve_user(log: str) -> None:
    """Answer MCP JSON-RPC lines on stdin as the scripted user until stdin closes."""
    import sys

    for line in sys.stdin:
        if line.strip() and (reply := user_answer(json.loads(line), log)) is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    import sys

    serve_user(sys.argv[1])
