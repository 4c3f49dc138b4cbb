"""The runtime half of a generated tool server, as a real module (see `uze.plan.tool_server`).

A generated server is a `CONFIG = ...` line followed by this file from the `uze:script-begin`
line on, less the `uze:module-only` lines. It is Python 3.8+ and stdlib only and imports nothing
from uze: uninstalling uze must not break an installed tool (adr/0008, adr/0083). It speaks MCP
over stdio (newline-delimited JSON-RPC 2.0): `initialize`, `ping`, `tools/list` and
`tools/call`. A call runs the tool's command with the arguments as one JSON object on its stdin,
in the server's working folder, with `PLUGIN_ROOT` set; its stdout (UTF-8, at most
`OUTPUT_LIMIT` bytes) is the result. A call that fails (the command cannot start, exits non-zero,
runs past its timeout or writes too much) is a result with `isError: true` and the reason, as MCP
asks for tool errors; a request that is not MCP (bad JSON, an unknown method or tool, arguments
that are not an object or lack a required key) is a JSON-RPC error. uze never imports this
module; tests do, and run generated servers. pyproject.toml relaxes the annotation and pathlib
rules for this file only, as for the hook wrapper's runtime.
"""

# uze:script-begin
import json
import os
import signal
import subprocess
import sys
import threading
import time
from os import environ as _ENV  # the whole environment, passed on to tools
from typing import Any  # uze:module-only

# uze:module-only-begin (the generated server defines CONFIG on its first lines instead)
CONFIG: Any = {}
# uze:module-only-end

HERE = os.path.dirname(os.path.abspath(__file__))  # before anything could change the cwd
OUTPUT_LIMIT = 1024 * 1024  # bytes of a tool's stdout passed on as its result
REASON_LIMIT = 4096  # bytes of its stderr quoted when it fails
PROTOCOLS = ("2025-06-18", "2025-03-26", "2024-11-05")
VARIABLES = ("${PLUGIN_ROOT}", "${CLAUDE_PLUGIN_ROOT}")
PARSE_ERROR, INVALID_REQUEST, NO_METHOD, INVALID_PARAMS = -32700, -32600, -32601, -32602


def plugin_root():
    """PLUGIN_ROOT: CONFIG's `plugin_root` is relative to this script's folder, so a project
    that moves or is cloned elsewhere still finds its package copy (adr/0039)."""
    return os.path.normpath(os.path.join(HERE, CONFIG["plugin_root"]))


def argv(tool):
    """The command line of a tool: exec form with `args`, else `/bin/sh -c` (as hooks)."""
    root, command = plugin_root(), tool["command"]
    if tool.get("args") is None:
        if command.startswith("./"):
            command = '"$PLUGIN_ROOT"/' + command[2:]
        return ["/bin/sh", "-c", command]
    for variable in VARIABLES:
        command = command.replace(variable, root)
    if command.startswith("./"):
        command = os.path.join(root, command[2:])
    args = list(tool["args"])
    for index, arg in enumerate(args):
        for variable in VARIABLES:
            arg = arg.replace(variable, root)
        args[index] = arg
    return [command] + args


