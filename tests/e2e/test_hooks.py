"""Portable hooks end to end: installed wrappers guard tool calls in each harness's own dialect."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.helpers import DATA, run_uze, tree_bytes

pytestmark = pytest.mark.e2e
EVERY_KIND = DATA / "every-kind"


def _wrapper(config: dict, event: str) -> str:  # type: ignore[type-arg]
    return str(config["hooks"][event][0]["hooks"][0]["command"])


def _call(command: str, native_input: dict) -> subprocess.CompletedProcess[str]:  # type: ignore[type-arg]
    """Run a hook command as the harnesses do: through the shell, in the project, with the
    project-root variables Claude Code and Gemini CLI set (the command names the wrapper
    relative to the project, adr/0039)."""
    project = native_input.get("cwd") or str(Path.cwd())
    env = {**os.environ, "CLAUDE_PROJECT_DIR": project, "GEMINI_PROJECT_DIR": project}
    return subprocess.run(command, shell=True, input=json.dumps(native_input), cwd=project,
                          env=env, capture_output=True, text=True, timeout=60, check=False)


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


def test_uninstall_takes_the_hooks_out_and_leaves_the_user_settings_byte_for_byte(
    sandbox: Sandbox,
) -> None:
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
    assert run_uze("uninstall", "every-kind", "--scope", "user",
                   cwd=sandbox.project).returncode == 0
    assert not (sandbox.home / ".kimi-code/config.toml").exists()


@pytest.mark.parametrize("file",
                         [".claude/settings.json", ".codex/hooks.json", ".gemini/settings.json"])
def test_a_users_own_hook_next_to_ours_survives_install_and_uninstall(sandbox: Sandbox,
                                                                      file: str) -> None:
    event = "BeforeTool" if "gemini" in file else "PreToolUse"
    path = sandbox.project / file
    path.parent.mkdir(parents=True)
    mine = {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-own-guard"}]}
    path.write_text(f'{{\n    "hooks": {{\n        "{event}": [\n            {json.dumps(mine)}\n'
                    '        ]\n    }\n}\n')
    before = tree_bytes(sandbox.project)
    assert run_uze("install", EVERY_KIND, "--harness", "claude_code,codex,gemini_cli", "--trust",
                   cwd=sandbox.project).returncode == 0
    groups = json.loads(path.read_text())["hooks"][event]
    assert groups[0] == mine and len(groups) == 2
    assert run_uze("uninstall", "every-kind", cwd=sandbox.project).returncode == 0
    assert tree_bytes(sandbox.project) == before


def _bridge_files(sandbox: Sandbox, scope: str) -> tuple[Path, Path]:
    """The OpenCode plugin and Antigravity's hooks.json for a scope."""
    if scope == "project":
        return (sandbox.project / ".opencode/plugins/uze-every-kind.js",
                sandbox.project / ".agents/hooks.json")
    return (sandbox.home / ".config/opencode/plugins/uze-every-kind.js",
            sandbox.home / ".gemini/config/hooks.json")


def _install_bridges(sandbox: Sandbox, scope: str) -> None:
    done = run_uze("install", EVERY_KIND, "--harness", "opencode,antigravity", "--scope", scope,
                   "--trust", cwd=sandbox.project)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("scope", ["project", "user"])
def test_opencode_plugin_and_antigravity_entries_round_trip_next_to_the_users_own(
    sandbox: Sandbox, scope: str
) -> None:
    plugin, hooks_json = _bridge_files(sandbox, scope)
    plugin.parent.mkdir(parents=True)
    (plugin.parent / "mine.js").write_text("export const Mine = async () => ({})\n")
    hooks_json.parent.mkdir(parents=True, exist_ok=True)
    mine = {"enabled": True, "PreToolUse": [{"matcher": "run_command",
                                             "hooks": [{"type": "command", "command": "./x.sh"}]}]}
    own = json.dumps(mine).encode()
    hooks_json.write_bytes(b'{\r\n  "my-guard": ' + own + b',\r\n  "z": {}\r\n}\r\n')
    before = {"project": tree_bytes(sandbox.project), "home": tree_bytes(sandbox.home)}
    _install_bridges(sandbox, scope)
    assert plugin.read_bytes().startswith(b"// Generated by uze for the package every-kind")
    entries = json.loads(hooks_json.read_text())
    assert list(entries) == ["my-guard", "z", "uze-every-kind-no-force-push",
                             "uze-every-kind-log-edits"]
    assert entries["my-guard"] == mine
    installed = hooks_json.read_bytes()
    _install_bridges(sandbox, scope)  # again: nothing duplicated, nothing changed
    assert hooks_json.read_bytes() == installed
    assert run_uze("uninstall", "every-kind", "--scope", scope, cwd=sandbox.project).returncode == 0
    assert {"project": tree_bytes(sandbox.project), "home": tree_bytes(sandbox.home)} == before


