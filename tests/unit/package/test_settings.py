"""Plugin settings (adr/0078): Claude `userConfig` and Gemini extension `settings` read into one
list; `ready` puts each value or variable in place of `${user_config.KEY}`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import DATA, build_tree
from uze.errors import UsageError
from uze.harnesses import REGISTRY
from uze.package import McpServer, Package, read_package
from uze.package.settings import given_values, ready

Builder = Callable[..., Path]
CLAUDE = ".claude-plugin/plugin.json"


def _claude(build: Builder, user_config: object, servers: dict[str, object]) -> Package:
    return read_package(build({CLAUDE: {"name": "kit", "userConfig": user_config},
                               ".mcp.json": {"mcpServers": servers}}, manifest=False))


def _option(**more: object) -> dict[str, object]:
    return {"type": "string", "title": "T", "description": "D", **more}


def test_claude_options_are_read_with_the_variable_the_server_reads(build: Builder) -> None:
    package = _claude(build, {"token": _option(sensitive=True), "region": _option(default="eu"),
                              "port": {**_option(), "type": "number", "default": 8080.0}},
                      {"s": {"command": "x", "args": ["${user_config.region}"],
                             "env": {"API_TOKEN": "${user_config.token}"}}})

    found = {s.key: (s.sensitive, s.env, s.default, s.source) for s in package.settings}
    assert found == {"token": (True, "API_TOKEN", None, "userConfig"),  # the env key it fills
                     "region": (False, "KIT_REGION", "eu", "userConfig"),
                     "port": (False, "KIT_PORT", "8080", "userConfig")}
    assert package.warnings == ()


@pytest.mark.parametrize(("key", "option", "why"), [
    ("1st", _option(), "the key must be an identifier"),
    ("a", {**_option(), "type": "secret"}, "type must be one of"),
    ("a", {"type": "string", "title": "T"}, "title and description are required text"),
    ("a", _option(color="red"), "unknown key 'color' (Claude Code refuses it)"),
    ("a", "text", "must be an object"),
])
def test_an_option_claude_code_refuses_is_a_warning_and_not_read(
    build: Builder, key: str, option: object, why: str
) -> None:
    package = _claude(build, {key: option}, {"s": {"command": "x"}})

    assert package.settings == ()
    assert package.warnings[0].startswith(f"{CLAUDE}: userConfig.{key}: {why}")


def test_a_server_naming_an_undeclared_setting_is_skipped_with_a_warning(build: Builder) -> None:
    package = _claude(build, {}, {"s": {"command": "x", "env": {"K": "${user_config.nope}"}},
                                  "t": {"command": "y"}})

    assert [s.name for s in package.mcp_servers] == ["t"]
    assert package.warnings == (f"{CLAUDE}: mcpServers.s: uses ${{user_config.nope}}, which no "
                                "setting declares; the server is skipped",)


def test_gemini_settings_reach_each_stdio_server_as_their_variable(build: Builder) -> None:
    package = read_package(DATA / "gemini-settings")

    assert [(s.key, s.title, s.sensitive, s.env) for s in package.settings] == [
        ("SETTINGS_TOKEN", "Token", True, "SETTINGS_TOKEN"),
        ("SETTINGS_LABEL", "Label", False, "SETTINGS_LABEL")]
    (server,) = package.mcp_servers
    assert server.env == {"SETTINGS_TOKEN": "${user_config.SETTINGS_TOKEN}",
                          "SETTINGS_LABEL": "${user_config.SETTINGS_LABEL}"}
    assert not any("settings" in warning for warning in package.warnings)


def test_a_gemini_setting_without_a_variable_name_is_a_warning(build: Builder) -> None:
    folder = build({"gemini-extension.json": {
        "name": "ext", "version": "1.0.0", "mcpServers": {"s": {"command": "x"}},
        "settings": [{"name": "A", "envVar": "not a name"}, {"name": "B", "envVar": "B_VAR"},
                     {"name": "C", "envVar": "B_VAR"}]}}, manifest=False)
    package = read_package(folder)

    assert [s.key for s in package.settings] == ["B_VAR"]
    assert package.warnings == (
        "gemini-extension.json: settings[0]: needs a name and an envVar that is a variable "
        "name; not read",
        "gemini-extension.json: settings[2]: envVar 'B_VAR' is already a setting; not read")


def test_ready_writes_given_and_default_values_and_references_the_rest() -> None:
    package = read_package(DATA / "plugin-settings")

    done = ready(package, given_values(package, {"label": "laptop"}))

    (server,) = done.mcp_servers
    assert server.args == ["--region", "eu"]  # the default
    assert server.env == {"SETTINGS_TOKEN": "${SETTINGS_TOKEN}", "SETTINGS_LABEL": "laptop"}
    assert server.settings == ("api_token from $SETTINGS_TOKEN (sensitive)",)
    assert done.claude_hooks is not None
    assert done.claude_hooks.groups[0].value["hooks"] == [
        {"type": "command", "command": "echo region eu"}]
    assert {s.key: s.written for s in done.settings} == {
        "api_token": False, "region": True, "label": True}


def test_ready_without_values_leaves_every_unset_setting_a_variable() -> None:
    package = read_package(DATA / "plugin-settings")

    (server,) = ready(package, given_values(package, {})).mcp_servers

    assert server.env["SETTINGS_LABEL"] == "${SETTINGS_LABEL}"  # the variable it reads
    assert server.settings == ("api_token from $SETTINGS_TOKEN (sensitive)",
                               "label from $SETTINGS_LABEL")


@pytest.mark.parametrize(("given", "message", "hint"), [
    ({"api_token": "x"}, "--set api_token: API token is sensitive: uze never takes or writes "
                         "its value", "set SETTINGS_TOKEN in the environment"),
    ({"colour": "x"}, "--set colour: plugin-settings declares no such setting (its settings: "
                      "api_token, label, region)", "`uze check SOURCE` lists them"),
])
def test_a_set_value_for_a_sensitive_or_unknown_key_is_a_usage_error(
    given: dict[str, str], message: str, hint: str
) -> None:
    package = read_package(DATA / "plugin-settings")

    with pytest.raises(UsageError) as raised:
        given_values(package, given)

    assert raised.value.message == message
    assert raised.value.hint is not None and raised.value.hint.startswith(hint)


def _codex(**server: object) -> tuple[object, list[str], str]:
    target = REGISTRY["codex"].mcp
    assert target is not None
    out = target.dialect(McpServer(name="s", **server))  # type: ignore[arg-type]
    return out.value, out.degraded, out.unsupported


def test_codex_passes_a_variable_only_under_its_own_name() -> None:
    assert _codex(command="x", env={"A": "${A}", "B": "lit"}) == (
        {"command": "x", "args": [], "env": {"B": "lit"}, "env_vars": ["A"]}, [], "")
    value, _, unsupported = _codex(command="x", env={"A": "${OTHER}"})
    assert value is None
    assert unsupported.startswith("Codex passes a variable to a server only under its own name")


def test_codex_marks_a_variable_in_args_unverified() -> None:
    _, degraded, _ = _codex(command="x", args=["--key", "${KEY}"])

    assert degraded == ["Codex's expansion of ${VAR} in a server's command, args or cwd is "
                        "unverified"]


def test_text_every_harness_reads_gets_the_value_or_the_variable_never_the_placeholder(
        tmp_path: Path) -> None:
    """Skill, command and agent text: a written value in place, else `${VAR}` (a sensitive
    setting always); a key no setting declares stays as written."""
    root = build_tree(tmp_path / "pkg", {
        ".claude-plugin/plugin.json": json.dumps({"name": "svc", "userConfig": {
            "region": {"type": "string", "title": "Region", "description": "d"},
            "token": {"type": "string", "title": "Token", "description": "d",
                      "sensitive": True}}}),
        "skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\n"
                             "${user_config.region} ${user_config.token} ${user_config.nope}\n",
        "commands/c.md": "---\ndescription: d\n---\nin ${user_config.region}\n",
        "agents/a.md": "---\nname: a\ndescription: d\n---\nuse ${user_config.token}\n"})
    package = read_package(root)
    done = ready(package, given_values(package, {"region": "us"}))
    text = {rel: f.data.decode() for rel, f in done.files.items() if rel.endswith(".md")}
    assert text["skills/s/SKILL.md"].endswith("us ${SVC_TOKEN} ${user_config.nope}\n")
    assert text["commands/c.md"].endswith("in us\n")
    assert text["agents/a.md"].endswith("use ${SVC_TOKEN}\n")
    assert [a.body for a in done.agents] == ["use ${SVC_TOKEN}\n"]
    assert [c.body for c in done.commands] == ["in us\n"]
