"""Claude's answers after the fact, through the translating wrapper (adr/0050): PostToolUse
(Claude's Bash `tool_response`, a block kept beside the output as context, `continue: false`,
`systemMessage`), Stop and SubagentStop blocks, per harness. Each wrapper runs for real as
`python -I -S <script>`, as in test_claude_wrapper.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.unit.hooks.test_claude_wrapper import NATIVE, _group, handler, run, tool_call
from uze.hooks.claude import claude_problem
from uze.hooks.delivery import deliver_claude_group
from uze.package.claude_hooks import ClaudeHookGroup


def tool_result(harness: str, command: str, cwd: Path) -> dict[str, Any]:
    """A shell call's PostToolUse input as each harness sends it (seen with the real binaries:
    Gemini CLI's `llmContent`/`returnDisplay`, Codex's output text)."""
    response: object = command.upper()
    if harness == "gemini_cli":
        response = {"llmContent": f"Output: {command.upper()}\nProcess Group PGID: 7",
                    "returnDisplay": command.upper()}
    return {**tool_call(harness, command, cwd), "hook_event_name": NATIVE[harness, "PostToolUse"],
            "tool_response": response}


@pytest.mark.parametrize("harness", ["gemini_cli", "codex"])
def test_post_tool_use_input_has_claudes_bash_tool_response(tmp_path: Path, harness: str) -> None:
    command = handler(tmp_path, "exit 0")
    code, out, _ = run(tmp_path, harness, "PostToolUse", [command],
                       tool_result(harness, "echo done", tmp_path), matcher="Bash")
    seen = json.loads((tmp_path / "h.sh.in").read_text(encoding="utf-8"))
    assert (code, out) == (0, None)
    assert (seen["hook_event_name"], seen["tool_name"]) == ("PostToolUse", "Bash")
    assert seen["tool_input"]["command"] == "echo done"
    assert seen["tool_response"] == {"stdout": "ECHO DONE", "stderr": "", "interrupted": False,
                                     "isImage": False}


@pytest.mark.parametrize(("response", "stdout"), [(None, ""), (["a", 1], '["a", 1]'),
                                                  ({"stdout": "kept", "x": 1}, "kept")])
def test_other_tool_responses_still_give_a_text_stdout(
    tmp_path: Path, response: object, stdout: str
) -> None:
    command = handler(tmp_path, "exit 0")
    native = {**tool_result("codex", "ls", tmp_path), "tool_response": response}
    run(tmp_path, "codex", "PostToolUse", [command], native)
    seen = json.loads((tmp_path / "h.sh.in").read_text(encoding="utf-8"))
    assert seen["tool_response"]["stdout"] == stdout


def test_a_failed_gemini_shell_call_gives_its_error_as_stderr(tmp_path: Path) -> None:
    command = handler(tmp_path, "exit 0")
    native = tool_result("gemini_cli", "false", tmp_path)
    native["tool_response"] = {"llmContent": "x", "returnDisplay": "",
                               "error": {"message": "exit 1", "type": "execution_failed"}}
    run(tmp_path, "gemini_cli", "PostToolUse", [command], native)
    seen = json.loads((tmp_path / "h.sh.in").read_text(encoding="utf-8"))
    assert (seen["tool_response"]["stdout"], seen["tool_response"]["stderr"]) == ("", "exit 1")


@pytest.mark.parametrize("harness", ["gemini_cli", "codex"])
@pytest.mark.parametrize(("body", "context"), [
    ("echo 'output looks wrong' >&2; exit 2", "output looks wrong"),
    ("""echo '{"decision": "block", "reason": "output looks wrong"}'""", "output looks wrong"),
    ("""echo '{"decision": "block", "reason": "output looks wrong", "hookSpecificOutput": \
{"hookEventName": "PostToolUse", "additionalContext": "see the logs"}}'""",
     "output looks wrong\nsee the logs"),
    ("""echo '{"hookSpecificOutput": {"additionalContext": "see the logs"}}'""", "see the logs"),
])
def test_a_post_tool_use_block_keeps_the_output_and_tells_the_model_why(
    tmp_path: Path, harness: str, body: str, context: str
) -> None:
    """Claude Code keeps a blocked tool's output and adds the reason for the model; a native
    block (Gemini CLI deny, Codex block) would replace the output, so the reason goes as
    additionalContext, after which the handler's own context follows."""
    command = handler(tmp_path, body)
    code, out, err = run(tmp_path, harness, "PostToolUse", [command],
                         tool_result(harness, "ls", tmp_path), matcher="Bash")
    assert (code, err) == (0, "")
    assert out == {"hookSpecificOutput": {"hookEventName": NATIVE[harness, "PostToolUse"],
                                          "additionalContext": context}}


