"""Gemini CLI extensions and Codex plugins read as published (adr/0068), and a Claude manifest
read completely: its inline and path `mcpServers`, and the types Claude Code requires (adr/0069)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import DATA
from uze.package import read_package
from uze.package.claude_manifest import REFUSED
from uze.package.gemini import claude_prompt

Builder = Callable[..., Path]
Issues = Callable[[Path], list[str]]
CLAUDE = ".claude-plugin/plugin.json"
GEMINI_WARNINGS = [
    "gemini-extension.json: excludeTools: not installed (Gemini CLI hides these tools while the "
    "extension is loaded; uze installs the extension resource by resource, so no harness gets "
    "the exclusion)",
    "gemini-extension.json: mcpServers.gemTools: invalid name 'gemTools': use lowercase letters, "
    "digits and single hyphens, at most 32 characters; installed as 'gem-tools'",
    "gemini-extension.json: mcpServers.gemTools.timeout: unknown key; ignored",
]
CODEX_WARNINGS = [
    ".codex-plugin/plugin.json: apps: not installed (ChatGPT app connectors, which Codex "
    "connects through its own service; no harness installs them from files)",
    "hooks.json: not installed (Codex does not load it: a plugin's hooks are hooks/hooks.json or "
    "the files its manifest's `hooks` names)",
    ".mcp.json: mcpServers.cx-local: tool_timeout_sec: Codex's own key, kept for Codex only (the "
    "other harnesses do not get it)",
    ".mcp.json: mcpServers.cx-remote: note: Codex's own key, kept for Codex only (the other "
    "harnesses do not get it)",
    ".mcp.json: mcpServers.cx-remote: oauth_resource: Codex's own key, kept for Codex only (the "
    "other harnesses do not get it)",
]


def test_a_gemini_extension_is_named_by_its_manifest_with_servers_commands_and_context() -> None:
    package = read_package(DATA / "gemini-extension")

    assert (package.name, package.version) == ("gem-tools", "1.2.0")
    assert package.warnings == tuple(GEMINI_WARNINGS)
    assert package.instructions is not None and package.instructions.files == ("GEMINI.md",)
    assert [skill.name for skill in package.skills] == ["explain"]
    remote, local = package.mcp_servers
    assert (remote.name, remote.url, remote.type, remote.headers) == (
        "gem-remote", "https://gem.example.invalid/mcp", "http",
        {"Authorization": "Bearer ${GEM_TOKEN}"})
    assert (local.name, local.command, local.args) == (
        "gem-tools", "${PLUGIN_ROOT}/server/serve.sh", ["--workspace", "."])
    commands = {(c.subdirs, c.name): c for c in package.commands}
    assert sorted(commands) == [((), "hello"), ((), "review"), (("git",), "summary")]
    assert commands[(), "review"].body == (
        "Review $ARGUMENTS for mistakes and list each one with its line.")
    assert commands[(), "review"].frontmatter == {"description": "Review the named files for "
                                                  "mistakes"}
    assert commands[("git",), "summary"].body == (
        "Summarise these commits for a changelog:\n!`git log --oneline -5`\n"
        "Follow the style of @CHANGELOG.md.\n")
    assert commands[(), "hello"].frontmatter == {}
    assert all(c.converted for c in package.commands)


def test_a_gemini_prompt_keeps_unbalanced_braces_and_translates_nested_ones() -> None:
    assert claude_prompt("run !{echo {a}} then @{x.md} and {{args}}") == (
        "run !`echo {a}` then @x.md and $ARGUMENTS")
    assert claude_prompt("broken !{echo") == "broken !{echo"


def test_a_gemini_extension_without_a_name_is_refused(build: Builder, issues_of: Issues) -> None:
    root = build({"gemini-extension.json": {"version": "1.0.0"}}, manifest=False)

    assert issues_of(root) == ["gemini-extension.json: name: required: the extension's name"]


def test_a_gemini_command_without_a_prompt_or_not_toml_is_skipped(
    build: Builder, warnings_of: Issues
) -> None:
    root = build({"gemini-extension.json": {"name": "ext", "version": "1.0.0"},
                  "commands/a.toml": 'description = "no prompt"\n',
                  "commands/b.toml": "prompt = \n",
                  "commands/c.toml": 'prompt = "fine"\n'}, manifest=False)

    warnings = warnings_of(root)

    assert warnings[0] == ("commands/a.toml: prompt: required text (Gemini CLI skips the command "
                           "too); skipped")
    assert warnings[1].startswith("commands/b.toml: not TOML (")
    assert [c.name for c in read_package(root).commands] == ["c"]


def test_a_codex_plugin_is_read_from_its_manifest_and_keeps_codex_keys_for_codex() -> None:
    package = read_package(DATA / "codex-plugin")

    assert (package.name, package.version) == ("cx-tools", "0.3.0")
    assert package.warnings == tuple(CODEX_WARNINGS)
    assert package.instructions is None  # its AGENTS.md is the repository's document
    assert package.hooks is None  # the root hooks.json is not uze's portable hooks file
    assert package.claude_hooks is not None
    assert package.claude_hooks.sources == ("hooks/hooks.json",)
    assert [g.event for g in package.claude_hooks.groups] == ["PostToolUse"]
    local, remote = package.mcp_servers
    assert (local.command, local.args, local.cwd, local.codex_keys) == (
        "python3", ["./bin/cx_server.py", "--stdio"], "${PLUGIN_ROOT}", {"tool_timeout_sec": 900})
    assert (remote.url, remote.headers, remote.codex_keys) == (
        "https://cx.example.invalid/mcp", {"Authorization": "Bearer ${CX_TOKEN}"},
        {"note": "Signs in on first use.", "oauth_resource": "https://cx.example.invalid"})
    assert [skill.name for skill in package.skills] == ["cx-review"]


def test_a_portable_server_may_not_carry_codex_keys(build: Builder, issues_of: Issues) -> None:
    root = build({"mcp.json": {"mcpServers": {"a": {"command": "a", "codex_keys": {}}}}})

    assert issues_of(root) == ["mcp.json: mcpServers.a: codex_keys: unknown key"]


def test_claude_manifest_servers_inline_and_by_path_are_the_packages_servers(
    build: Builder,
) -> None:
    root = build({
        CLAUDE: {"name": "pkg", "mcpServers": {"inline": {"command": "inline-server"}}},
        ".mcp.json": {"mcpServers": {"file": {"command": "file-server", "extra": 1}}},
    }, manifest=False)
    by_path = build({
        CLAUDE: {"name": "two", "mcpServers": ["./servers/one.json"]},
        "servers/one.json": {"named": {"url": "https://named.example.invalid/mcp"}},
    }, manifest=False, name="two")

    package = read_package(root)

    assert [s.name for s in package.mcp_servers] == ["file", "inline"]
    assert package.warnings == (".mcp.json: mcpServers.file.extra: unknown key; ignored",)
    assert [s.name for s in read_package(by_path).mcp_servers] == ["named"]


def test_a_server_named_twice_keeps_the_first(build: Builder, warnings_of: Issues) -> None:
    root = build({
        CLAUDE: {"name": "pkg", "mcpServers": {"same": {"command": "second"}}},
        ".mcp.json": {"same": {"command": "first"}},
    }, manifest=False)

    assert warnings_of(root) == [f"{CLAUDE}: mcpServers.same: a server of this name is already "
                                 "read from .mcp.json; skipped"]
    assert read_package(root).mcp_servers[0].command == "first"


@pytest.mark.parametrize(("key", "value", "problem"), [
    ("repository", {"type": "git", "url": "https://x.invalid"}, "expected a string"),
    ("keywords", "a, b", "expected a list of strings"),
    ("homepage", "not a url", "not a URL"),
    ("author", "someone", "expected an object"),
    ("description", 7, "expected a string"),
])
def test_a_claude_manifest_key_claude_code_refuses_is_a_warning(
    build: Builder, warnings_of: Issues, key: str, value: object, problem: str
) -> None:
    root = build({CLAUDE: {"name": "pkg", key: value}}, manifest=False)

    assert warnings_of(root) == [f"{CLAUDE}: {key}: {problem}: {REFUSED}"]
    assert read_package(root).name == "pkg"