def test_the_antigravity_wrapper_reads_tool_calls_and_always_decides(sandbox: Sandbox) -> None:
    _install_bridges(sandbox, "project")
    entries = json.loads((sandbox.project / ".agents/hooks.json").read_text())
    wrapper = entries["uze-every-kind-no-force-push"]["PreToolUse"][0]["hooks"][0]["command"]
    call = {"toolCall": {"name": "run_command", "args": {"command": "git push --force"}},
            "stepIdx": 2, "conversationId": "c1", "workspacePaths": [str(sandbox.project)]}
    assert json.loads(_call(wrapper, call).stdout) == {
        "decision": "deny", "reason": "force push is not allowed"}
    calm = {**call, "toolCall": {"name": "view_file", "args": {"AbsolutePath": "/etc/hosts"}}}
    assert json.loads(_call(wrapper, calm).stdout) == {"decision": "allow"}


def test_an_edited_opencode_plugin_shows_as_drifted_and_is_kept_on_reinstall(
    sandbox: Sandbox,
) -> None:
    _install_bridges(sandbox, "project")
    plugin, _ = _bridge_files(sandbox, "project")
    plugin.write_bytes(plugin.read_bytes() + b"// my note\n")
    status = json.loads(run_uze("status", "every-kind", "--json", cwd=sandbox.project).stdout)
    hooks = [p for p in status["packages"][0]["projections"]
             if p["kind"] == "hook" and p["harness"] == "opencode"]
    assert {(p["resource"], p["state"]) for p in hooks} == {
        ("no-force-push", "drifted"), ("log-edits", "drifted")}
    _install_bridges(sandbox, "project")
    assert plugin.read_bytes().endswith(b"// my note\n")


def test_check_reports_opencode_ask_and_deepseek_hooks_as_unsupported_with_why(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    package = tmp_path / "asker"
    package.mkdir()
    (package / "plugin.json").write_text('{"name": "asker"}\n')
    group = {"id": "confirm", "matcher": "shell", "effect": "ask",
             "hooks": [{"type": "command", "command": "exit 3"}]}
    (package / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [group]}}))
    done = run_uze("check", package, "--harness", "opencode,deepseek_harness", "--json",
                   cwd=sandbox.project)
    rows = {p["harness"]: p for p in json.loads(done.stdout)["projections"] if p["kind"] == "hook"}
    assert rows["opencode"]["route"] == "unsupported"
    assert "cannot ask the user" in rows["opencode"]["reason"]
    assert rows["deepseek_harness"]["route"] == "unsupported"
    assert "ONE configPath per process" in rows["deepseek_harness"]["reason"]


def test_an_upgrade_that_changes_a_group_rewrites_the_plugin_and_the_named_entry(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    package = tmp_path / "every-kind"
    shutil.copytree(EVERY_KIND, package)
    before = tree_bytes(sandbox.project)
    args = ("--harness", "opencode,antigravity", "--trust")
    assert run_uze("install", package, *args, cwd=sandbox.project).returncode == 0
    plugin, hooks_json = _bridge_files(sandbox, "project")
    for name, old, new in (("hooks.json", '"timeout": 10', '"timeout": 20'),
                           ("plugin.json", '"1.2.3"', '"1.3.0"')):
        (package / name).write_text((package / name).read_text().replace(old, new))
    assert run_uze("install", package, *args, cwd=sandbox.project).returncode == 0
    assert b'\\"timeout_ms\\": 25000' in plugin.read_bytes()
    guard = json.loads(hooks_json.read_text())["uze-every-kind-no-force-push"]
    assert guard["PreToolUse"][0]["hooks"][0]["timeout"] == 25
    status = json.loads(run_uze("status", "every-kind", "--json", cwd=sandbox.project).stdout)
    states = {p["state"] for p in status["packages"][0]["projections"] if p["kind"] == "hook"}
    assert states == {"matched"}
    assert run_uze("uninstall", "every-kind", cwd=sandbox.project).returncode == 0
    assert tree_bytes(sandbox.project) == before


def test_a_settings_file_that_stops_parsing_is_named_as_such_on_reinstall(
    sandbox: Sandbox,
) -> None:
    """A hook's settings file that no longer parses is a config error (line:column and how to
    fix it), not broken region markers; nothing is written."""
    assert run_uze("install", EVERY_KIND, "--harness", "claude_code", "--trust",
                   cwd=sandbox.project).returncode == 0
    (sandbox.project / ".claude/settings.json").write_bytes(b'{"hooks": {,}')
    before = tree_bytes(sandbox.project)
    done = run_uze("install", EVERY_KIND, "--harness", "claude_code", "--trust",
                   cwd=sandbox.project)
    assert done.returncode == 1
    assert "cannot safely edit .claude/settings.json: it does not parse (1:12: " in done.stderr
    assert "hint: fix the syntax error at the line:column shown" in done.stderr
    assert "markers" not in done.stderr and "Traceback" not in done.stderr
    assert tree_bytes(sandbox.project) == before
