"""Package tools (tools.json, adr/0083) through the real `uze`: checked, consented, delivered as
one generated stdio MCP server per package to every harness, run, shown and uninstalled."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.helpers import SEVEN, build_tree, run_uze, tree_bytes
from uze.harnesses import REGISTRY
from uze.location import Location
from uze.paths import Paths
from uze.projections.config_entry import read_document

pytestmark = pytest.mark.e2e

ECHO = '#!/bin/sh\nprintf "kit says %s to " "$(cat "$PLUGIN_ROOT/greeting.txt")"\ncat\n'
TOOLS = {"tools": [
    {"name": "greet", "description": "Greet with the package's greeting.",
     "inputSchema": {"type": "object", "properties": {"who": {"type": "string"}},
                     "required": ["who"]},
     "command": "${PLUGIN_ROOT}/bin/greet.sh", "args": [], "timeout": 10},
    {"name": "shout", "description": "Upper-case the arguments.",
     "inputSchema": {"type": "object"}, "command": "tr a-z A-Z"},
]}
NOTE = "a stdio MCP server uze generates from tools.json, serving the tools greet, shout"


def kit(sandbox: Sandbox, tools: object = TOOLS) -> Path:
    root = build_tree(sandbox.root / "kit", {
        "plugin.json": json.dumps({"name": "kit", "version": "1.0.0"}),
        "tools.json": tools if isinstance(tools, str) else json.dumps(tools),
        "bin/greet.sh": ECHO, "greeting.txt": "hello"})
    (root / "bin" / "greet.sh").chmod(0o755)
    return root


def world(sandbox: Sandbox) -> dict[str, dict[str, bytes | str]]:
    return {name: tree_bytes(path) for name, path in
            (("project", sandbox.project), ("home", sandbox.home),
             ("uze_home", sandbox.uze_home))}


def mcp_call(command: list[str], cwd: Path, name: str, arguments: object) -> dict[str, object]:
    """Start the server as a harness entry names it and make one tools/call."""
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18"}},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": name, "arguments": arguments}}]
    done = subprocess.run(command, cwd=cwd, input="".join(json.dumps(m) + "\n" for m in lines),
                          capture_output=True, text=True, timeout=60, check=True)
    first, second = (json.loads(line) for line in done.stdout.splitlines())
    assert first["result"]["serverInfo"] == {"name": "kit-tools", "version": "1.0.0"}
    result: dict[str, object] = second["result"]
    return result


def test_check_refuses_a_bad_tools_file_naming_each_place_and_writes_nothing(
        sandbox: Sandbox) -> None:
    bad = {"tools": [{"name": "9lives", "description": "", "inputSchema": {"type": "array"},
                      "command": "x", "timeout": 9999}]}
    package = kit(sandbox, bad)
    before = world(sandbox)
    for verb in (("check",), ("install", "--trust")):
        done = run_uze(*verb, package, "--harness", "all", cwd=sandbox.project)
        assert done.returncode == 1, (verb, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr
        for line in (
            "tools.json: tools[0].name: invalid tool name '9lives': start with a letter",
            "tools.json: tools[0].description: must not be empty",
            "tools.json: tools[0].inputSchema: must be a JSON Schema of an object",
            "tools.json: tools[0].timeout: must be less than or equal to 600",
        ):
            assert line in done.stderr, (verb, done.stderr)
        assert "hint: " in done.stderr
    assert world(sandbox) == before


def _entry(sandbox: Sandbox, harness: str, scope: str) -> object:
    target = REGISTRY[harness].mcp
    assert target is not None
    paths = Paths(sandbox.home, sandbox.uze_home, dict(os.environ))
    loc = Location(scope, sandbox.project if scope == "project" else sandbox.home, paths)
    value = read_document(target.file(loc).read_bytes(), target.fmt)
    for key in target.key(loc, "kit-tools"):
        assert isinstance(value, dict)
        value = value[key]
    return value


@pytest.mark.parametrize("scope", ["project", "user"])
def test_one_generated_server_reaches_every_harness_runs_the_tools_and_leaves_no_trace(
        sandbox: Sandbox, scope: str) -> None:
    package = kit(sandbox)
    project_before, home_before = tree_bytes(sandbox.project), tree_bytes(sandbox.home)
    done = run_uze("install", package, "--harness", "all", "--scope", scope, "--trust",
                   cwd=sandbox.project)
    assert done.returncode == 0, done.stderr
    status = json.loads(run_uze("status", "kit", "--json", "--scope", scope,
                                cwd=sandbox.project).stdout)
    (found,) = status["packages"]
    rows = {p["harness"]: p for p in found["projections"]}
    assert sorted(rows) == sorted(SEVEN)
    assert {(p["kind"], p["resource"]) for p in found["projections"]} == {("mcp", "kit-tools")}
    for row in rows.values():
        assert NOTE in row["reason"] or row["route"] == "unsupported", row
        assert row["state"] == ("undelivered" if row["route"] == "unsupported" else "matched")
    delivered = [h for h, row in rows.items() if row["route"] != "unsupported"]
    assert delivered == [h for h in SEVEN if h != "deepseek_harness"]
    state = sandbox.project / ".uze" if scope == "project" else sandbox.uze_home
    server = state / "tools" / "kit" / "server.py"
    assert server.stat().st_mode & 0o111
    claude = _entry(sandbox, "claude_code", scope)
    assert isinstance(claude, dict)
    expected = "./.uze/tools/kit/server.py" if scope == "project" else str(server)
    assert claude == {"command": expected, "args": []}
    result = mcp_call([claude["command"]], sandbox.project, "greet", {"who": "you"})
    assert result == {"content": [{"type": "text", "text": 'kit says hello to {"who": "you"}'}],
                      "isError": False}
    assert mcp_call([str(server)], sandbox.root, "shout", {"a": "b"})["content"] == [
        {"type": "text", "text": '{"A": "B"}'}]
    done = run_uze("uninstall", "kit", "--scope", scope, cwd=sandbox.project)
    assert done.returncode == 0, done.stderr
    assert tree_bytes(sandbox.project) == project_before
    assert tree_bytes(sandbox.home) == home_before
    assert not (state / "tools" / "kit").exists()  # UZE_HOME keeps its own folders


def test_consent_lists_each_tool_and_a_changed_command_asks_again(sandbox: Sandbox) -> None:
    package = kit(sandbox)
    before = tree_bytes(sandbox.project)
    done = run_uze("install", package, "--harness", "claude_code", cwd=sandbox.project)
    assert done.returncode == 1
    assert "tool greet (MCP server kit-tools): ${PLUGIN_ROOT}/bin/greet.sh; bin/greet.sh " \
           "blake3:" in done.stderr
    assert "tool shout (MCP server kit-tools): tr a-z A-Z" in done.stderr
    assert tree_bytes(sandbox.project) == before
    done = run_uze("install", package, "--harness", "claude_code", "--trust",
                   cwd=sandbox.project)
    assert done.returncode == 0, done.stderr
    changed = json.loads(json.dumps(TOOLS))
    changed["tools"][1]["command"] = "tr A-Z a-z"
    (package / "tools.json").write_text(json.dumps(changed), encoding="utf-8")
    installed = tree_bytes(sandbox.project)
    done = run_uze("install", package, "--harness", "claude_code", cwd=sandbox.project)
    assert done.returncode == 1
    assert "tool shout (MCP server kit-tools): tr A-Z a-z" in done.stderr
    assert tree_bytes(sandbox.project) == installed


def test_a_policy_denying_mcp_refuses_a_package_with_tools(sandbox: Sandbox) -> None:
    (sandbox.uze_home / "policy.toml").write_text('[powers]\ndeny = ["mcp"]\n',
                                                  encoding="utf-8")
    before = tree_bytes(sandbox.project)
    done = run_uze("install", kit(sandbox), "--harness", "codex", "--trust",
                   cwd=sandbox.project)
    assert done.returncode == 1
    assert "kit: tool greet (MCP server kit-tools) (mcp): refused by the policy rule " \
           '[powers] deny = ["mcp"]' in done.stderr
    assert tree_bytes(sandbox.project) == before
