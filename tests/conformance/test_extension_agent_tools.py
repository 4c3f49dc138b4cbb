"""A Gemini CLI extension's agent whose `tools` name Gemini CLI's tools keeps its restriction on
the real Claude Code: uze reads `read_file` as Claude's `Read` (uze.plan.agent_tools), so the
agent, delegated to by the scripted model, is offered Read and not Bash, and a Bash call it
makes is refused. Before, Claude Code got `read_file` as written and the agent ran with none of
its tools restricted as meant.

The extension is written here (no copy of a published one).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.lab import Lab, prepare_user_state, require
from tests.conformance.model_server import Script, model_server, tool_names
from tests.conformance.test_claude_plugin import _tool_results, _turn
from tests.conftest import Sandbox
from tests.helpers import build_tree

pytestmark = pytest.mark.conformance
NAME = "gem-agents"
AGENT = "reader"
DELEGATE = "UZE_EXTENSION_DELEGATE"
TASK = "UZE_EXTENSION_SUBAGENT_TASK"
MARK = "uze-extension-agent-bash"


def _extension(dest: Path) -> Path:
    return build_tree(dest, {
        "gemini-extension.json": json.dumps({"name": NAME, "version": "1.0.0"}),
        f"agents/{AGENT}.md": f"---\nname: {AGENT}\ndescription: Reads files and reports (uze "
                              "extension probe)\nkind: local\ntools:\n  - read_file\n---\n"
                              "You only read files.\n",
    })


def test_a_gemini_extensions_read_only_agent_is_offered_read_and_not_bash_by_claude_code(
    sandbox: Sandbox,
) -> None:
    require("claude")
    prepare_user_state(sandbox)
    lab = Lab(sandbox, _extension(sandbox.root / "packages" / NAME))
    lab.uze("install", str(lab.package), "--harness", "claude_code")
    with model_server() as model:
        call = {"subagent_type": f"{NAME}:{AGENT}", "description": "read a file", "prompt": TASK}
        bash = {"command": f"touch {MARK}", "description": "not one of the agent's tools"}
        script = Script(calls=((TASK, "Bash", bash), (DELEGATE, "Agent", call)))
        requests = _turn(lab, model, DELEGATE, script)
    sub = [r for r in requests if TASK in r.text() and "Agent" not in tool_names("claude", r.body)]
    assert sub, f"the agent {NAME}:{AGENT} never ran: {[r.text()[:500] for r in requests]}"
    offered = set(tool_names("claude", sub[0].body))
    assert "Read" in offered and "Bash" not in offered, offered
    assert not (sandbox.project / MARK).exists(), "Bash ran in the agent"
    refused = [b for r in sub for b in _tool_results(r.body)]
    assert refused and all(b.get("is_error") for b in refused), refused
