"""The generated tool server (adr/0083), run for real as a subprocess speaking MCP over stdio.

Each server runs as `python -I -S <script>`: without site-packages uze cannot be imported, so
these tests also show that nothing of uze is on the execution path. The package copy sits
where install puts it relative to the server (`../../packages/<name>`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.unit.package.conftest import write_tree
from uze.package import read_package
from uze.plan.tool_server import SERVER_FILE, render_server
from uze.plan.tool_server_script import OUTPUT_LIMIT

SCRIPT = "import json, sys; data = json.load(sys.stdin); "


def tool(name: str, code: str = "", **extra: object) -> dict[str, object]:
    """A tool in exec form running this interpreter on `code` (arguments on its stdin)."""
    schema = {"type": "object", "properties": {"text": {"type": "string"}}}
    return {"name": name, "description": f"The {name} tool.", "inputSchema": schema,
            "command": sys.executable, "args": ["-c", SCRIPT + code], **extra}


def server(root: Path, tools: list[dict[str, object]],
           files: Mapping[str, str] | None = None) -> Path:
    """The server of a package `kit` with `tools`, written as install lays it out."""
    package = write_tree(root / "packages" / "kit", {
        "plugin.json": {"name": "kit", "version": "2.0.0"}, "tools.json": {"tools": tools},
        **(files or {})})
    for rel in (files or {}):
        (package / rel).chmod(0o755)
    path = root / "tools" / "kit" / SERVER_FILE
    path.parent.mkdir(parents=True)
    path.write_bytes(render_server(read_package(package), "../../packages/kit"))
    path.chmod(0o755)
    return path


def talk(path: Path, *messages: object, timeout: float = 30) -> list[dict[str, Any]]:
    """Send each message as one line; the server's answers, one per line."""
    lines = "".join(m if isinstance(m, str) else json.dumps(m) + "\n" for m in messages)
    done = subprocess.run([sys.executable, "-I", "-S", str(path)], input=lines.encode(),
                          capture_output=True, timeout=timeout, check=False, cwd=path.parent)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.decode().splitlines()]


def request(number: int, method: str, params: object = None) -> dict[str, object]:
    found: dict[str, object] = {"jsonrpc": "2.0", "id": number, "method": method}
    return found if params is None else {**found, "params": params}


def call(name: str, arguments: object, number: int = 1) -> dict[str, object]:
    return request(number, "tools/call", {"name": name, "arguments": arguments})


