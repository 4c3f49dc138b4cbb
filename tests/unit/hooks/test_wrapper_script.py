"""The wrapper's runtime is a real module: importable, and exactly what every script runs."""

from __future__ import annotations

from collections.abc import Iterator

import msgspec
import pytest

from uze.hooks import wrapper_script as ws
from uze.hooks.wrapper import SCRIPT, render_wrapper
from uze.package.hooks import HookGroup


@pytest.fixture
def config(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, object]]:
    """The module's CONFIG, as a generated script's first line would set it."""
    value: dict[str, object] = {"native_event": "PreToolUse", "label": "pkg/guard"}
    monkeypatch.setattr(ws, "CONFIG", value)
    yield value


def test_tool_fields_read_the_command_path_and_patch_text() -> None:
    assert ws.tool_fields("shell", {"command": ["git", "push"]}) == {"HOOK_COMMAND": "git push"}
    patch = "*** Begin Patch\n*** Update File: src/a.py\n@@\n"
    assert ws.tool_fields("file.edit", {"input": patch}) == {"HOOK_PATH": "src/a.py"}
    assert ws.tool_fields("search.web", {"query": "uze"}) == {"HOOK_QUERY": "uze"}
    assert ws.tool_fields("shell", "not a dict") == {}


def test_each_harness_answers_a_deny_in_its_own_form(config: dict[str, object]) -> None:
    assert ws.answer_codex("deny", "no") == (None, "no", 2)
    assert ws.answer_gemini("deny", "no") == ({"decision": "deny", "reason": "no"}, "", 0)
    assert ws.answer_antigravity("allow", "") == ({"decision": "allow"}, "", 0)
    out, _, code = ws.answer_claude("deny", "no")
    assert code == 0 and out == {"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "deny",
        "permissionDecisionReason": "no"}}
    config["native_event"] = "Stop"
    assert ws.answer_codex("deny", "again") == ({"decision": "block", "reason": "again"}, "", 0)


def test_a_script_is_its_config_line_then_the_module_less_its_module_only_lines() -> None:
    group = msgspec.convert({"hooks": [{"type": "command", "command": "true"}]}, HookGroup)
    script = render_wrapper("codex", "PreToolUse", group, "/r", "pkg/a").decode()
    body = SCRIPT.read_text(encoding="utf-8").split("# uze:script-begin\n", 1)[1]
    kept = [line for line in body.splitlines() if line and "uze:module-only" not in line
            and line != "CONFIG: Any = {}"]
    assert [line for line in script.splitlines() if line][-len(kept):] == kept
    assert "CONFIG: Any" not in script and "uze:module-only" not in script
    assert script.count("\nCONFIG = ") == 1