@pytest.mark.parametrize("harness", ["gemini_cli", "codex"])
def test_post_tool_use_continue_false_and_system_message_are_passed_on(
    tmp_path: Path, harness: str
) -> None:
    command = handler(tmp_path, """echo '{"continue": false, "stopReason": "enough", \
"systemMessage": "stopped after ls"}'""")
    code, out, _ = run(tmp_path, harness, "PostToolUse", [command],
                       tool_result(harness, "ls", tmp_path))
    assert (code, out) == (0, {"continue": False, "stopReason": "enough",
                               "systemMessage": "stopped after ls"})


@pytest.mark.parametrize("harness", ["gemini_cli", "codex"])
@pytest.mark.parametrize("body", ["echo oops >&2; exit 1", "echo not json", "exit 0"])
def test_post_tool_use_failures_and_plain_stdout_change_nothing(
    tmp_path: Path, harness: str, body: str
) -> None:
    """Another exit status is a non-blocking error, and plain stdout is not context on
    PostToolUse (Claude Code shows it only in the transcript)."""
    command = handler(tmp_path, body)
    code, out, _ = run(tmp_path, harness, "PostToolUse", [command],
                       tool_result(harness, "ls", tmp_path))
    assert (code, out) == (0, None)


@pytest.mark.parametrize(("harness", "decision"), [("gemini_cli", "deny"), ("codex", "block")])
def test_a_stop_exit_2_makes_the_agent_go_on_with_the_stderr(
    tmp_path: Path, harness: str, decision: str
) -> None:
    command = handler(tmp_path, "echo 'tests still fail' >&2; exit 2")
    native = {"cwd": str(tmp_path), "stop_hook_active": True}
    _, out, _ = run(tmp_path, harness, "Stop", [command], native)
    seen = json.loads((tmp_path / "h.sh.in").read_text(encoding="utf-8"))
    assert (seen["hook_event_name"], seen["stop_hook_active"]) == ("Stop", True)
    assert out == {"decision": decision, "reason": "tests still fail"}


def test_a_codex_post_tool_use_group_is_degraded_for_continue_false() -> None:
    group = ClaudeHookGroup("PostToolUse-0", "PostToolUse", {
        "matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]})
    codex = deliver_claude_group("codex", group, "pkg", Path("/w"), Path("/p"))
    assert codex.route == "degraded"
    assert codex.reason.startswith("a `continue: false` answer does not stop Codex")
    gemini = deliver_claude_group("gemini_cli", group, "pkg", Path("/w"), Path("/p"))
    assert (gemini.route, "does not stop" in gemini.reason) == ("adapted", False)


@pytest.mark.parametrize("body", [
    "echo 'check the subagent work' >&2; exit 2",
    """echo '{"decision": "block", "reason": "check the subagent work"}'""",
])
def test_a_codex_subagent_stop_block_keeps_the_subagent_going(tmp_path: Path, body: str) -> None:
    """Codex's SubagentStop input as Claude's (agent id, type, transcript, last message), the
    group's matcher on the agent type, and a block as Codex's continuation."""
    command = handler(tmp_path, body)
    native = {"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": "SubagentStop",
              "stop_hook_active": False, "agent_id": "a1", "agent_type": "default",
              "agent_transcript_path": "/a.jsonl", "last_assistant_message": "done", "turn": 3}
    assert run(tmp_path, "codex", "SubagentStop", [command], native, matcher="explorer")[1] is None
    assert not (tmp_path / "h.sh.in").exists()
    code, out, _ = run(tmp_path, "codex", "SubagentStop", [command], native, matcher="def.*")
    seen = json.loads((tmp_path / "h.sh.in").read_text(encoding="utf-8"))
    assert {k: seen[k] for k in ("hook_event_name", "stop_hook_active", "agent_id", "agent_type",
                                 "agent_transcript_path", "last_assistant_message")} == {
        "hook_event_name": "SubagentStop", "stop_hook_active": False, "agent_id": "a1",
        "agent_type": "default", "agent_transcript_path": "/a.jsonl",
        "last_assistant_message": "done"}
    assert "turn" not in seen
    assert (code, out) == (0, {"decision": "block", "reason": "check the subagent work"})


def test_gemini_afteragent_response_is_claudes_last_assistant_message(tmp_path: Path) -> None:
    command = handler(tmp_path, "exit 0")
    native = {"cwd": str(tmp_path), "prompt": "p", "prompt_response": "all done",
              "stop_hook_active": False}
    run(tmp_path, "gemini_cli", "Stop", [command], native)
    seen = json.loads((tmp_path / "h.sh.in").read_text(encoding="utf-8"))
    assert (seen["hook_event_name"], seen["last_assistant_message"]) == ("Stop", "all done")


def test_subagent_stop_is_unsupported_where_the_harness_has_no_such_event() -> None:
    group = _group("SubagentStop", [{"type": "command", "command": "true"}])
    assert "Gemini CLI has no event for a subagent's end" in str(
        claude_problem("gemini_cli", group))
    assert claude_problem("opencode", group) == (
        "Claude-protocol hook on SubagentStop: no translation to opencode for it yet")
    assert claude_problem("codex", group) is None
