"""The OpenCode hook bridge against the real opencode 1.18.33 and a scripted model (probes 5.3/5.4).

uze installs a package's hooks as one generated plugin, `uze-<package>.js`, that spawns the
generated wrappers. Here a loopback stub plays the model: it asks for one `bash` call, then
says STUB_DONE. What must show: a deny group blocks the call and the model gets the handler's
reason; a transform group's rewrite is what runs; PostToolUse, SessionStart and Stop observers
run; after uninstall the same call runs unguarded. The stub lives in this file on purpose
(no dependency on the shared model server).
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.lab import TIMEOUT, Lab, hook_log, require

pytestmark = pytest.mark.conformance


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    data = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "stub-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(data).encode() + b"\n\n"


def _answer(body: dict[str, Any], command: str) -> bytes:
    """One bash call running `command` while no tool result came back; then plain text."""
    offered = {t.get("function", {}).get("name") for t in body.get("tools") or []}
    answered = any(m.get("role") == "tool" for m in body.get("messages") or [])
    if "bash" in offered and not answered:
        call = {"index": 0, "id": "call_1", "type": "function",
                "function": {"name": "bash", "arguments": json.dumps({"command": command,
                                                                       "description": "probe"})}}
        return (_chunk({"role": "assistant", "tool_calls": [call]}) + _chunk({}, "tool_calls")
                + b"data: [DONE]\n\n")
    text = {"role": "assistant", "content": "STUB_DONE"}
    return _chunk(text) + _chunk({}, "stop") + b"data: [DONE]\n\n"


@contextmanager
def scripted_model(command: str) -> Iterator[str]:
    """An OpenAI-compatible chat endpoint on 127.0.0.1; yields its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_args: object) -> None:
            pass

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"object": "list", "data": [{"id": "stub-model"}]}')

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            self.wfile.write(_answer(body, command))

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def _use_stub(lab: Lab, url: str) -> None:
    """The user's global opencode.json names the stub as provider and model (probes 5.3)."""
    config = lab.sandbox.home / ".config" / "opencode" / "opencode.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    provider = {"stub": {"npm": "@ai-sdk/openai-compatible", "name": "Stub",
                         "options": {"baseURL": url, "apiKey": "dummy"},
                         "models": {"stub-model": {"name": "stub-model"}}}}
    data = {"provider": provider, "model": "stub/stub-model", "small_model": "stub/stub-model"}
    config.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def _bash_call(lab: Lab) -> dict[str, Any]:
    """`opencode run --format json`; the state of its one bash tool_use event."""
    proc = lab.start("opencode", "run", "--format", "json", "run the probe")
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    tools = [e["part"] for e in events if e.get("type") == "tool_use"]
    assert proc.returncode == 0 and len(tools) == 1, f"exit {proc.returncode}\n{out}\n{err}"
    assert tools[0]["tool"] == "bash"
    return tools[0]["state"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("scope", ["project", "user"])
def test_a_deny_group_blocks_the_call_and_the_model_gets_the_reason(lab: Lab, scope: str) -> None:
    require("opencode")
    ran = lab.sandbox.project / "ran.txt"
    with scripted_model(f"touch {ran}; git push --force origin main") as url:
        _use_stub(lab, url)
        lab.install("opencode", scope)
        state = _bash_call(lab)
        assert (state["status"], state["error"]) == ("error", "force push is not allowed")
        assert not ran.exists()
        lab.uninstall(scope)
        assert _bash_call(lab)["status"] == "completed"
        assert ran.exists()


REWRITE = """#!/usr/bin/env python3
import json, sys
args = json.load(sys.stdin)
args["command"] = args["command"].replace("original", "rewritten")
print(json.dumps(args))
"""


def _bridge_package(dest: Path) -> Path:
    """A transform, a PostToolUse observer and SessionStart/Stop observers, all logging."""
    (dest / "scripts").mkdir(parents=True)
    (dest / "plugin.json").write_text('{"name": "bridge-probe", "version": "1.0.0"}\n')
    script = dest / "scripts" / "rewrite.py"
    script.write_text(REWRITE)
    script.chmod(0o755)
    log = 'echo "{} $HOOK_TOOL_NATIVE $HOOK_COMMAND" >> "$UZE_CONFORMANCE_HOOK_LOG"'

    def observer(event: str, **more: str) -> dict[str, Any]:
        return {"id": event.lower(), **more,
                "hooks": [{"type": "command", "command": log.format(event)}]}

    hooks = {"hooks": {
        "SessionStart": [observer("SessionStart")],
        "PreToolUse": [{"id": "rewrite", "matcher": "shell", "effect": "transform",
                        "hooks": [{"type": "command", "command": "./scripts/rewrite.py"}]}],
        "PostToolUse": [observer("PostToolUse", matcher="shell")],
        "Stop": [observer("Stop")],
    }}
    (dest / "hooks.json").write_text(json.dumps(hooks, indent=2) + "\n")
    return dest


def test_a_rewrite_is_what_runs_and_observers_see_tool_and_session_events(lab: Lab) -> None:
    require("opencode")
    package = _bridge_package(lab.sandbox.root / "bridge-probe")
    project = lab.sandbox.project
    with scripted_model(f"touch {project}/original.txt") as url:
        _use_stub(lab, url)
        lab.uze("install", str(package), "--harness", "opencode", "--trust")
        state = _bash_call(lab)
    assert state["status"] == "completed"
    assert state["input"]["command"] == f"touch {project}/rewritten.txt"
    assert (project / "rewritten.txt").exists() and not (project / "original.txt").exists()
    log = hook_log(lab.sandbox).read_text(encoding="utf-8").splitlines()
    assert log == [
        "SessionStart  ",
        f"PostToolUse bash touch {project}/rewritten.txt",
        "Stop  ",
    ]


def _observer_package(dest: Path, name: str) -> Path:
    """A package `name` whose SessionStart and PreToolUse observers log its name."""
    dest.mkdir(parents=True)
    (dest / "plugin.json").write_text(json.dumps({"name": name}) + "\n")
    line = f'echo "{name} $HOOK_EVENT" >> "$UZE_CONFORMANCE_HOOK_LOG"'
    group = {"hooks": [{"type": "command", "command": line}]}
    hooks = {"hooks": {"SessionStart": [group], "PreToolUse": [{"matcher": "shell", **group}]}}
    (dest / "hooks.json").write_text(json.dumps(hooks) + "\n")
    return dest


def test_two_packages_plugins_both_run(lab: Lab) -> None:
    """Each package has its own uze-<package>.js exporting the same name; both load and run."""
    require("opencode")
    for name in ("alpha", "beta"):
        package = _observer_package(lab.sandbox.root / name, name)
        lab.uze("install", str(package), "--harness", "opencode", "--trust")
    with scripted_model("echo hi") as url:
        _use_stub(lab, url)
        assert _bash_call(lab)["status"] == "completed"
    log = hook_log(lab.sandbox).read_text(encoding="utf-8").splitlines()
    assert sorted(log) == ["alpha PreToolUse", "alpha SessionStart",
                           "beta PreToolUse", "beta SessionStart"]
