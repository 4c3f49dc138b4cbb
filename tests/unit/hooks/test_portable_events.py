"""The capability map's other events and the prompt/agent handlers in portable hooks (adr/0089):
each event's tier per harness as planned before anything is attached, and what the wrapper
gives a handler of an event without a tool.
"""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath
from typing import Any

import msgspec
import pytest

from tests.unit.hooks.test_wrapper import run_wrapper, sh
from uze.hooks.delivery import GroupDelivery, deliver_hooks
from uze.package.hooks import HooksFile

ROOT = PurePosixPath("/uze")
MORE = ("UserPromptSubmit", "SubagentStop", "SessionEnd", "PreCompact", "Notification")
# The tier each harness's real binary earned per event (adr/0089; docs/compatibility.md).
TIERS: dict[str, dict[str, str]] = {
    "claude_code": dict.fromkeys(MORE, "native"),
    "codex": {"UserPromptSubmit": "adapted", "SubagentStop": "adapted",
              "SessionEnd": "degraded", "PreCompact": "unsupported",
              "Notification": "unsupported"},
    "gemini_cli": {"UserPromptSubmit": "native", "SubagentStop": "unsupported",
                   "SessionEnd": "native", "PreCompact": "degraded",
                   "Notification": "unsupported"},
    "opencode": dict.fromkeys(MORE, "unsupported"),
    "antigravity": dict.fromkeys(MORE, "unsupported"),
    "kimi_code": dict.fromkeys(MORE, "unsupported"),
    "deepseek_harness": dict.fromkeys(MORE, "unsupported"),
}
# Why, in words the reason must carry (what was tried or seen on the real binary).
WHY: dict[tuple[str, str], str] = {
    ("codex", "SessionEnd"): "3 s",
    ("codex", "PreCompact"): "model_auto_compact_token_limit",
    ("codex", "Notification"): "no notification hook event",
    ("gemini_cli", "SubagentStop"): "no event for a subagent's end",
    ("gemini_cli", "PreCompact"): "before each of the agent's model requests",
    ("gemini_cli", "Notification"): "confirm a tool call",
    ("opencode", "UserPromptSubmit"): "chat.message",
    ("opencode", "SessionEnd"): "no event for a session's end",
    ("opencode", "PreCompact"): "experimental.session.compacting",
    ("antigravity", "Notification"): "no real binary has been run",
    ("kimi_code", "SessionEnd"): "no real binary has been run",
}


def delivered(harness: str, events: dict[str, Any]) -> dict[str, GroupDelivery]:
    hooks = msgspec.convert({"hooks": events}, HooksFile)
    return {d.group: d for d in deliver_hooks(harness, hooks, "pkg", ROOT / "w", ROOT / "r")}


def logging_group() -> dict[str, Any]:
    return {"hooks": [{"type": "command", "command": "./log.sh"}]}


@pytest.mark.parametrize("harness", sorted(TIERS))
def test_each_new_event_has_the_tier_the_real_binary_earned(harness: str) -> None:
    found = delivered(harness, {event: [logging_group()] for event in MORE})
    assert {d.event: d.route for d in found.values()} == TIERS[harness]
    for d in found.values():
        if d.route != "native":
            assert d.reason, d  # degraded and unsupported say why
        if d.route == "unsupported":  # refused at plan time: nothing to attach
            assert (d.wrapper, d.element, d.bridge) == (None, None, None), d
        else:
            assert d.wrapper is not None, d
        want = WHY.get((harness, d.event))
        assert want is None or want in d.reason, (want, d.reason)


@pytest.mark.parametrize(("harness", "native"), [
    ("claude_code", "UserPromptSubmit"), ("codex", "UserPromptSubmit"),
    ("gemini_cli", "BeforeAgent"),
])
def test_a_deny_on_user_prompt_submit_goes_to_the_native_blocking_event(
        harness: str, native: str) -> None:
    group = {"effect": "deny", **logging_group()}
    (d,) = delivered(harness, {"UserPromptSubmit": [group]}).values()
    assert d.route in ("native", "adapted"), d
    assert d.element is not None and d.element.key_path == ("hooks", native)
    assert "matcher" not in d.element.value  # no tool: no matcher


