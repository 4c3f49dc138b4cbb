"""Generated hook wrappers, run for real: native stdin in, native decision out, per harness.

Each wrapper runs as `python -I -S <script>`: without site-packages uze cannot be imported, so
these tests also show that nothing of uze is on the execution path.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest

from uze.hooks.wrapper import render_wrapper
from uze.package.hooks import HookGroup

PY = sys.executable
NATIVE_SHELL = {
    "claude_code": "Bash",
    "codex": "Bash",
    "gemini_cli": "run_shell_command",
    "kimi_code": "Bash",
    "opencode": "bash",
    "antigravity": "run_command",
}
NATIVE_EVENT = {
    "claude_code": "PreToolUse",
    "codex": "PreToolUse",
    "gemini_cli": "BeforeTool",
    "kimi_code": "PreToolUse",
    "opencode": "tool.execute.before",  # as the generated plugin sends it
    "antigravity": "PreToolUse",  # not in its input: no event name, no cwd (harnesses.md 5.5)
}
HARNESSES = tuple(NATIVE_SHELL)


@dataclass(frozen=True)
class Answer:
    code: int
    stdout: str
    stderr: str

    @property
    def json(self) -> Any:
        return json.loads(self.stdout)


def py(code: str, timeout: int = 30) -> dict[str, Any]:
    """A handler in exec form: this interpreter running `code`."""
    return {"type": "command", "command": PY, "args": ["-c", code], "timeout": timeout}


def sh(line: str, timeout: int = 30) -> dict[str, Any]:
    """A handler in shell form."""
    return {"type": "command", "command": line, "timeout": timeout}


def native_input(harness: str, tool: str | None = None, **tool_input: Any) -> dict[str, Any]:
    if harness == "antigravity":
        call = {"name": tool or NATIVE_SHELL[harness], "args": tool_input or {"command": "ls -la"}}
        return {"toolCall": call, "stepIdx": 1, "conversationId": "c1",
                "workspacePaths": [str(Path.cwd())]}
    return {
        "session_id": "s1",
        "hook_event_name": NATIVE_EVENT[harness],
        "cwd": str(Path.cwd()),
        "tool_name": tool or NATIVE_SHELL[harness],
        "tool_input": tool_input or {"command": "ls -la"},
    }


def run_wrapper(
    tmp: Path,
    harness: str,
    handlers: list[dict[str, Any]],
    *,
    effect: str = "deny",
    matcher: str | None = "shell",
    event: str = "PreToolUse",
    stdin: dict[str, Any] | str | None = None,
) -> Answer:
    group = msgspec.convert({"matcher": matcher, "effect": effect, "hooks": handlers}, HookGroup)
    script = tmp / f"wrapper-{harness}.py"
    script.write_bytes(render_wrapper(harness, event, group, str(tmp / "root"), "pkg/guard"))
    data = stdin if stdin is not None else native_input(harness)
    text = data if isinstance(data, str) else json.dumps(data)
    done = subprocess.run(
        [PY, "-I", "-S", str(script)], input=text, capture_output=True, text=True, timeout=60
    )
    return Answer(done.returncode, done.stdout, done.stderr)


def assert_denied(answer: Answer, harness: str, reason: str) -> None:
    if harness == "claude_code":
        assert answer.code == 0
        assert answer.json == {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }
    elif harness in ("gemini_cli", "opencode", "antigravity"):
        assert answer.code == 0
        assert answer.json == {"decision": "deny", "reason": reason}
    else:
        assert (answer.code, answer.stdout, answer.stderr) == (2, "", reason + "\n")


def assert_passed(answer: Answer, harness: str = "") -> None:
    """Nothing decided: silence, except Antigravity, where a PreToolUse hook must decide."""
    quiet = '{"decision": "allow"}\n' if harness == "antigravity" else ""
    assert (answer.code, answer.stdout, answer.stderr) == (0, quiet, "")


@pytest.mark.parametrize("harness", HARNESSES)
def test_deny_answers_in_the_harness_native_form(tmp_path: Path, harness: str) -> None:
    handler = sh("echo 'no rm here' >&2; exit 3")
    assert_denied(run_wrapper(tmp_path, harness, [handler]), harness, "no rm here")


@pytest.mark.parametrize("harness", HARNESSES)
def test_allow_from_every_handler_lets_the_call_through_silently(
    tmp_path: Path, harness: str
) -> None:
    assert_passed(run_wrapper(tmp_path, harness, [sh("exit 0"), py("pass")]), harness)


@pytest.mark.parametrize("harness", HARNESSES)
def test_deny_reason_is_the_first_4096_bytes_of_stderr(tmp_path: Path, harness: str) -> None:
    handler = py("import sys; sys.stderr.write('x' * 5000 + 'END'); sys.exit(3)")
    assert_denied(run_wrapper(tmp_path, harness, [handler]), harness, "x" * 4096)


@pytest.mark.parametrize("harness", HARNESSES)
@pytest.mark.parametrize(
    ("handler", "reason"),
    [
        (sh("exit 1"), "hook handler exit 1 failed with exit status 1"),
        (py("raise SystemExit(7)"), f"hook handler {PY} failed with exit status 7"),
        (
            {"type": "command", "command": "/no/such/handler", "args": []},
            "hook handler /no/such/handler could not start: [Errno 2] No such file or "
            "directory: '/no/such/handler'",
        ),
    ],
    ids=["exit-1", "crash", "missing"],
)
def test_a_failing_handler_denies_in_a_deny_group(
    tmp_path: Path, harness: str, handler: dict[str, Any], reason: str
) -> None:
    assert_denied(run_wrapper(tmp_path, harness, [handler]), harness, reason)


@pytest.mark.parametrize("effect", ["observe", "allow"])
@pytest.mark.parametrize("harness", HARNESSES)
def test_a_failing_handler_lets_the_call_through_in_observe_and_allow_groups(
    tmp_path: Path, harness: str, effect: str
) -> None:
    answer = run_wrapper(tmp_path, harness, [sh("exit 1"), sh("kill -9 $$")], effect=effect)
    assert_passed(answer, harness)


@pytest.mark.parametrize("harness", HARNESSES)
def test_a_handler_past_its_deadline_is_killed_with_its_children(
    tmp_path: Path, harness: str
) -> None:
    pid_file = tmp_path / "grandchild.pid"
    handler = sh(f"sleep 120 & echo $! > '{pid_file}'; sleep 120", timeout=1)
    started = time.monotonic()
    answer = run_wrapper(tmp_path, harness, [handler])
    assert time.monotonic() - started < 20
    command = handler["command"]
    assert_denied(answer, harness, f"hook handler {command} timed out after 1 s")
    assert not _is_alive(int(pid_file.read_text()))


def test_a_child_left_behind_by_a_finished_handler_is_killed(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    handler = sh(f"sleep 120 & echo $! > '{pid_file}'; exit 0")
    assert_passed(run_wrapper(tmp_path, "claude_code", [handler]))
    assert not _is_alive(int(pid_file.read_text()))


def _is_alive(pid: int) -> bool:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except FileNotFoundError:
            return False
        if stat.rsplit(")", 1)[1].split()[0] == "Z":  # a zombie is dead, just not reaped
            return False
        time.sleep(0.05)
    return True


@pytest.mark.parametrize("harness", HARNESSES)
def test_handlers_run_in_order_and_the_first_deny_wins(tmp_path: Path, harness: str) -> None:
    log = tmp_path / "log"
    handlers = [
        sh(f"echo one >> '{log}'"),
        sh(f"echo two >> '{log}'; echo first >&2; exit 3"),
        sh(f"echo three >> '{log}'; echo second >&2; exit 3"),
    ]
    assert_denied(run_wrapper(tmp_path, harness, handlers), harness, "first")
    assert log.read_text() == "one\ntwo\n"


@pytest.mark.parametrize("harness", HARNESSES)
def test_a_tool_the_matcher_does_not_name_runs_no_handler(tmp_path: Path, harness: str) -> None:
    marker = tmp_path / "ran"
    handler = sh(f"touch '{marker}'; exit 3")
    answer = run_wrapper(tmp_path, harness, [handler], matcher="file.write|native:Other")
    assert_passed(answer, harness)
    assert not marker.exists()


def test_a_native_matcher_names_the_tool_exactly(tmp_path: Path) -> None:
    stdin = native_input("claude_code", "mcp__db__query", sql="drop table x")
    handler = sh("echo $HOOK_TOOL_NATIVE >&2; exit 3")
    answer = run_wrapper(
        tmp_path, "claude_code", [handler], matcher="native:mcp__db__query", stdin=stdin
    )
    assert_denied(answer, "claude_code", "mcp__db__query")


DUMP_ENV = (
    "import json, os\n"
    "seen = {k: v for k, v in os.environ.items() if k.startswith(('HOOK_', 'PLUGIN_ROOT'))}\n"
    "print(json.dumps(seen), file=open(os.environ['DUMP'], 'w'))"
)


def _env_seen(tmp: Path, harness: str, matcher: str, stdin: dict[str, Any]) -> dict[str, str]:
    dump = tmp / "env.json"
    os.environ["DUMP"] = str(dump)
    try:
        assert_passed(run_wrapper(tmp, harness, [py(DUMP_ENV)], matcher=matcher, stdin=stdin))
    finally:
        del os.environ["DUMP"]
    return json.loads(dump.read_text())  # type: ignore[no-any-return]


def test_a_shell_call_gives_the_handler_its_command(tmp_path: Path) -> None:
    stdin = native_input("claude_code", "Bash", command="git push --force")
    env = _env_seen(tmp_path, "claude_code", "shell", stdin)
    assert env == {
        "HOOK_HARNESS": "claude_code",
        "HOOK_EVENT": "PreToolUse",
        "HOOK_TOOL": "shell",
        "HOOK_TOOL_NATIVE": "Bash",
        "HOOK_CWD": str(Path.cwd()),
        "HOOK_INPUT": json.dumps({"command": "git push --force"}),
        "HOOK_COMMAND": "git push --force",
        "PLUGIN_ROOT": str(tmp_path / "root"),
    }


@pytest.mark.parametrize(
    ("harness", "tool", "tool_input", "alias", "path"),
    [
        ("claude_code", "Write", {"file_path": "/p/a.py", "content": "x"}, "file.write", "/p/a.py"),
        ("claude_code", "Edit", {"file_path": "/p/b.py"}, "file.edit", "/p/b.py"),
        ("gemini_cli", "write_file", {"file_path": "/p/c.py"}, "file.write", "/p/c.py"),
        ("gemini_cli", "read_file", {"absolute_path": "/p/d.py"}, "file.read", "/p/d.py"),
        ("kimi_code", "Read", {"file_path": "/p/e.py"}, "file.read", "/p/e.py"),
        (
            "codex",
            "apply_patch",
            {"command": "*** Begin Patch\n*** Update File: src/f.py\n@@\n-a\n+b\n*** End Patch"},
            "file.edit",
            "src/f.py",
        ),
    ],
)
def test_a_file_tool_gives_the_handler_its_path(
    tmp_path: Path, harness: str, tool: str, tool_input: dict[str, Any], alias: str, path: str
) -> None:
    stdin = native_input(harness, tool, **tool_input)
    env = _env_seen(tmp_path, harness, alias, stdin)
    assert (env["HOOK_TOOL"], env["HOOK_TOOL_NATIVE"], env["HOOK_PATH"]) == (alias, tool, path)
    assert json.loads(env["HOOK_INPUT"]) == tool_input
    assert "HOOK_COMMAND" not in env


def test_a_web_search_gives_the_handler_its_query(tmp_path: Path) -> None:
    stdin = native_input("gemini_cli", "google_web_search", query="uze hooks")
    env = _env_seen(tmp_path, "gemini_cli", "search.web", stdin)
    assert (env["HOOK_TOOL"], env["HOOK_QUERY"]) == ("search.web", "uze hooks")


DUMP_ARGS = "import json, os, sys; json.dump(sys.argv[1:], open(os.environ['DUMP'], 'w'))"


@pytest.mark.parametrize("harness", HARNESSES)
def test_args_reach_the_handler_untouched(
    tmp_path: Path, harness: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["'single' \"double\"", "$HOME", "`id`", "$(id)", "a b", "${PLUGIN_ROOT}", "*"]
    handler = {"type": "command", "command": PY, "args": ["-c", DUMP_ARGS, *args]}
    monkeypatch.setenv("DUMP", str(tmp_path / "argv.json"))
    assert_passed(run_wrapper(tmp_path, harness, [handler]), harness)
    assert json.loads((tmp_path / "argv.json").read_text()) == args


def test_plugin_root_and_dot_slash_commands_resolve_to_the_package_copy(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "check.sh").write_text("#!/bin/sh\necho \"root=$PLUGIN_ROOT\" >&2\nexit 3\n")
    (root / "check.sh").chmod(0o755)
    for handler in (sh("./check.sh"), {"type": "command", "command": "./check.sh", "args": []}):
        answer = run_wrapper(tmp_path, "kimi_code", [handler])
        assert (answer.code, answer.stderr) == (2, f"root={root}\n")


@pytest.mark.parametrize("harness", ["claude_code", "gemini_cli"])
def test_transform_output_becomes_the_rewritten_input(tmp_path: Path, harness: str) -> None:
    first = py(
        "import json, os; i = json.loads(os.environ['HOOK_INPUT'])\n"
        "i['command'] += ' --dry-run'; print(json.dumps(i))"
    )
    second = py("import json, sys; i = json.load(sys.stdin); i['n'] = 1; print(json.dumps(i))")
    answer = run_wrapper(tmp_path, harness, [first, second], effect="transform")
    rewritten = {"command": "ls -la --dry-run", "n": 1}
    assert answer.code == 0
    if harness == "claude_code":
        assert answer.json == {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "ask",
                "updatedInput": rewritten,
                "permissionDecisionReason": "input rewritten by hook pkg/guard",
            }
        }
    else:
        assert answer.json == {
            "hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": rewritten}
        }


@pytest.mark.parametrize(
    ("output", "reason"),
    [
        ("print('[1, 2]')", "transform output is not one JSON object"),
        ("print('{not json')", "transform output is not one JSON object"),
        ("print('{\"a\": \"' + 'x' * 70000 + '\"}')", "transform output is larger than 64 KiB"),
    ],
    ids=["array", "garbage", "too-big"],
)
def test_bad_transform_output_denies(tmp_path: Path, output: str, reason: str) -> None:
    answer = run_wrapper(tmp_path, "claude_code", [py(output)], effect="transform")
    assert_denied(answer, "claude_code", reason)


def test_transform_with_no_output_leaves_the_call_alone(tmp_path: Path) -> None:
    assert_passed(run_wrapper(tmp_path, "claude_code", [sh("exit 0")], effect="transform"))


def test_allow_and_ask_groups_answer_with_claude_permission_decisions(tmp_path: Path) -> None:
    allowed = run_wrapper(tmp_path, "claude_code", [sh("exit 0")], effect="allow")
    assert allowed.json["hookSpecificOutput"]["permissionDecision"] == "allow"
    asked = run_wrapper(tmp_path, "claude_code", [sh("echo sure? >&2; exit 3")], effect="ask")
    assert asked.json["hookSpecificOutput"] == {
        "hookEventName": "PreToolUse",
        "permissionDecision": "ask",
        "permissionDecisionReason": "sure?",
    }
    failed = run_wrapper(tmp_path, "claude_code", [sh("exit 9")], effect="ask")
    assert failed.json["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_an_observe_group_never_blocks(tmp_path: Path) -> None:
    answer = run_wrapper(tmp_path, "claude_code", [sh("exit 3")], effect="observe")
    assert_passed(answer)


def test_a_deny_on_stop_keeps_claude_going(tmp_path: Path) -> None:
    stdin = {"hook_event_name": "Stop", "cwd": str(Path.cwd()), "stop_hook_active": False}
    handler = sh('test -z "$HOOK_TOOL" && echo "tests still fail" >&2; exit 3')
    answer = run_wrapper(tmp_path, "claude_code", [handler], event="Stop", stdin=stdin)
    assert answer.json == {"decision": "block", "reason": "tests still fail"}


@pytest.mark.parametrize(("effect", "denies"), [("deny", True), ("observe", False)])
def test_unreadable_hook_input_follows_the_failure_rule(
    tmp_path: Path, effect: str, denies: bool
) -> None:
    answer = run_wrapper(tmp_path, "codex", [sh("exit 0")], effect=effect, stdin="[not json")
    assert answer.code == (2 if denies else 0)
    assert answer.stderr.startswith("hook pkg/guard failed: ") == denies


def test_the_wrapper_is_deterministic_and_standalone(tmp_path: Path) -> None:
    group = msgspec.convert({"hooks": [sh("true")]}, HookGroup)
    one = render_wrapper("codex", "PreToolUse", group, "/r", "pkg/a\nb")
    assert one == render_wrapper("codex", "PreToolUse", group, "/r", "pkg/a\nb")
    assert one.startswith(b"#!/usr/bin/env python3\n# Generated by uze for the hook pkg/a b ")
    assert b"import uze" not in one and b"from uze" not in one


@pytest.mark.parametrize(("harness", "event"), [("nope", "PreToolUse"), ("", "Stop")])
def test_no_wrapper_for_a_harness_without_command_hooks(harness: str, event: str) -> None:
    group = msgspec.convert({"hooks": [sh("true")]}, HookGroup)
    with pytest.raises(ValueError, match="no hook wrapper"):
        render_wrapper(harness, event, group, "/r", "pkg/a")


def test_a_deny_on_stop_in_codex_is_a_block_decision(tmp_path: Path) -> None:
    stdin = {"hook_event_name": "Stop", "cwd": str(Path.cwd()), "stop_hook_active": False}
    handler = sh("echo again >&2; exit 3")
    answer = run_wrapper(tmp_path, "codex", [handler], event="Stop", stdin=stdin)
    assert (answer.code, answer.json) == (0, {"decision": "block", "reason": "again"})


def test_the_wrapper_parses_as_python_3_8() -> None:
    group = msgspec.convert({"hooks": [sh("true")]}, HookGroup)
    ast.parse(render_wrapper("gemini_cli", "PreToolUse", group, "/r", "p/a"),
              feature_version=(3, 8))
