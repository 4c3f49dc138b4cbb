"""The generated wrapper gives a PreCompact, SessionEnd or Notification handler Claude's hook
JSON from Gemini CLI's own input (PreCompress `trigger`, SessionEnd `reason`, Notification
`notification_type`/`message`/`details`, as Gemini CLI 0.61.0 sends them), and applies the
group's matcher to the field Claude matches for the event."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.unit.hooks.test_claude_wrapper import handler, run

BASE = {"session_id": "s1", "transcript_path": "/t.json", "timestamp": "2026-12-05T00:00:00Z"}


def seen(tmp_path: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads((tmp_path / "h.sh.in").read_text(encoding="utf-8"))
    return value


@pytest.mark.parametrize(("native_reason", "reason"), [
    ("exit", "other"), ("clear", "clear"), ("logout", "logout"),
    ("prompt_input_exit", "prompt_input_exit"), (None, "other"), (7, "other"),
])
def test_session_end_reason_is_one_of_claudes(
    tmp_path: Path, native_reason: object, reason: str
) -> None:
    native = {**BASE, "cwd": str(tmp_path), "hook_event_name": "SessionEnd"}
    if native_reason is not None:
        native["reason"] = native_reason
    code, out, _ = run(tmp_path, "gemini_cli", "SessionEnd", [handler(tmp_path, "exit 0")],
                       native)
    assert (code, out) == (0, None)
    assert seen(tmp_path) == {
        "session_id": "s1", "transcript_path": "/t.json", "cwd": str(tmp_path),
        "hook_event_name": "SessionEnd", "permission_mode": "default", "reason": reason}


def test_session_end_matcher_is_on_the_reason(tmp_path: Path) -> None:
    native = {**BASE, "cwd": str(tmp_path), "hook_event_name": "SessionEnd", "reason": "clear"}
    command = handler(tmp_path, "exit 0")
    run(tmp_path, "gemini_cli", "SessionEnd", [command], native, matcher="logout|other")
    assert not (tmp_path / "h.sh.in").exists()
    run(tmp_path, "gemini_cli", "SessionEnd", [command], native, matcher="clear")
    assert seen(tmp_path)["reason"] == "clear"


@pytest.mark.parametrize(("trigger", "claude"), [("manual", "manual"), ("auto", "auto"),
                                                 (None, "auto")])
def test_pre_compress_is_claudes_pre_compact(
    tmp_path: Path, trigger: str | None, claude: str
) -> None:
    native = {**BASE, "cwd": str(tmp_path), "hook_event_name": "PreCompress"}
    if trigger is not None:
        native["trigger"] = trigger
    command = handler(tmp_path, "exit 0")
    run(tmp_path, "gemini_cli", "PreCompact", [command], native, matcher="manual")
    assert (tmp_path / "h.sh.in").exists() == (claude == "manual")
    run(tmp_path, "gemini_cli", "PreCompact", [command], native)
    data = seen(tmp_path)
    assert (data["hook_event_name"], data["trigger"], data["custom_instructions"]) == (
        "PreCompact", claude, "")
    assert "timestamp" not in data


def test_notification_type_and_message_are_claudes(tmp_path: Path) -> None:
    native = {**BASE, "cwd": str(tmp_path), "hook_event_name": "Notification",
              "notification_type": "ToolPermission", "message": "Allow run_shell_command?",
              "details": {"type": "exec", "command": "ls"}}
    command = handler(tmp_path, "exit 0")
    run(tmp_path, "gemini_cli", "Notification", [command], native, matcher="idle_prompt")
    assert not (tmp_path / "h.sh.in").exists()
    code, out, _ = run(tmp_path, "gemini_cli", "Notification", [command], native,
                       matcher="permission_prompt")
    data = seen(tmp_path)
    assert (code, out) == (0, None)
    assert {k: data[k] for k in ("hook_event_name", "notification_type", "message")} == {
        "hook_event_name": "Notification", "notification_type": "permission_prompt",
        "message": "Allow run_shell_command?"}
    assert "details" not in data
    run(tmp_path, "gemini_cli", "Notification", [command], {"cwd": str(tmp_path), "message": 3})
    assert {k: seen(tmp_path)[k] for k in ("notification_type", "message")} == {
        "notification_type": "", "message": ""}


@pytest.mark.parametrize("event", ["SessionEnd", "PreCompact", "Notification"])
def test_exit_2_does_not_block_where_claude_cannot(tmp_path: Path, event: str) -> None:
    command = handler(tmp_path, "echo no >&2; exit 2")
    code, out, _ = run(tmp_path, "gemini_cli", event, [command],
                       {"cwd": str(tmp_path), "reason": "exit", "trigger": "auto"})
    assert (code, out) == (0, None)