@pytest.mark.parametrize("harness", ["gemini_cli", "opencode"])
def test_a_deny_on_subagent_stop_is_refused_where_the_event_is_absent(harness: str) -> None:
    (d,) = delivered(harness, {"SubagentStop": [{"effect": "deny", **logging_group()}]}).values()
    assert d.route == "unsupported" and d.element is None and d.wrapper is None


def test_a_deny_on_session_end_is_refused_everywhere_it_cannot_block() -> None:
    for harness in ("claude_code", "codex", "gemini_cli"):
        (d,) = delivered(harness, {"SessionEnd": [{"effect": "deny", **logging_group()}]}).values()
        assert d.route == "unsupported", d
        assert "cannot deny on SessionEnd" in d.reason, d


PROMPT = {"type": "prompt", "prompt": "Is every test green? $ARGUMENTS", "timeout": 40}
AGENT = {"type": "agent", "prompt": "Verify the tests ran.", "model": "claude-haiku"}


@pytest.mark.parametrize("handler", [PROMPT, AGENT], ids=["prompt", "agent"])
def test_claude_code_gets_prompt_and_agent_handlers_as_written_with_no_wrapper(
        handler: dict[str, Any]) -> None:
    events = {"Stop": [{"id": "judge", "effect": "deny", "hooks": [handler]}],
              "PreToolUse": [{"id": "guard", "matcher": "shell", "effect": "deny",
                              "hooks": [handler]}]}
    found = delivered("claude_code", events)
    judge, guard = found["judge"], found["guard"]
    assert judge.wrapper is None and judge.element is not None
    assert judge.element.key_path == ("hooks", "Stop")
    assert judge.element.value == {"hooks": [{"timeout": 30, **handler}]}
    assert judge.marker == handler["prompt"]
    assert judge.route == "adapted" and "keep going" in judge.reason
    assert guard.element is not None and guard.route == "native"
    assert guard.element.value["matcher"] == "^(?:Bash)$"


@pytest.mark.parametrize("event", ["SessionStart", "SessionEnd", "PreCompact", "Notification"])
def test_claude_code_refuses_a_prompt_handler_where_no_conversation_is_present(event: str) -> None:
    (d,) = delivered("claude_code", {event: [{"effect": "deny", "hooks": [PROMPT]}]}).values()
    assert d.route == "unsupported"
    assert "only on PreToolUse, PostToolUse, Stop, UserPromptSubmit, SubagentStop" in d.reason


@pytest.mark.parametrize(("harness", "words"), [
    ("codex", "Codex 0.171.0 skips prompt hook handlers"),
    ("gemini_cli", "runs command hooks only"),
    ("opencode", "runs command handlers only"),
    ("kimi_code", "does not run prompt hook handlers"),
])
def test_other_harnesses_refuse_prompt_handlers_before_attach(harness: str, words: str) -> None:
    (d,) = delivered(harness, {"Stop": [{"effect": "deny", "hooks": [PROMPT]}]}).values()
    assert (d.route, d.wrapper, d.element, d.bridge) == ("unsupported", None, None, None)
    assert words in d.reason


@pytest.mark.parametrize(("harness", "native"), [
    ("claude_code", {"hook_event_name": "UserPromptSubmit", "prompt": "ship it"}),
    ("codex", {"hook_event_name": "UserPromptSubmit", "prompt": "ship it", "turn_id": "t"}),
    ("gemini_cli", {"hook_event_name": "BeforeAgent", "prompt": "ship it"}),
])
def test_a_prompt_event_gives_the_handler_the_prompt(
        tmp_path: Path, harness: str, native: dict[str, Any]) -> None:
    seen = tmp_path / "seen.json"
    handler = sh(f"printf '%s' \"$HOOK_INPUT\" > {seen}; cat > {seen}.stdin; exit 3")
    answer = run_wrapper(tmp_path, harness, [handler], matcher=None, event="UserPromptSubmit",
                         stdin={**native, "session_id": "s", "cwd": str(tmp_path)})
    assert json.loads(seen.read_text()) == {"prompt": "ship it"}
    assert json.loads((tmp_path / "seen.json.stdin").read_text()) == {"prompt": "ship it"}
    assert answer.code == 0 and answer.json["decision"] in ("block", "deny"), answer
