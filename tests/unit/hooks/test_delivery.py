"""Hook delivery per harness: wrapper files, native config elements, honest unsupported cells."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path, PurePosixPath
from typing import Any

import msgspec
import pytest

from uze.hooks.delivery import GroupDelivery, deliver_hooks, opencode_bridge
from uze.package.hooks import HooksFile
from uze.projections.config_array import append_element, equal_to, remove_element

WRAPPERS = PurePosixPath("/p/.uze/hooks/pkg")
ROOT = PurePosixPath("/p/.uze/packages/pkg")
DENY = {"type": "command", "command": "./no-rm.sh", "timeout": 10}


def _hooks(event: str = "PreToolUse", **group: Any) -> HooksFile:
    group.setdefault("hooks", [DENY])
    return msgspec.convert({"hooks": {event: [group]}}, HooksFile)


def _one(harness: str, hooks: HooksFile) -> GroupDelivery:
    (delivered,) = deliver_hooks(harness, hooks, "pkg", WRAPPERS, ROOT)
    return delivered


def test_claude_gets_a_settings_element_running_the_wrapper() -> None:
    d = _one("claude_code", _hooks(id="no rm!", matcher="shell|file.edit", effect="deny"))
    assert (d.group, d.route, d.reason) == ("no rm!", "native", "")
    assert d.wrapper is not None and d.element is not None
    assert d.wrapper.path == "claude_code/PreToolUse-0-no-rm.py" and d.wrapper.executable
    assert d.element.role == "claude settings" and d.element.fmt == "json"
    assert d.element.key_path == ("hooks", "PreToolUse")
    assert d.element.value == {
        "matcher": "^(?:Bash|Edit|MultiEdit|NotebookEdit)$",
        "hooks": [{"type": "command", "command": f"{WRAPPERS}/{d.wrapper.path}", "timeout": 15}],
    }


def test_codex_element_is_adapted_for_the_trust_gate_and_degraded_for_shell() -> None:
    files = _one("codex", _hooks(matcher="file.edit", effect="deny"))
    assert files.route == "adapted" and "hook trust gate" in files.reason
    assert files.element is not None and files.element.role == "codex hooks"
    assert files.element.value["matcher"] == "^(?:apply_patch|Edit)$"
    shell = _one("codex", _hooks(matcher="shell", effect="deny"))
    assert shell.route == "degraded" and "unified_exec" in shell.reason


def test_gemini_element_uses_its_event_names_and_milliseconds() -> None:
    d = _one("gemini_cli", _hooks(matcher="file.write", effect="transform"))
    assert d.route == "native" and d.element is not None
    assert d.element.key_path == ("hooks", "BeforeTool") and d.element.fmt == "jsonc"
    assert d.element.value["matcher"] == "^(?:write_file)$"
    assert d.element.value["hooks"][0]["timeout"] == 15000  # type: ignore[index]
    assert d.element.value["hooks"][0]["name"] == "pkg/PreToolUse-0"  # type: ignore[index]


def test_kimi_element_has_exactly_event_matcher_command_timeout() -> None:
    d = _one("kimi_code", _hooks("Stop", effect="deny"))
    assert d.element is not None and d.element.key_path == ("hooks",)
    assert d.element.value == {
        "event": "Stop", "matcher": "", "command": f"{WRAPPERS}/kimi_code/Stop-0.py", "timeout": 15,
    }
    assert d.route == "adapted" and "keep going" in d.reason


@pytest.mark.parametrize(
    ("harness", "event", "effect", "matcher", "why"),
    [
        ("codex", "PreToolUse", "allow", None, "cannot express the effect 'allow'"),
        ("codex", "PreToolUse", "ask", None, "cannot express the effect 'ask'"),
        ("codex", "PreToolUse", "transform", None, "cannot express the effect 'transform'"),
        ("kimi_code", "PreToolUse", "transform", None, "cannot express the effect 'transform'"),
        ("gemini_cli", "PreToolUse", "ask", None, "cannot express the effect 'ask'"),
        ("claude_code", "PostToolUse", "deny", None, "cannot deny on PostToolUse"),
        ("claude_code", "Stop", "ask", None, "cannot ask on Stop"),
        ("codex", "PreToolUse", "deny", "shell|search.web", "no tool for search.web"),
        ("codex", "PreToolUse", "observe", "search.web", "no tool for search.web"),
        ("opencode", "PreToolUse", "ask", None, "cannot ask the user"),
        ("opencode", "PreToolUse", "allow", None, "cannot approve"),
        ("opencode", "Stop", "deny", None, "cannot deny on Stop (session.idle)"),
        ("opencode", "PostToolUse", "deny", "file.edit", "cannot deny on PostToolUse"),
        ("opencode", "PreToolUse", "deny", "agent.message", "no tool for agent.message"),
        ("antigravity", "PreToolUse", "allow", None, "did not skip its review"),
        ("antigravity", "PreToolUse", "transform", None, "no way for a hook to rewrite"),
        ("antigravity", "Stop", "deny", None, "cannot deny on Stop"),
        ("deepseek_harness", "PreToolUse", "deny", None, "ONE configPath per process"),
    ],
)
def test_groups_a_harness_cannot_honour_are_unsupported_with_the_reason(
    harness: str, event: str, effect: str, matcher: str | None, why: str
) -> None:
    d = _one(harness, _hooks(event, effect=effect, matcher=matcher))
    assert d.route == "unsupported" and why in d.reason
    assert d.wrapper is None and d.element is None


def test_an_observer_of_an_unreachable_alias_is_delivered_with_a_note() -> None:
    d = _one("gemini_cli", _hooks(effect="observe", matcher="shell|agent.spawn"))
    assert d.route == "adapted" and "no tool for agent.spawn" in d.reason


def test_every_group_is_reported_in_file_order() -> None:
    hooks = msgspec.convert({"hooks": {
        "PreToolUse": [{"hooks": [DENY]}, {"id": "b", "effect": "deny", "hooks": [DENY]}],
        "SessionStart": [{"hooks": [DENY]}],
    }}, HooksFile)
    names = [d.group for d in deliver_hooks("claude_code", hooks, "pkg", WRAPPERS, ROOT)]
    assert names == ["PreToolUse-0", "b", "SessionStart-0"]


def test_delivered_wrapper_and_element_work_end_to_end(tmp_path: Path) -> None:
    """Install: write the wrapper, append the element; the harness's command denies; undo."""
    handler = {"type": "command", "command": "echo nope >&2; exit 3", "timeout": 5}
    hooks = _hooks(matcher="shell", effect="deny", hooks=[handler])
    (d,) = deliver_hooks("claude_code", hooks, "pkg", tmp_path, tmp_path / "root")
    assert d.wrapper is not None and d.element is not None
    script = tmp_path / d.wrapper.path
    script.parent.mkdir(parents=True)
    script.write_bytes(d.wrapper.data)
    script.chmod(0o755)
    settings = b'{\n  "hooks": {\n    "PreToolUse": [{"matcher": "Edit", "hooks": []}]\n  }\n}\n'
    new, info = append_element(settings, "json", d.element.key_path, d.element.value)
    command = json.loads(new)["hooks"]["PreToolUse"][1]["hooks"][0]["command"]
    stdin = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash",
                        "tool_input": {"command": "rm -rf /"}, "cwd": str(tmp_path)})
    shebang = subprocess.run(["head", "-1", command], capture_output=True, text=True).stdout
    assert shebang == "#!/usr/bin/env python3\n"
    done = subprocess.run([sys.executable, "-I", "-S", command], input=stdin,
                          capture_output=True, text=True, timeout=30)
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    mine = equal_to(d.element.value)
    assert remove_element(new, "json", d.element.key_path, mine, info) == settings


