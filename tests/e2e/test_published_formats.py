"""Gemini CLI extensions and Codex plugins through the real `uze` command (adr/0068): read as
published, delivered resource by resource to every harness, uninstalled byte for byte; and a
package whose every offer is skipped is refused ("nothing to deliver")."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, as_json, assert_ok, snapshot
from tests.helpers import DATA, build_tree

pytestmark = pytest.mark.e2e

GEMINI = DATA / "gemini-extension"
CODEX = DATA / "codex-plugin"


def test_a_gemini_extension_installs_everywhere_and_uninstalls_byte_for_byte(
    uze: Uze, sandbox: Sandbox
) -> None:
    before = snapshot(sandbox)

    document = as_json(assert_ok(uze("install", GEMINI, "--harness", "all", "--trust",
                                     "--json")))

    assert document["package"]["name"] == "gem-tools"
    project = sandbox.project
    settings = json.loads((project / ".gemini/settings.json").read_text())["mcpServers"]
    assert settings["gem-tools"] == {
        "command": "./.uze/packages/gem-tools/server/serve.sh", "args": ["--workspace", "."]}
    assert settings["gem-remote"]["httpUrl"] == "https://gem.example.invalid/mcp"
    assert (project / ".uze/packages/gem-tools/server/serve.sh").stat().st_mode & 0o100
    assert "Prefer the gem-tools servers" in (project / "GEMINI.md").read_text()
    claude = project / ".claude/skills/gem-tools"
    assert sorted(p.name for p in (claude / "commands").iterdir()) == [
        "git", "hello.md", "review.md"]
    assert "Review $ARGUMENTS for mistakes" in (claude / "commands/review.md").read_text()
    opencode = (project / ".opencode/commands/gem-tools-review.md").read_text()
    assert opencode.endswith("Review $ARGUMENTS for mistakes and list each one with its line.")
    rows = {(p["kind"], p["resource"], p["harness"]): p for p in document["projections"]}
    assert rows[("command", "review", "codex")]["route"] == "degraded"
    assert rows[("command", "hello", "codex")]["route"] == "adapted"
    assert rows[("skill", "explain", "gemini_cli")]["route"] == "native"
    assert {h for (kind, name, h) in rows if (kind, name) == ("mcp", "gem-tools")} == {
        "claude_code", "codex", "opencode", "gemini_cli", "antigravity", "kimi_code",
        "deepseek_harness"}

    assert_ok(uze("uninstall", "gem-tools"))
    assert snapshot(sandbox)["project"] == before["project"]


def test_check_no_longer_asks_a_gemini_extension_for_a_plugin_json(uze: Uze) -> None:
    document = as_json(assert_ok(uze("check", GEMINI, "--harness", "gemini_cli", "--json")))

    assert document["package"]["name"] == "gem-tools"
    assert not any("plugin.json" in line for line in document["warnings"])


def test_a_codex_plugin_installs_with_codex_keys_kept_and_its_hooks_file_read(
    uze: Uze, sandbox: Sandbox
) -> None:
    before = snapshot(sandbox)

    document = as_json(assert_ok(uze("install", CODEX, "--harness", "codex,claude_code",
                                     "--trust", "--json")))

    assert (document["package"]["name"], document["package"]["version"]) == ("cx-tools", "0.3.0")
    config = tomllib.loads((sandbox.project / ".codex/config.toml").read_text())["mcp_servers"]
    assert config["cx-local"] == {"command": "python3", "args": ["./bin/cx_server.py", "--stdio"],
                                  "cwd": "./.uze/packages/cx-tools", "tool_timeout_sec": 900}
    assert config["cx-remote"] == {"url": "https://cx.example.invalid/mcp",
                                   "bearer_token_env_var": "CX_TOKEN",
                                   "note": "Signs in on first use.",
                                   "oauth_resource": "https://cx.example.invalid"}
    claude = json.loads((sandbox.project / ".mcp.json").read_text())["mcpServers"]
    assert "oauth_resource" not in claude["cx-remote"]
    hooks = sorted((p["resource"], p["harness"]) for p in document["projections"]
                   if p["kind"] == "hook")
    assert hooks == [("PostToolUse-0", "claude_code"), ("PostToolUse-0", "codex")]
    assert "Stop" not in (sandbox.project / ".codex/hooks.json").read_text()
    assert any(line.startswith("hooks.json: not installed") for line in document["warnings"])

    assert_ok(uze("uninstall", "cx-tools"))
    assert snapshot(sandbox)["project"] == before["project"]


def test_a_package_whose_every_offer_is_skipped_is_refused_and_writes_nothing(
    uze: Uze, sandbox: Sandbox, tmp_path: Path
) -> None:
    apps = build_tree(tmp_path / "apps-only", {
        ".codex-plugin/plugin.json": json.dumps({"name": "apps-only", "version": "1.0.0",
                                                 "apps": "./.app.json"}),
        ".app.json": json.dumps({"apps": {"x": {"id": "asdk_app_x"}}}),
    })
    before = snapshot(sandbox)

    for verb in ("install", "check"):
        result = uze(verb, apps, *(["--harness", "all"] if verb == "install" else []))

        assert result.returncode == 1
        assert result.stderr.splitlines()[1] == (
            ".: nothing to deliver: all the package offers is skipped or not installed "
            "(see above)")
        assert snapshot(sandbox) == before


def test_a_manifest_alone_is_refused_and_writes_nothing(uze: Uze, sandbox: Sandbox) -> None:
    before = snapshot(sandbox)

    for verb in ("install", "check"):
        result = uze(verb, DATA / "manifest-only", "--harness", "all")

        assert result.returncode == 1
        assert result.stderr.splitlines() == [
            ".: nothing to deliver: the package carries no resource (no instructions, skill, "
            "agent, command, MCP server or hook group); a manifest alone installs nothing",
            f"uze: error: invalid package {DATA / 'manifest-only'}: 1 problem",
            "hint: fix every problem listed above, then run the command again"]
        assert snapshot(sandbox) == before


def test_a_package_with_no_route_to_the_chosen_harnesses_is_refused(
    uze: Uze, sandbox: Sandbox
) -> None:
    before = snapshot(sandbox)

    result = uze("install", DATA / "claude-hooks", "--harness", "antigravity,deepseek_harness",
                 "--trust")

    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert lines[-2:] == [
        "uze: error: nothing to deliver: claude-hooks has no route to antigravity, "
        "deepseek_harness",
        "hint: choose other harnesses with --harness (`uze check SOURCE --harness all` shows "
        "every route)"]
    assert "antigravity: hook PreToolUse-0: Claude-protocol hook; no translation to " \
        "antigravity" in lines
    assert snapshot(sandbox) == before
    assert_ok(uze("check", DATA / "claude-hooks", "--harness", "antigravity"))  # check shows it


def test_a_gemini_extensions_agent_keeps_its_tool_allowlist_on_every_harness(
    uze: Uze, sandbox: Sandbox, tmp_path: Path
) -> None:
    """Its `tools` are Gemini CLI's names: read as such, never as Claude names (which left an
    empty list, or Gemini's names in Claude Code's file); a name with no counterpart is named."""
    package = build_tree(tmp_path / "gem-agents", {
        "gemini-extension.json": json.dumps({"name": "gem-agents", "version": "1.0.0"}),
        "agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews code.\ntools:\n"
                              "  - read_file\n  - run_shell_command\n  - save_memory\n---\n"
                              "Review the diff.\n",
    })
    before = snapshot(sandbox)

    document = as_json(assert_ok(uze("install", package, "--harness",
                                     "claude_code,gemini_cli,opencode", "--json")))

    project = sandbox.project
    claude = (project / ".claude/skills/gem-agents/agents/reviewer.md").read_text()
    assert claude.startswith("---\nname: reviewer\ndescription: Reviews code.\ntools:\n- Read\n"
                             "- Bash\n---\n"), claude
    gemini = (project / ".gemini/agents/gem-agents-reviewer.md").read_text()
    assert "tools:\n- read_file\n- run_shell_command\n- save_memory\n---" in gemini, gemini
    opencode = (project / ".opencode/agents/gem-agents-reviewer.md").read_text()
    assert "tools:\n  '*': false\n  read: true\n  bash: true\n---" in opencode, opencode
    rows = {p["harness"]: p for p in document["projections"] if p["kind"] == "agent"}
    for harness in ("claude_code", "opencode"):
        assert rows[harness]["route"] == "degraded", rows[harness]
        assert "no counterpart for gemini_cli's save_memory" in rows[harness]["reason"]
    assert rows["gemini_cli"]["route"] == "native", rows["gemini_cli"]

    assert_ok(uze("uninstall", "gem-agents"))
    assert snapshot(sandbox)["project"] == before["project"]
