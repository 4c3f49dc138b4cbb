"""Claude-protocol wrappers, run for real (adr/0034): the harness's native hook input becomes
Claude's hook JSON on the handler's stdin, the handler's Claude answer becomes the harness's
decision. Each wrapper runs as `python -I -S <script>`, so nothing of uze is on its path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from uze.hooks.claude import claude_problem
from uze.hooks.delivery import deliver_claude_group
from uze.hooks.wrapper import render_claude_wrapper
from uze.package.claude_hooks import ClaudeHookGroup

SHELL = {"gemini_cli": "run_shell_command", "codex": "Bash"}
NATIVE = {("gemini_cli", "PreToolUse"): "BeforeTool", ("codex", "PreToolUse"): "PreToolUse",
          ("gemini_cli", "SessionStart"): "SessionStart",
          ("codex", "SessionStart"): "SessionStart", ("gemini_cli", "Stop"): "AfterAgent",
          ("codex", "Stop"): "Stop", ("opencode", "PreToolUse"): "tool.execute.before",
          ("gemini_cli", "UserPromptSubmit"): "BeforeAgent",
          ("codex", "UserPromptSubmit"): "UserPromptSubmit",
          ("gemini_cli", "PostToolUse"): "AfterTool", ("codex", "PostToolUse"): "PostToolUse",
          ("codex", "SubagentStop"): "SubagentStop", ("gemini_cli", "SessionEnd"): "SessionEnd",
          ("gemini_cli", "PreCompact"): "PreCompress",
          ("gemini_cli", "Notification"): "Notification"}


def handler(tmp_path: Path, body: str, name: str = "h.sh") -> str:
    """A shell handler that saves its stdin to `<name>.in` and runs `body`; its command."""
    script = tmp_path / name
    script.write_text(f'#!/bin/sh\ncat > "$0.in"\n{body}\n', encoding="utf-8")
    script.chmod(0o755)
    return "${CLAUDE_PLUGIN_ROOT}/" + name


def run(tmp_path: Path, harness: str, event: str, commands: list[str],
        native: dict[str, Any], matcher: str | None = None,
        extra: dict[str, Any] | None = None) -> tuple[int, Any, str]:
    value: dict[str, Any] = {"hooks": [{"type": "command", "command": c, **(extra or {})}
                                       for c in commands]}
    if matcher is not None:
        value["matcher"] = matcher
    group = ClaudeHookGroup(f"{event}-0", event, value)
    script = tmp_path / "wrapper.py"
    script.write_bytes(render_claude_wrapper(harness, group, NATIVE[harness, event],
                                             str(tmp_path), "pkg/g"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    proc = subprocess.run([sys.executable, "-I", "-S", str(script)], input=json.dumps(native),
                          capture_output=True, text=True, timeout=60, env=env, check=False)
    out = json.loads(proc.stdout) if proc.stdout.strip() else None
    return proc.returncode, out, proc.stderr


def tool_call(harness: str, command: str, cwd: Path) -> dict[str, Any]:
    return {"session_id": "s1", "transcript_path": "/t.jsonl", "cwd": str(cwd),
            "hook_event_name": NATIVE[harness, "PreToolUse"], "tool_name": SHELL[harness],
            "tool_input": {"command": command, "dir_path": "."}}


@pytest.mark.parametrize("harness", ["gemini_cli", "codex"])
def test_the_handler_reads_claudes_hook_json_with_the_tool_under_its_claude_name(
    tmp_path: Path, harness: str
) -> None:
    command = handler(tmp_path, "exit 0")
    code, out, _ = run(tmp_path, harness, "PreToolUse", [command],
                       tool_call(harness, "ls -la", tmp_path), matcher="Bash")
    seen = json.loads((tmp_path / "h.sh.in").read_text(encoding="utf-8"))
    assert (code, out) == (0, None)
    assert seen["hook_event_name"] == "PreToolUse"
    assert seen["tool_name"] == "Bash"
    assert seen["tool_input"]["command"] == "ls -la"
    assert (seen["session_id"], seen["transcript_path"], seen["cwd"]) == (
        "s1", "/t.jsonl", str(tmp_path))


def test_gemini_file_tools_reach_the_handler_as_claudes_with_file_path(tmp_path: Path) -> None:
    command = handler(tmp_path, "exit 0")
    native = tool_call("gemini_cli", "", tmp_path)
    native.update(tool_name="replace", tool_input={"absolute_path": "/a.py", "old_string": "x",
                                                    "new_string": "y"})
    run(tmp_path, "gemini_cli", "PreToolUse", [command], native, matcher="Edit|Write")
    seen = json.loads((tmp_path / "h.sh.in").read_text(encoding="utf-8"))
    assert seen["tool_name"] == "Edit"
    assert seen["tool_input"]["file_path"] == "/a.py"
    assert seen["tool_input"]["new_string"] == "y"


def test_a_group_whose_matcher_misses_the_tool_never_runs_its_handler(tmp_path: Path) -> None:
    command = handler(tmp_path, "echo no >&2; exit 2")
    code, out, _ = run(tmp_path, "gemini_cli", "PreToolUse", [command],
                       tool_call("gemini_cli", "ls", tmp_path), matcher="Write|Edit")
    assert (code, out) == (0, None)
    assert not (tmp_path / "h.sh.in").exists()


@pytest.mark.parametrize("body", [
    "echo 'rm is blocked' >&2; exit 2",
    """echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": \
"deny", "permissionDecisionReason": "rm is blocked"}}'""",
    """echo '{"decision": "block", "reason": "rm is blocked"}'""",
])
def test_a_claude_deny_becomes_geminis_deny_and_codexs_exit_2(tmp_path: Path, body: str) -> None:
    command = handler(tmp_path, body)
    code, out, _ = run(tmp_path, "gemini_cli", "PreToolUse", [command],
                       tool_call("gemini_cli", "rm -rf x", tmp_path))
    assert (code, out) == (0, {"decision": "deny", "reason": "rm is blocked"})
    code, out, err = run(tmp_path, "codex", "PreToolUse", [command],
                         tool_call("codex", "rm -rf x", tmp_path))
    assert (code, out, err.strip()) == (2, None, "rm is blocked")


