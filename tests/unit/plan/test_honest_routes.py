"""Routes say what a command or agent loses only where it has it (issue 31 item 6), and a
Claude manifest read completely reaches every harness (adr/0069). Pure planning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import DATA, build_tree
from uze.harnesses import Location
from uze.package import read_package
from uze.paths import Paths
from uze.plan.model import PlannedProjection
from uze.plan.planner import plan_install

CLAUDE = ".claude-plugin/plugin.json"
ALL = ("claude_code", "codex", "opencode", "gemini_cli", "antigravity", "kimi_code",
       "deepseek_harness")


def _rows(root: Path, tmp_path: Path, harnesses: tuple[str, ...] = ALL
          ) -> dict[tuple[str, str, str], PlannedProjection]:
    paths = Paths(home=tmp_path / "home", uze_home=tmp_path / "uze", env={})
    loc = Location("project", tmp_path / "project", paths)
    plan = plan_install(read_package(root), "0" * 64, loc, harnesses)
    return {(p.kind, p.resource, p.harness): p for p in plan.projections}


def _commands(tmp_path: Path, files: dict[str, str]) -> Path:
    return build_tree(tmp_path / "pkg", {"plugin.json": json.dumps({"name": "pkg"}), **files})


def test_a_command_without_arguments_is_not_said_to_lose_them(tmp_path: Path) -> None:
    root = _commands(tmp_path, {"commands/plain.md": "---\ndescription: d\n---\nSay hi.\n"})

    row = _rows(root, tmp_path)[("command", "plain", "codex")]

    assert row.route == "adapted"
    assert "ARGUMENTS" not in row.reason and "$" not in row.reason


@pytest.mark.parametrize("body", ["Fix $ARGUMENTS now.\n", "Compare $1 with $2.\n"])
def test_a_command_whose_body_uses_arguments_is_degraded_as_a_skill(
    tmp_path: Path, body: str
) -> None:
    root = _commands(tmp_path, {"commands/fix.md": f"---\ndescription: d\n---\n{body}"})

    # without Antigravity, whose only root OpenCode and Gemini CLI also read (adr/0070)
    rows = _rows(root, tmp_path, tuple(h for h in ALL if h != "antigravity"))

    for harness in ("codex", "kimi_code", "deepseek_harness"):
        assert rows[("command", "fix", harness)].route == "degraded"
        assert "does not substitute in a skill" in rows[("command", "fix", harness)].reason
    assert rows[("command", "fix", "claude_code")].route == "native"
    assert rows[("command", "fix", "opencode")].route == "adapted"  # its template reads them
    # Gemini CLI's TOML command has {{args}} for the whole text, no $1 (adr/0068)
    gemini = rows[("command", "fix", "gemini_cli")]
    assert gemini.route == ("adapted" if "$ARGUMENTS" in body else "degraded"), gemini.reason


def test_a_commands_model_and_allowed_tools_are_named_where_dropped(tmp_path: Path) -> None:
    root = _commands(tmp_path, {"commands/ship.md": (
        "---\ndescription: d\nmodel: opus\nallowed-tools: Bash(git:*), Read\n---\nShip it.\n")})

    row = _rows(root, tmp_path)[("command", "ship", "codex")]

    assert row.route == "degraded"
    assert "it runs on the session's model, not 'opus'" in row.reason
    assert "its allowed-tools (Bash(git:*), Read) are not granted" in row.reason


def test_an_agents_color_is_a_note_not_a_degradation(tmp_path: Path) -> None:
    root = _commands(tmp_path, {"agents/helper.md": (
        "---\nname: helper\ndescription: Helps.\ncolor: green\nversion: 1.0.0\n---\nHelp.\n")})

    rows = _rows(root, tmp_path, ("claude_code", "gemini_cli", "kimi_code"))

    for harness in ("gemini_cli", "kimi_code"):
        row = rows[("agent", "helper", harness)]
        assert row.route != "degraded", row.reason
        assert f"left out color, version, which {harness} does not show" in row.reason


def test_an_agent_losing_a_real_field_stays_degraded(tmp_path: Path) -> None:
    root = _commands(tmp_path, {"agents/helper.md": (
        "---\nname: helper\ndescription: Helps.\ncolor: green\npermissionMode: plan\n---\nH.\n")})

    row = _rows(root, tmp_path, ("gemini_cli",))[("agent", "helper", "gemini_cli")]

    assert row.route == "degraded"
    assert "dropped fields gemini_cli does not read: permissionMode" in row.reason


def test_claude_manifest_servers_reach_every_harness(tmp_path: Path) -> None:
    root = build_tree(tmp_path / "inline", {
        CLAUDE: json.dumps({"name": "inline", "mcpServers": {"api": {"command": "api-server"}}}),
        "skills/a/SKILL.md": "---\ndescription: a\n---\nA.\n",
    })

    rows = _rows(root, tmp_path)

    assert {harness for (kind, _, harness) in rows if kind == "mcp"} == set(ALL)
    assert rows[("mcp", "api", "codex")].path is not None


def test_a_manifest_claude_code_refuses_gets_a_generated_plugin_folder(tmp_path: Path) -> None:
    root = build_tree(tmp_path / "typed", {
        CLAUDE: json.dumps({"name": "typed", "repository": {"url": "https://x.invalid"}}),
        "skills/a/SKILL.md": "---\ndescription: a\n---\nA.\n",
    })
    paths = Paths(home=tmp_path / "home", uze_home=tmp_path / "uze", env={})
    loc = Location("project", tmp_path / "project", paths)

    plan = plan_install(read_package(root), "0" * 64, loc, ("claude_code",))

    (row,) = [p for p in plan.projections if p.kind == "skill"]
    assert not row.reason.startswith("native package")
    (folder,) = plan.artifacts
    manifest = json.loads(folder.files[".claude-plugin/plugin.json"])  # type: ignore[attr-defined]
    assert manifest == {"name": "typed", "version": "0.0.0"}


def test_gemini_toml_commands_reach_claude_code_as_markdown(tmp_path: Path) -> None:
    paths = Paths(home=tmp_path / "home", uze_home=tmp_path / "uze", env={})
    loc = Location("project", tmp_path / "project", paths)

    plan = plan_install(read_package(DATA / "gemini-extension"), "0" * 64, loc, ("claude_code",))

    (folder,) = [a for a in plan.artifacts if a.target == ".claude/skills/gem-tools"]
    summary = folder.files["commands/git/summary.md"]  # type: ignore[attr-defined]
    assert summary == (b"---\ndescription: Summarise the recent commits\n---\nSummarise these "
                       b"commits for a changelog:\n!`git log --oneline -5`\nFollow the style of "
                       b"@CHANGELOG.md.\n")
    row = next(p for p in plan.projections if p.resource == "summary")
    assert (row.route, row.label) == ("adapted", "gem-tools:git:summary")
    assert row.reason.startswith("a Gemini CLI TOML command, as Claude Code's command text")


def test_a_server_the_manifest_names_by_path_is_listed_for_consent_once(tmp_path: Path) -> None:
    root = build_tree(tmp_path / "bypath", {
        CLAUDE: json.dumps({"name": "bypath", "mcpServers": "./servers.json"}),
        "servers.json": json.dumps({"mcpServers": {"api": {"command": "./bin/api"}}}),
        "bin/api": "#!/bin/sh\n",
    })
    paths = Paths(home=tmp_path / "home", uze_home=tmp_path / "uze", env={})
    loc = Location("project", tmp_path / "project", paths)

    plan = plan_install(read_package(root), "0" * 64, loc, ("claude_code", "codex"))

    assert [run.name for run in plan.executions if run.kind == "mcp"] == ["api"]


def test_labels_name_the_package_once(tmp_path: Path) -> None:
    root = build_tree(tmp_path / "gh-cli", {
        "plugin.json": json.dumps({"name": "gh-cli"}),
        "skills/gh-cli/SKILL.md": "---\ndescription: gh\n---\nUse gh.\n",
        "skills/gh-cli-extra/SKILL.md": "---\ndescription: more\n---\nMore.\n",
        "skills/review/SKILL.md": "---\ndescription: r\n---\nReview.\n",
        "agents/gh-cli-worker.md": "---\nname: gh-cli-worker\ndescription: w\n---\nWork.\n",
        "commands/gh-cli.md": "---\ndescription: c\n---\nRun gh.\n",
    })

    rows = _rows(root, tmp_path, ("codex", "opencode"))

    labels = {(kind, name, harness): row.label for (kind, name, harness), row in rows.items()}
    assert labels[("skill", "gh-cli", "codex")] == "gh-cli"
    assert labels[("skill", "gh-cli-extra", "codex")] == "gh-cli-extra"
    assert labels[("skill", "review", "codex")] == "gh-cli-review"
    assert labels[("agent", "gh-cli-worker", "opencode")] == "gh-cli-worker"
    assert labels[("command", "gh-cli", "opencode")] == "gh-cli"
    assert labels[("command", "gh-cli", "codex")] == "gh-cli-command"  # the skill has gh-cli
