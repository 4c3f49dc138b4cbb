"""Claude-protocol hooks on other harnesses, with the real binaries and the scripted model.

A package in Claude Code's own layout (`.claude-plugin/plugin.json`, `hooks/hooks.json`) has
handlers written for Claude's protocol: they read Claude's hook JSON on stdin and answer as
Claude expects. uze installs them on each harness it reports `adapted` (or `degraded`) for
through the translating wrapper (adr/0034). What must show, per harness, in one session each:

* a PreToolUse handler answering exit 2 with a reason on stderr blocks the shell call, and
  another answering `hookSpecificOutput.permissionDecision: "deny"` on stdout blocks it too;
  each reason reaches the model;
* both received Claude's hook JSON: `hook_event_name` PreToolUse, `tool_name` Bash, the command
  in `tool_input.command`;
* an unmarked call runs, and a SessionStart handler's `additionalContext` is in the model request;
* after uninstall the marked call runs.

The package is written here (no copy of a published plugin).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.behaviour import DRIVERS
from tests.conformance.evidence import EvidenceRun
from tests.conformance.lab import Lab, prepare_user_state, require
from tests.conformance.model_server import ModelServer, model_server
from tests.conformance.oracles import REAL_HARNESSES
from tests.conformance.test_behaviour import exists, status_cells, tool_results, turn
from tests.conftest import Sandbox

pytestmark = pytest.mark.conformance
NAME = "claude-proto"
EXIT2 = "touch uze-UZE_CLAUDE_EXIT2"
JSON_DENY = "touch uze-UZE_CLAUDE_JSON"
PLAIN = "touch uze-claude-plain"
AFTER = "touch uze-after-UZE_CLAUDE_EXIT2-UZE_CLAUDE_JSON"
EXIT2_REASON = "UZE_CLAUDE_EXIT2_REASON"
JSON_REASON = "UZE_CLAUDE_JSON_REASON"
CONTEXT = "UZE_CLAUDE_SESSION_CONTEXT"
PROMPT_CONTEXT = "UZE_CLAUDE_PROMPT_CONTEXT"  # a UserPromptSubmit handler's plain stdout
HARNESSES = ("claude_code", "gemini_cli", "codex", "opencode")

_EXIT2 = f"""#!/bin/sh
input=$(cat)
printf '%s\\n' "$input" >> "$UZE_CLAUDE_SEEN"
case "$input" in
  *UZE_CLAUDE_EXIT2*) echo "{EXIT2_REASON}" >&2; exit 2 ;;
esac
exit 0
"""
_JSON = f"""#!/bin/sh
input=$(cat)
case "$input" in
  *UZE_CLAUDE_JSON*) printf '%s\\n' '{{"hookSpecificOutput": {{"hookEventName": "PreToolUse", \
"permissionDecision": "deny", "permissionDecisionReason": "{JSON_REASON}"}}}}' ;;
esac
exit 0
"""
_CONTEXT = f"""#!/bin/sh
cat > /dev/null
printf '%s\\n' '{{"hookSpecificOutput": {{"hookEventName": "SessionStart", \
"additionalContext": "{CONTEXT}"}}}}'
"""


_PROMPT = f"""#!/bin/sh
input=$(cat)
case "$input" in
  *'"prompt"'*scripted*) echo "{PROMPT_CONTEXT}" ;;
esac
"""


def build_claude_package(dest: Path) -> Path:
    """A Claude-layout plugin whose hooks speak Claude's protocol only."""
    (dest / ".claude-plugin").mkdir(parents=True)
    (dest / "hooks").mkdir()
    manifest = {"name": NAME, "version": "1.0.0", "description": "Claude-protocol hooks."}
    (dest / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest), encoding="utf-8")
    for name, text in (("exit2.sh", _EXIT2), ("json.sh", _JSON), ("context.sh", _CONTEXT),
                       ("prompt.sh", _PROMPT)):
        (dest / "hooks" / name).write_text(text, encoding="utf-8")
        (dest / "hooks" / name).chmod(0o755)
    root = "${CLAUDE_PLUGIN_ROOT}/hooks/"
    hooks = {"hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": root + "exit2.sh"}]},
            {"matcher": "Write|Bash", "hooks": [{"type": "command", "command": root + "json.sh",
                                                 "timeout": 20}]},
        ],
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": root + "context.sh"}]},
        ],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": root + "prompt.sh"}]}],
    }}
    (dest / "hooks" / "hooks.json").write_text(json.dumps(hooks, indent=2), encoding="utf-8")
    return dest