def test_an_ask_blocks_because_neither_harness_can_ask(tmp_path: Path) -> None:
    command = handler(tmp_path, """echo '{"hookSpecificOutput": {"permissionDecision": "ask", \
"permissionDecisionReason": "sure?"}}'""")
    _, out, _ = run(tmp_path, "gemini_cli", "PreToolUse", [command],
                    tool_call("gemini_cli", "ls", tmp_path))
    assert out["decision"] == "deny"
    assert out["reason"] == "needs the user's approval, which gemini_cli cannot ask: sure?"


def test_allow_and_a_failing_handler_let_the_call_run_as_in_claude_code(tmp_path: Path) -> None:
    allow = handler(tmp_path, """echo '{"hookSpecificOutput": {"permissionDecision": \
"allow"}}'""", "a.sh")
    broken = handler(tmp_path, "echo oops >&2; exit 1", "b.sh")
    for harness in ("gemini_cli", "codex"):
        code, out, _ = run(tmp_path, harness, "PreToolUse", [allow, broken],
                           tool_call(harness, "ls", tmp_path))
        assert (code, out) == (0, None)


def test_a_handler_past_its_timeout_is_a_non_blocking_error(tmp_path: Path) -> None:
    slow = handler(tmp_path, "sleep 30; echo late >&2; exit 2")
    code, out, _ = run(tmp_path, "codex", "PreToolUse", [slow],
                       tool_call("codex", "ls", tmp_path), extra={"timeout": 1})
    assert (code, out) == (0, None)