def test_opencode_groups_are_carried_by_one_plugin_that_runs_their_wrappers() -> None:
    hooks = msgspec.convert({"hooks": {
        "PreToolUse": [
            {"id": "guard", "matcher": "shell|file.edit", "effect": "deny", "hooks": [DENY]},
            {"effect": "ask", "hooks": [DENY]},
        ],
        "SessionStart": [{"hooks": [DENY]}],
    }}, HooksFile)
    guard, ask, start = deliver_hooks("opencode", hooks, "pkg", WRAPPERS, ROOT)
    assert guard.element is None and guard.wrapper is not None and guard.bridge is not None
    assert guard.route == "adapted" and "generated OpenCode plugin uze-pkg.js" in guard.reason
    assert guard.bridge.tools == ("bash", "edit", "apply_patch")
    assert (guard.bridge.label, guard.bridge.blocking, guard.bridge.timeout_ms) == (
        "pkg/guard", True, 15000)
    assert guard.bridge.wrapper == f"{WRAPPERS}/opencode/PreToolUse-0-guard.py"
    assert ask.route == "unsupported" and ask.bridge is None
    assert start.bridge is not None and start.bridge.tools is None and not start.bridge.blocking
    plugin = opencode_bridge("pkg", (guard, ask, start))
    assert plugin is not None and b"pkg/guard" in plugin and b"pkg/SessionStart-0" in plugin
    assert b"PreToolUse-1" not in plugin
    assert opencode_bridge("pkg", (ask,)) is None


def test_antigravity_gets_one_named_entry_per_group_with_no_matcher() -> None:
    hooks = msgspec.convert({"hooks": {
        "PreToolUse": [{"id": "no rm", "matcher": "shell", "effect": "deny", "hooks": [DENY]}],
        "Stop": [{"hooks": [DENY]}],
    }}, HooksFile)
    guard, stop = deliver_hooks("antigravity", hooks, "pkg", WRAPPERS, ROOT)
    assert guard.route == "adapted" and "unverified third-party documentation" in guard.reason
    assert guard.element is not None and guard.element.named
    assert guard.element.key_path == ("uze-pkg-PreToolUse-0",)  # the id has a space
    assert guard.element.role == "antigravity hooks"
    command = f"{WRAPPERS}/antigravity/PreToolUse-0-no-rm.py"
    handler = {"type": "command", "command": command, "timeout": 15}
    assert guard.element.value == {"enabled": True, "PreToolUse": [{"hooks": [handler]}]}
    assert stop.element is not None and stop.element.key_path == ("uze-pkg-Stop-0",)
    stop_command = f"{WRAPPERS}/antigravity/Stop-0.py"
    assert stop.element.value["Stop"] == [{**handler, "command": stop_command}]


def test_antigravity_names_never_collide_when_ids_differ_only_in_odd_characters() -> None:
    hooks = msgspec.convert({"hooks": {"PreToolUse": [
        {"id": "a-b", "effect": "deny", "hooks": [DENY]},
        {"id": "a b", "effect": "deny", "hooks": [DENY]},
    ]}}, HooksFile)
    keys = [d.element.key_path for d in deliver_hooks("antigravity", hooks, "pkg", WRAPPERS, ROOT)
            if d.element is not None]
    assert keys == [("uze-pkg-a-b",), ("uze-pkg-PreToolUse-1",)]