@pytest.mark.parametrize("scope", ("project", "user"))
@pytest.mark.parametrize("harness_id", HARNESSES)
def test_claude_protocol_hooks_block_the_shell_call_and_add_session_context(
    sandbox: Sandbox, evidence: EvidenceRun, harness_id: str, scope: str
) -> None:
    harness = REAL_HARNESSES[harness_id]
    require(harness.binary)
    prepare_user_state(sandbox)
    lab = Lab(sandbox, build_claude_package(sandbox.root / "packages" / NAME))
    lab.uze("install", str(lab.package), "--harness", harness_id, "--scope", scope, "--trust")
    hooks = [c for c in status_cells(lab, harness_id, scope, NAME) if c.kind == "hook"]
    expected = {"native"} if harness_id == "claude_code" else {"adapted", "degraded"}
    delivered = {c.resource for c in hooks if c.delivered}
    assert {c.route for c in hooks if c.delivered} <= expected, hooks
    assert len(hooks) == 4 and {"PreToolUse-0", "PreToolUse-1"} <= delivered, hooks
    assert all(c.reason for c in hooks if not c.delivered), hooks
    driver = DRIVERS[harness_id]
    driver.prepare(lab, scope)
    seen = sandbox.root / "claude-seen.jsonl"
    extra = {"UZE_CLAUDE_SEEN": str(seen)}

    with model_server() as model:
        requests = turn(lab, harness, model, PLAIN, extra)
        assert exists(lab, PLAIN.split()[1]), f"the unmarked call `{PLAIN}` did not run"
        with evidence.check(harness_id, "hook.claude.deny", scope):
            check_blocked(lab, harness, model, EXIT2, EXIT2_REASON, driver.api, extra)
            check_blocked(lab, harness, model, JSON_DENY, JSON_REASON, driver.api, extra)
            inputs = [json.loads(line) for line in seen.read_text(encoding="utf-8").splitlines()]
            marked = [i for i in inputs if "UZE_CLAUDE_EXIT2" in json.dumps(i)]
            assert marked, f"the exit-2 handler never saw the marked call: {inputs}"
            assert marked[0]["hook_event_name"] == "PreToolUse", marked[0]
            assert marked[0]["tool_name"] == "Bash", marked[0]
            assert marked[0]["tool_input"]["command"] == EXIT2, marked[0]
            assert marked[0]["cwd"], marked[0]
        if "SessionStart-0" in delivered:  # OpenCode: unsupported, its plugin only observes
            with evidence.check(harness_id, "hook.claude.context", scope):
                assert any(CONTEXT in r.text() for r in requests if r.api == driver.api), (
                    f"SessionStart additionalContext {CONTEXT} is in no model request"
                )
        if "UserPromptSubmit-0" in delivered:
            with evidence.check(harness_id, "hook.claude.context", scope):
                assert any(PROMPT_CONTEXT in r.text() for r in requests
                           if r.api == driver.api), (
                    f"UserPromptSubmit context {PROMPT_CONTEXT} is in no model request"
                )

        lab.uze("uninstall", NAME, "--scope", scope)
        turn(lab, harness, model, AFTER, extra)
        assert exists(lab, AFTER.split()[1]), f"`{AFTER}` did not run after uninstall"


def check_blocked(lab: Lab, harness: object, model: ModelServer, command: str, reason: str,
                  api: str, extra: dict[str, str]) -> None:
    requests = turn(lab, harness, model, command, extra)  # type: ignore[arg-type]
    assert not exists(lab, command.split()[1]), f"`{command}` ran although a Claude hook denied it"
    results = tool_results(requests, api)
    assert reason in results, f"the reason {reason} did not reach the model: {results[:3000]}"