@pytest.mark.parametrize("harness", ["gemini_cli", "codex"])
def test_session_start_context_and_system_message_reach_the_harness(
    tmp_path: Path, harness: str
) -> None:
    command = handler(tmp_path, """echo '{"systemMessage": "hello user", "hookSpecificOutput": \
{"hookEventName": "SessionStart", "additionalContext": "the context"}}'""")
    native = {"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": "SessionStart",
              "source": "startup"}
    code, out, _ = run(tmp_path, harness, "SessionStart", [command], native, matcher="startup")
    seen = json.loads((tmp_path / "h.sh.in").read_text(encoding="utf-8"))
    assert (seen["hook_event_name"], seen["source"]) == ("SessionStart", "startup")
    assert "tool_name" not in seen
    assert code == 0
    assert out == {"systemMessage": "hello user", "hookSpecificOutput": {
        "hookEventName": "SessionStart", "additionalContext": "the context"}}


def test_session_start_matcher_is_on_the_source_and_plain_stdout_is_context(
    tmp_path: Path
) -> None:
    command = handler(tmp_path, "echo plain context")
    native = {"cwd": str(tmp_path), "source": "resume"}
    assert run(tmp_path, "gemini_cli", "SessionStart", [command], native,
               matcher="startup")[1] is None
    _, out, _ = run(tmp_path, "gemini_cli", "SessionStart", [command], native,
                    matcher="startup|resume")
    assert out["hookSpecificOutput"]["additionalContext"] == "plain context"


@pytest.mark.parametrize(("harness", "decision"), [("gemini_cli", "deny"), ("codex", "block")])
def test_a_stop_block_and_continue_false_keep_their_meaning(
    tmp_path: Path, harness: str, decision: str
) -> None:
    command = handler(tmp_path, """echo '{"decision": "block", "reason": "keep going"}'""")
    native = {"cwd": str(tmp_path), "stop_hook_active": False}
    _, out, _ = run(tmp_path, harness, "Stop", [command], native)
    seen = json.loads((tmp_path / "h.sh.in").read_text(encoding="utf-8"))
    assert seen["stop_hook_active"] is False
    assert out == {"decision": decision, "reason": "keep going"}
    stop = handler(tmp_path, """echo '{"continue": false, "stopReason": "done"}'""")
    _, out, _ = run(tmp_path, harness, "Stop", [stop], native)
    assert out == {"continue": False, "stopReason": "done"}


def _group(event: str, handlers: list[dict[str, Any]]) -> ClaudeHookGroup:
    return ClaudeHookGroup(f"{event}-0", event, {"hooks": handlers})


def test_what_the_wrapper_cannot_run_is_unsupported_with_the_reason() -> None:
    command = [{"type": "command", "command": "true"}]
    assert claude_problem("antigravity", _group("PreToolUse", command)) == (
        "Claude-protocol hook; no translation to antigravity")
    assert claude_problem("opencode", _group("PreToolUse", command)) is None
    assert claude_problem("opencode", _group("SessionStart", command)) == (
        "Claude-protocol hook on SessionStart: OpenCode's plugin bridge only observes "
        "session.created, so the handler's answer (block, context, stop) would be lost")
    assert claude_problem("gemini_cli", _group("PermissionRequest", command)) == (
        "Claude-protocol hook on PermissionRequest: no translation to gemini_cli for it yet")
    prompt = [{"type": "prompt", "prompt": "ok?"}]
    assert claude_problem("codex", _group("Stop", prompt)) == (
        "Claude-protocol hook with prompt handlers: the wrapper runs only command handlers "
        "on codex")
    assert claude_problem("codex", _group("Stop", command)) is None


