"""ADR 0083 on the real binaries: a package's tools.json, delivered as its generated stdio MCP
server, is offered to the scripted model as a tool once by each harness, in both scopes; the
model's call runs the tool's command with the arguments as JSON on its stdin and the command's
stdout reaches the model as the tool result; after uninstall the tool is offered no more.

What to expect comes from `uze status --json` (the package's one `mcp` row for the harness must
be delivered); the tool's name on the wire is the driver's (`mcp__<server>__<tool>` in Claude
Code, ...), as for every MCP server of the behaviour contracts. The offer, the call and the
result are recorded as the `tool.call` evidence of the harness and scope (adr/0098).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.behaviour import DRIVERS, main_request
from tests.conformance.evidence import EvidenceRun
from tests.conformance.lab import Lab, model_run, prepare_user_state, require
from tests.conformance.model_server import ModelServer, Request, Script, model_server
from tests.conformance.oracles import REAL_HARNESSES
from tests.conftest import Sandbox
from tests.helpers import build_tree

pytestmark = pytest.mark.conformance

NAME = "toolkit"
SERVER = "toolkit-tools"
TOOL = "record"
# In the tool's description: only a request that offers the tool carries it (Gemini CLI's
# router call carries the prompt, not the tools, and must get text back).
MARKER = "UZE_TOOL_CALL_7c1d"
PROMPT = "Call the package's record tool."
ANSWER = "UZE_TOOL_RESULT_e42b"
ARGUMENTS = {"text": "ping-31"}


def _package(dest: Path, log: Path) -> Path:
    """A package with one tool, `record`: it appends its stdin to `log` and answers ANSWER
    followed by that stdin (the package file it runs is found through ${PLUGIN_ROOT})."""
    tools = {"tools": [{
        "name": TOOL, "description": f"Record the text given and answer with it. {MARKER}",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                        "required": ["text"]},
        "command": "${PLUGIN_ROOT}/bin/record.sh", "args": [], "timeout": 20}]}
    script = (f'#!/bin/sh\ninput=$(cat)\nprintf "%s\\n" "$input" >> "{log}"\n'
              f'printf "{ANSWER} %s" "$input"\n')
    root = build_tree(dest, {"plugin.json": json.dumps({"name": NAME, "version": "1.0.0"}),
                             "tools.json": json.dumps(tools), "bin/record.sh": script})
    (root / "bin" / "record.sh").chmod(0o755)
    return root


def _turn(lab: Lab, binary: str, model: ModelServer, call: str | None) -> list[Request]:
    """One turn of `binary`; the scripted model calls `call` (None: it answers text only)."""
    model.clear()
    model.script = Script(calls=((MARKER, call, ARGUMENTS),) if call else ())
    args, env = model_run(lab, binary, model.url, PROMPT)
    lab.run(binary, *args, env=env)
    return model.logged()


def _results(requests: list[Request], api: str) -> str:
    """The text of every request after the first: what the model got back from its call."""
    return "\n".join(r.text() for r in requests[1:] if r.api == api)


@pytest.mark.parametrize("scope", ["project", "user"])
@pytest.mark.parametrize("harness_id", ["claude_code", "codex", "gemini_cli", "opencode"])
def test_each_harness_offers_the_generated_tool_once_and_its_call_runs_the_command(
        sandbox: Sandbox, evidence: EvidenceRun, harness_id: str, scope: str) -> None:
    harness, driver = REAL_HARNESSES[harness_id], DRIVERS[harness_id]
    require(harness.binary)
    prepare_user_state(sandbox)
    log = sandbox.root / "tool-calls.log"
    lab = Lab(sandbox, _package(sandbox.root / "packages" / NAME, log))
    lab.uze("install", str(lab.package), "--harness", harness_id, "--scope", scope, "--trust")
    status = json.loads(lab.uze("status", NAME, "--json", "--scope", scope).stdout)
    (row,) = status["packages"][0]["projections"]
    assert (row["kind"], row["resource"], row["route"]) == ("mcp", SERVER, "adapted"), row
    driver.prepare(lab, scope)
    wire = driver.mcp_tool(SERVER, TOOL)
    with model_server() as model:
        with evidence.check(harness_id, "tool.call", scope):
            requests = _turn(lab, harness.binary, model, wire)
            offered = driver.read(main_request(requests, driver.api).body)
            assert offered.tools[wire] == 1, f"{wire} offered {offered.tools[wire]}x: " \
                                             f"{sorted(offered.tools)}"
            calls = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
            assert [json.loads(line) for line in calls] == [ARGUMENTS], calls
            results = _results(requests, driver.api)
            assert ANSWER in results and "ping-31" in results, results[-3000:]
        lab.uze("uninstall", NAME, "--scope", scope)
        requests = _turn(lab, harness.binary, model, None)
        offered = driver.read(main_request(requests, driver.api).body)
        assert offered.tools[wire] == 0, sorted(offered.tools)
    assert len(log.read_text(encoding="utf-8").splitlines()) == 1