def test_initialize_and_list_answer_the_protocol_with_each_tool_as_declared(
        tmp_path: Path) -> None:
    path = server(tmp_path, [tool("echo", "print(data)"), tool("other", "")])
    init = request(1, "initialize", {"protocolVersion": "2025-03-26", "capabilities": {},
                                     "clientInfo": {"name": "t", "version": "1"}})
    answers = talk(path, init, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                   request(2, "tools/list"), request(3, "ping"))
    assert answers == [
        {"jsonrpc": "2.0", "id": 1, "result": {
            "protocolVersion": "2025-03-26", "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "kit-tools", "version": "2.0.0"}}},
        {"jsonrpc": "2.0", "id": 2, "result": {"tools": [
            {"name": name, "description": f"The {name} tool.", "inputSchema": {
                "type": "object", "properties": {"text": {"type": "string"}}}}
            for name in ("echo", "other")]}},
        {"jsonrpc": "2.0", "id": 3, "result": {}},
    ]


def test_initialize_offers_its_own_newest_version_for_one_it_does_not_speak(
        tmp_path: Path) -> None:
    path = server(tmp_path, [tool("echo")])
    (answer,) = talk(path, request(1, "initialize", {"protocolVersion": "1999-01-01"}))
    assert answer["result"]["protocolVersion"] == "2025-06-18"


def test_a_call_passes_the_arguments_as_json_on_stdin_and_returns_stdout(
        tmp_path: Path) -> None:
    code = "sys.stdout.write('seen ' + json.dumps(data, sort_keys=True))"
    path = server(tmp_path, [tool("echo", code)])
    (answer,) = talk(path, call("echo", {"text": "héllo", "n": [1, 2]}))
    assert answer == {"jsonrpc": "2.0", "id": 1, "result": {
        "content": [{"type": "text", "text": 'seen {"n": [1, 2], "text": "h\\u00e9llo"}'}],
        "isError": False}}


def test_a_shell_form_command_finds_the_package_copy_through_plugin_root(
        tmp_path: Path) -> None:
    script = "#!/bin/sh\nprintf 'root=%s input=' \"$PLUGIN_ROOT\"\ncat\n"
    path = server(tmp_path, [{"name": "sh", "description": "d", "inputSchema": {
        "type": "object"}, "command": "${PLUGIN_ROOT}/bin/run.sh --flag"}],
        {"bin/run.sh": script})
    (answer,) = talk(path, call("sh", {}))
    root = os.path.normpath(tmp_path / "packages" / "kit")
    assert answer["result"] == {"content": [{"type": "text", "text": f"root={root} input={{}}"}],
                                "isError": False}


def test_a_failing_command_is_a_tool_error_with_its_status_and_stderr(tmp_path: Path) -> None:
    path = server(tmp_path, [tool("bad", "sys.stderr.write('no such file'); sys.exit(4)")])
    (answer,) = talk(path, call("bad", {}))
    assert answer["result"] == {"content": [{"type": "text", "text":
                                             "tool bad failed with exit status 4: no such file"}],
                                "isError": True}


def test_a_command_that_cannot_start_is_a_tool_error(tmp_path: Path) -> None:
    path = server(tmp_path, [{**tool("gone"), "command": str(tmp_path / "missing")}])
    (answer,) = talk(path, call("gone", {}))
    assert answer["result"]["isError"] is True
    assert answer["result"]["content"][0]["text"].startswith("tool gone could not start: ")


def test_a_command_past_its_timeout_is_killed_and_the_call_is_a_tool_error(
        tmp_path: Path) -> None:
    path = server(tmp_path, [tool("slow", "import time; time.sleep(60)", timeout=1)])
    started = time.monotonic()
    (answer,) = talk(path, call("slow", {}))
    assert time.monotonic() - started < 20
    assert answer["result"] == {"content": [{"type": "text", "text":
                                             "tool slow timed out after 1 s"}], "isError": True}


def test_output_past_the_limit_is_cut_off_as_a_tool_error(tmp_path: Path) -> None:
    code = "import itertools\nfor _ in itertools.count(): sys.stdout.write('x' * 65536)"
    path = server(tmp_path, [tool("loud", code, timeout=60)])
    started = time.monotonic()
    (answer,) = talk(path, call("loud", {}))
    assert time.monotonic() - started < 30
    assert answer["result"] == {"content": [{"type": "text", "text":
        f"tool loud wrote more than {OUTPUT_LIMIT} bytes; its output was cut off"}],
        "isError": True}


@pytest.mark.parametrize(("message", "code", "text"), [
    (call("nope", {}), -32602, "unknown tool: nope"),
    (call("echo", [1]), -32602, "tool echo: arguments must be an object"),
    (request(1, "tools/call", {"arguments": {}}), -32602, "tools/call needs the tool's name"),
    (request(1, "resources/list"), -32601, "method not found: resources/list"),
])
def test_a_request_that_is_not_mcp_is_a_json_rpc_error(
        tmp_path: Path, message: dict[str, object], code: int, text: str) -> None:
    path = server(tmp_path, [tool("echo", "print(data)")])
    (answer,) = talk(path, message)
    assert answer == {"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": text}}


def test_a_missing_required_argument_is_refused_before_the_command_runs(
        tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    required = {"type": "object", "properties": {"text": {"type": "string"}},
                "required": ["text"]}
    path = server(tmp_path, [{**tool("need", f"open({str(marker)!r}, 'w')"),
                              "inputSchema": required}])
    (answer,) = talk(path, call("need", {}))
    assert answer["error"] == {"code": -32602, "message":
                               "tool need: missing required argument text"}
    assert not marker.exists()


def test_lines_that_are_not_json_rpc_get_errors_and_the_server_keeps_serving(
        tmp_path: Path) -> None:
    path = server(tmp_path, [tool("echo", "print(data['text'])")])
    answers = talk(path, "not json\n", "\n", '"a string"\n', call("echo", {"text": "still"}))
    assert answers == [
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "not JSON"}},
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32600,
                                                 "message": "not a JSON-RPC request"}},
        {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "still\n"}],
                                               "isError": False}},
    ]


def test_the_generated_file_runs_by_itself_through_its_shebang(tmp_path: Path) -> None:
    path = server(tmp_path, [tool("echo", "print(data['text'])")])
    done = subprocess.run([str(path)], input=json.dumps(call("echo", {"text": "x"})) + "\n",
                          capture_output=True, text=True, timeout=30, check=True)
    assert json.loads(done.stdout)["result"]["content"][0]["text"] == "x\n"


def test_rendering_is_deterministic_and_embeds_no_absolute_path(tmp_path: Path) -> None:
    package = read_package(write_tree(tmp_path / "kit", {
        "plugin.json": {"name": "kit"},
        "tools.json": {"tools": [{"name": "t", "description": "d", "inputSchema": {
            "type": "object"}, "command": "${PLUGIN_ROOT}/run"}]}}))
    first = render_server(package, "../../packages/kit")
    assert first == render_server(package, "../../packages/kit")
    assert str(tmp_path).encode() not in first