def test_delivery_puts_the_wrapper_on_the_native_event_without_a_native_matcher() -> None:
    group = ClaudeHookGroup("PreToolUse-0", "PreToolUse", {
        "matcher": "Bash", "hooks": [{"type": "command", "command": "x", "timeout": 7}]})
    root = Path("/w")
    d = deliver_claude_group("gemini_cli", group, "pkg", root, Path("/p"))
    assert (d.route, d.wrapper is not None) == ("adapted", True)
    assert d.element is not None
    assert d.element.key_path == ("hooks", "BeforeTool")
    assert d.element.value == {"hooks": [{
        "type": "command", "command": "/w/gemini_cli/claude-PreToolUse-0.py",
        "timeout": 12000, "name": "pkg/PreToolUse-0"}]}
    codex = deliver_claude_group("codex", group, "pkg", root, Path("/p"))
    assert codex.route == "degraded"
    assert "unified_exec" in codex.reason
    opencode = deliver_claude_group("opencode", group, "pkg", root, Path("/p"))
    assert (opencode.route, opencode.element) == ("adapted", None)
    assert opencode.bridge is not None
    assert (opencode.bridge.event, opencode.bridge.tools, opencode.bridge.blocking) == (
        "PreToolUse", None, False)
    assert opencode.bridge.wrapper == "/w/opencode/claude-PreToolUse-0.py"


def test_opencode_gets_the_deny_its_plugin_throws(tmp_path: Path) -> None:
    command = handler(tmp_path, "echo 'rm is blocked' >&2; exit 2")
    native = {"hook_event_name": "tool.execute.before", "tool_name": "bash",
              "tool_input": {"command": "rm -rf x", "description": "d"}, "cwd": str(tmp_path)}
    code, out, _ = run(tmp_path, "opencode", "PreToolUse", [command], native, matcher="Bash")
    seen = json.loads((tmp_path / "h.sh.in").read_text(encoding="utf-8"))
    assert (seen["tool_name"], seen["tool_input"]["command"]) == ("Bash", "rm -rf x")
    assert (code, out) == (0, {"decision": "deny", "reason": "rm is blocked"})


@pytest.mark.parametrize("harness", ["gemini_cli", "codex"])
def test_user_prompt_submit_gets_the_prompt_and_its_stdout_is_context(
    tmp_path: Path, harness: str
) -> None:
    command = handler(tmp_path, "echo remember the tests")
    native = {"cwd": str(tmp_path), "prompt": "fix it"}
    _, out, _ = run(tmp_path, harness, "UserPromptSubmit", [command], native)
    seen = json.loads((tmp_path / "h.sh.in").read_text(encoding="utf-8"))
    assert (seen["hook_event_name"], seen["prompt"]) == ("UserPromptSubmit", "fix it")
    assert out == {"hookSpecificOutput": {"hookEventName": NATIVE[harness, "UserPromptSubmit"],
                                          "additionalContext": "remember the tests"}}



def test_compact_end_and_notify_name_what_codex_and_opencode_have() -> None:
    command = [{"type": "command", "command": "true"}]
    notify = str(claude_problem("codex", _group("Notification", command)))
    assert "Codex has no notification hook event" in notify and "PreCompact" in notify
    reason = str(claude_problem("codex", _group("PreCompact", command)))
    assert "Codex 0.171.0 has a PreCompact hook event" in reason, reason
    assert "model_auto_compact_token_limit" in reason, reason
    assert claude_problem("codex", _group("SessionEnd", command)) is None
    assert "experimental.session.compacting" in str(
        claude_problem("opencode", _group("PreCompact", command)))
    assert "OpenCode has no event for a session's end" in str(
        claude_problem("opencode", _group("SessionEnd", command)))
    assert "OpenCode has no notification hook" in str(
        claude_problem("opencode", _group("Notification", command)))
    for harness in ("codex", "opencode"):
        for event in ("PreCompact", "SessionEnd", "Notification"):
            assert "for it yet" not in str(claude_problem(harness, _group(event, command)))
    root = PurePosixPath("/uze")
    end = deliver_claude_group("codex", _group("SessionEnd", command), "pkg", root, root)
    assert (end.route, end.reason.split(";")[0]) == ("degraded", (
        "Codex clamps a SessionEnd hook's timeout to 3 s: a handler still running then is "
        "stopped"))
    compact = deliver_claude_group("gemini_cli", _group("PreCompact", command), "pkg", root, root)
    assert compact.route == "degraded" and "before each of the agent's model" in compact.reason
    assert deliver_claude_group("gemini_cli", _group("SessionEnd", command), "pkg", root,
                                root).route == "adapted"