def kill_tree(proc):
    if os.name == "posix":
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
    else:
        subprocess.call(["taskkill", "/F", "/T", "/PID", str(proc.pid)],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def drain(stream, limit, into, over):
    """Read `stream` into the list `into` up to `limit` bytes; past it, set `over` and stop."""
    size = 0
    while True:
        chunk = stream.read(65536)
        if not chunk:
            return
        into.append(chunk)
        size += len(chunk)
        if size > limit:
            over.set()
            return


def feed(stream, data):
    try:
        stream.write(data)
    except OSError:  # the command did not read all of its input: that is its business
        pass
    try:
        stream.close()
    except OSError:
        pass


def run(tool, arguments):
    """(text, is_error) of one call of `tool` with `arguments`."""
    name = tool["name"]
    env = dict(_ENV, PLUGIN_ROOT=plugin_root())
    try:
        proc = subprocess.Popen(
            argv(tool), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, start_new_session=os.name == "posix",
            creationflags=getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0))
    except OSError as error:
        return "tool %s could not start: %s" % (name, error), True
    out, err, over = [], [], threading.Event()
    threads = [threading.Thread(target=drain, args=(proc.stdout, OUTPUT_LIMIT, out, over)),
               threading.Thread(target=drain, args=(proc.stderr, REASON_LIMIT, err,
                                                    threading.Event())),
               threading.Thread(target=feed, args=(proc.stdin,
                                                   json.dumps(arguments).encode("utf-8")))]
    for thread in threads:
        thread.daemon = True
        thread.start()
    timed_out = not finished(proc, threads[0], over, tool["timeout"])
    kill_tree(proc)  # nothing a tool started outlives its call
    proc.wait()
    for thread in threads:
        thread.join(5)
    stdout = b"".join(out)
    stderr = b"".join(err)[:REASON_LIMIT].decode("utf-8", "replace").strip()
    if over.is_set():
        return "tool %s wrote more than %d bytes; its output was cut off" % (
            name, OUTPUT_LIMIT), True
    if timed_out:
        return "tool %s timed out after %d s" % (name, tool["timeout"]), True
    if proc.returncode != 0:
        why = "tool %s failed with exit status %s" % (name, proc.returncode)
        return why + (": " + stderr if stderr else ""), True
    return stdout.decode("utf-8", "replace"), False


def finished(proc, reader, over, timeout):
    """Wait for the command to end (and its stdout to close) within `timeout` seconds, or for
    its output to pass the limit; False on a timeout."""
    deadline = time.monotonic() + timeout
    reader.join(timeout)
    if reader.is_alive():
        return False
    if over.is_set():
        return True
    try:
        proc.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return False
    return True


def listed(tool):
    return {"name": tool["name"], "description": tool["description"],
            "inputSchema": tool["inputSchema"]}


def initialized(params):
    asked = params.get("protocolVersion") if isinstance(params, dict) else None
    return {"protocolVersion": asked if asked in PROTOCOLS else PROTOCOLS[0],
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": CONFIG["server"], "version": CONFIG["version"]}}


class Refused(Exception):
    """A request answered with a JSON-RPC error: (code, message)."""


def call(params):
    if not isinstance(params, dict) or not isinstance(params.get("name"), str):
        raise Refused(INVALID_PARAMS, "tools/call needs the tool's name")
    tool = next((t for t in CONFIG["tools"] if t["name"] == params["name"]), None)
    if tool is None:
        raise Refused(INVALID_PARAMS, "unknown tool: %s" % params["name"])
    arguments = params.get("arguments")
    arguments = {} if arguments is None else arguments
    if not isinstance(arguments, dict):
        raise Refused(INVALID_PARAMS, "tool %s: arguments must be an object" % tool["name"])
    missing = [key for key in tool["inputSchema"].get("required", []) if key not in arguments]
    if missing:
        raise Refused(INVALID_PARAMS, "tool %s: missing required argument %s" % (
            tool["name"], ", ".join(missing)))
    text, failed = run(tool, arguments)
    return {"content": [{"type": "text", "text": text}], "isError": failed}


METHODS = {
    "initialize": initialized,
    "ping": lambda params: {},
    "tools/list": lambda params: {"tools": [listed(t) for t in CONFIG["tools"]]},
    "tools/call": call,
}


def answer(message):
    """The response to one JSON-RPC message, or None for a notification (or a response)."""
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        if isinstance(message, dict) and "method" not in message and "id" in message:
            return None  # a response to something we never ask: nothing to say
        return error(None, INVALID_REQUEST, "not a JSON-RPC request")
    if "id" not in message:
        return None
    reply_id, method = message["id"], message["method"]
    if method not in METHODS:
        return error(reply_id, NO_METHOD, "method not found: %s" % method)
    try:
        return {"jsonrpc": "2.0", "id": reply_id, "result": METHODS[method](message.get("params"))}
    except Refused as refused:
        return error(reply_id, refused.args[0], refused.args[1])


def error(reply_id, code, message):
    return {"jsonrpc": "2.0", "id": reply_id, "error": {"code": code, "message": message}}


def main():
    stdin = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin
    for line in stdin:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError:
            reply = error(None, PARSE_ERROR, "not JSON")
        else:
            reply = answer(message)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
