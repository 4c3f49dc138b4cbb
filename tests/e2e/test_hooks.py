"""Portable hooks end to end: installed wrappers guard tool calls in each harness's own dialect."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.helpers import DATA, run_uze, tree_bytes

pytestmark = pytest.mark.e2e
EVERY_KIND = DATA / "every-kind"


def _wrapper(config: dict, event: str) -> Path:  # type: ignore[type-arg]
    return Path(config["hooks"][event][0]["hooks"][0]["command"])


def _call(wrapper: Path, native_input: dict) -> subprocess.CompletedProcess[str]:  # type: ignore[type-arg]
    return subprocess.run([str(wrapper)], input=json.dumps(native_input), capture_output=True,
                          text=True, timeout=60, check=False)


@pytest.fixture
def installed(sandbox: Sandbox) -> Sandbox:
    (sandbox.project / ".claude").mkdir()
    (sandbox.project / ".claude/settings.json").write_text('{\n  "model": "opus"\n}\n')
    done = run_uze("install", EVERY_KIND, "--harness", "claude_code,codex,gemini_cli", "--trust",
                   cwd=sandbox.project)
    assert done.returncode == 0, done.stderr
    return sandbox


def test_claude_gets_a_deny_for_a_force_push_and_silence_for_ls(installed: Sandbox) -> None:
    settings = json.loads((installed.project / ".claude/settings.json").read_text())
    assert settings["model"] == "opus"
    wrapper = _wrapper(settings, "PreToolUse")
    push = {"hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": "git push --force"}, "cwd": str(installed.project)}
    answer = _call(wrapper, push)
    assert answer.returncode == 0
    decision = json.loads(answer.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert "force push" in decision["permissionDecisionReason"]
    calm = _call(wrapper, {**push, "tool_input": {"command": "ls"}})
    assert calm.returncode == 0 and "deny" not in calm.stdout


def test_codex_blocks_with_exit_2_and_gemini_with_a_deny_decision(installed: Sandbox) -> None:
    codex = json.loads((installed.project / ".codex/hooks.json").read_text())
    push = {"hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": "git push --force"}, "cwd": str(installed.project)}
    blocked = _call(_wrapper(codex, "PreToolUse"), push)
    assert blocked.returncode == 2 and "force push" in blocked.stderr
    gemini = json.loads((installed.project / ".gemini/settings.json").read_text())
    denied = _call(_wrapper(gemini, "BeforeTool"), {
        "hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
        "tool_input": {"command": "git push --force"}, "cwd": str(installed.project)})
    assert json.loads(denied.stdout)["decision"] == "deny"


def test_status_reports_hooks_and_the_trust_list_names_their_handlers(installed: Sandbox) -> None:
    status = json.loads(run_uze("status", "every-kind", "--json", cwd=installed.project).stdout)
    package = status["packages"][0]
    hooks = [p for p in package["projections"] if p["kind"] == "hook"]
    assert {(p["harness"], p["state"]) for p in hooks if p["resource"] == "no-force-push"} == {
        ("claude_code", "matched"), ("codex", "matched"), ("gemini_cli", "matched")}
    codex = next(p for p in hooks if p["harness"] == "codex")
    assert codex["route"] != "native" and "trust" in codex["reason"]
    assert any(line.startswith("hook no-force-push (PreToolUse, deny, shell)")
               for line in package["executions"])


def test_uninstall_takes_the_hooks_out_and_leaves_the_user_settings_byte_for_byte(sandbox: Sandbox) -> None:
    (sandbox.project / ".claude").mkdir()
    (sandbox.project / ".claude/settings.json").write_bytes(b'{\r\n\t"model": "opus"\r\n}')
    before = tree_bytes(sandbox.project)
    assert run_uze("install", EVERY_KIND, "--harness", "claude_code,codex,gemini_cli", "--trust",
                   cwd=sandbox.project).returncode == 0
    assert run_uze("uninstall", "every-kind", cwd=sandbox.project).returncode == 0
    assert tree_bytes(sandbox.project) == before


def test_kimi_hooks_go_to_the_user_config_only(sandbox: Sandbox) -> None:
    project = run_uze("check", EVERY_KIND, "--harness", "kimi_code", "--json", cwd=sandbox.project)
    rows = [p for p in json.loads(project.stdout)["projections"] if p["kind"] == "hook"]
    assert {p["route"] for p in rows} == {"unsupported"} and "--scope user" in rows[0]["reason"]
    done = run_uze("install", EVERY_KIND, "--harness", "kimi_code", "--scope", "user", "--trust",
                   cwd=sandbox.project)
    assert done.returncode == 0, done.stderr
    config = tomllib.loads((sandbox.home / ".kimi-code/config.toml").read_text())
    assert {h["event"] for h in config["hooks"]} == {"PreToolUse", "PostToolUse"}
    assert run_uze("uninstall", "every-kind", "--scope", "user", cwd=sandbox.project).returncode == 0
    assert not (sandbox.home / ".kimi-code/config.toml").exists()


@pytest.mark.parametrize("file", [".claude/settings.json", ".codex/hooks.json", ".gemini/settings.json"])
def test_a_users_own_hook_next_to_ours_survives_install_and_uninstall(sandbox: Sandbox, file: str) -> None:
    event = "BeforeTool" if "gemini" in file else "PreToolUse"
    path = sandbox.project / file
    path.parent.mkdir(parents=True)
    mine = {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-own-guard"}]}
    path.write_text('{\n    "hooks": {\n        "%s": [\n            %s\n        ]\n    }\n}\n'
                    % (event, json.dumps(mine)))
    before = tree_bytes(sandbox.project)
    assert run_uze("install", EVERY_KIND, "--harness", "claude_code,codex,gemini_cli", "--trust",
                   cwd=sandbox.project).returncode == 0
    groups = json.loads(path.read_text())["hooks"][event]
    assert groups[0] == mine and len(groups) == 2
    assert run_uze("uninstall", "every-kind", cwd=sandbox.project).returncode == 0
    assert tree_bytes(sandbox.project) == before
