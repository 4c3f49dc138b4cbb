"""Plugins shaped as they are published, through the real `uze` command: read leniently,
warned about, installed and uninstalled byte for byte; `check --strict` refuses on warnings."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, as_json, assert_ok, snapshot
from tests.helpers import DATA

pytestmark = pytest.mark.e2e

PUBLISHED = DATA / "claude-published"
NATIVE_PROJECT = ("native package, its own manifest; Claude Code loads a project's plugins once "
                  "its workspace is trusted")
WARNINGS = [
    ".claude-plugin/plugin.json: category: unknown key; ignored",
    ".claude-plugin/plugin.json: tags: unknown key; ignored",
    ".claude-plugin/plugin.json: strict: unknown key; ignored",
    "skills/table-design/SKILL.md: name: 'Designing Tables' differs from the folder name; "
    "installed as 'table-design'",
    "agents/explainer.md: invalid YAML frontmatter at line 3, column 61: mapping values are not "
    "allowed here; skipped",
]


def test_check_reads_a_published_plugin_and_lists_its_warnings(uze: Uze) -> None:
    document = as_json(assert_ok(uze("check", PUBLISHED, "--harness", "claude_code", "--json")))

    assert document["warnings"] == WARNINGS
    rows = {(p["kind"], p["resource"]) for p in document["projections"]}
    assert rows == {("skill", "format"), ("skill", "lint"), ("skill", "table-design"),
                    ("skill", "tidy"), ("agent", "auditor"), ("agent", "summariser"),
                    ("mcp", "files"), ("mcp", "tracker")}
    human = assert_ok(uze("check", PUBLISHED, "--harness", "claude_code")).stdout
    assert [line for line in human.splitlines() if line.startswith("warning: ")] == [
        f"warning: {line}" for line in WARNINGS
    ]


def test_check_strict_refuses_on_warnings_and_writes_nothing(uze: Uze, sandbox: Sandbox) -> None:
    before = snapshot(sandbox)

    result = uze("check", PUBLISHED, "--strict")

    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        *WARNINGS, f"uze: error: invalid package {PUBLISHED}: 5 problems",
        "hint: fix every problem listed above, then run the command again",
    ]
    assert snapshot(sandbox) == before
    assert_ok(uze("check", DATA / "minimal", "--strict"))


def test_published_plugin_installs_and_uninstalls_byte_for_byte(uze: Uze, sandbox: Sandbox) -> None:
    before = snapshot(sandbox)

    document = as_json(assert_ok(uze("install", PUBLISHED, "--harness", "claude_code", "--trust",
                                     "--json")))

    assert document["warnings"] == WARNINGS
    # read in part (warnings): Claude Code gets the plugin folder uze generates (adr/0048)
    plugin = sandbox.project / ".claude" / "skills" / "claude-published"
    assert [p.name for p in plugin.parent.iterdir()] == ["claude-published"]
    skills = plugin / "skills"
    assert sorted(p.name for p in skills.iterdir()) == ["format", "lint", "table-design", "tidy"]
    table = (skills / "table-design" / "SKILL.md").read_text()
    assert table == "---\ndescription: Use when designing relational tables.\n---\n" \
        "Prefer narrow tables with explicit keys.\n"  # listed by its folder: no name
    agents = sorted(p.name for p in (plugin / "agents").iterdir())
    assert agents == ["auditor.md", "summariser.md"]
    labels = {p["label"] for p in document["projections"] if p["kind"] == "skill"}
    assert labels == {f"claude-published:{name}" for name in ("format", "lint", "table-design",
                                                              "tidy")}
    servers = json.loads((sandbox.project / ".mcp.json").read_text())["mcpServers"]
    assert sorted(servers) == ["files", "tracker"]
    assert servers["tracker"]["url"] == "https://tracker.example.invalid/mcp"
    assert_ok(uze("uninstall", "claude-published"))
    after = snapshot(sandbox)
    assert after["project"] == before["project"]


@pytest.mark.parametrize(
    ("fixture", "folders"),
    [("one-skill", ["one-skill"]), ("skill-set", ["alpha", "beta-two"])],
)
def test_folders_of_skills_without_a_manifest_install_under_the_folder_name(
    uze: Uze, sandbox: Sandbox, fixture: str, folders: list[str]
) -> None:
    before = snapshot(sandbox)

    document = as_json(assert_ok(uze("install", DATA / fixture, "--harness", "claude_code",
                                     "--json")))

    assert document["package"]["name"] == fixture
    skills = sandbox.project / ".claude" / "skills" / fixture / "skills"  # its plugin folder
    assert sorted(p.name for p in skills.iterdir()) == folders
    labels = sorted(p["label"] for p in document["projections"] if p["kind"] == "skill")
    assert labels == [f"{fixture}:{folder}" for folder in folders]
    if fixture == "one-skill":
        copied = skills / folders[0]
        original = (DATA / fixture / "reference.md").read_bytes()
        assert (copied / "reference.md").read_bytes() == original
    assert_ok(uze("uninstall", fixture))
    assert snapshot(sandbox)["project"] == before["project"]


CLAUDE_HOOKS = DATA / "claude-hooks"


def test_claude_protocol_hooks_go_to_claude_code_verbatim_translated_or_unsupported_elsewhere(
    uze: Uze, sandbox: Sandbox
) -> None:
    settings = sandbox.project / ".claude" / "settings.json"
    settings.parent.mkdir()
    own = b'{\n  "model": "sonnet",\n  "hooks": {"Stop": [{"hooks": [{"type": "command", ' \
          b'"command": "mine"}]}]}\n}\n'
    settings.write_bytes(own)
    before = snapshot(sandbox)

    document = as_json(assert_ok(uze("install", CLAUDE_HOOKS, "--harness",
                                     "claude_code,codex,opencode", "--trust", "--json")))

    rows = {(p["resource"], p["harness"]): p["route"]
            for p in document["projections"] if p["kind"] == "hook"}
    reasons = {(p["resource"], p["harness"]): p["reason"]
               for p in document["projections"] if p["kind"] == "hook"}
    names = ("PreToolUse-0", "SessionStart-0", "UserPromptSubmit-0")
    assert rows == {  # adr/0034: Codex runs them through the translating wrapper
        **{(name, "claude_code"): "native" for name in names},
        ("PreToolUse-0", "opencode"): "adapted", ("SessionStart-0", "opencode"): "unsupported",
        ("UserPromptSubmit-0", "opencode"): "unsupported",
        ("PreToolUse-0", "codex"): "degraded", ("SessionStart-0", "codex"): "adapted",
        ("UserPromptSubmit-0", "codex"): "unsupported",
    }
    assert reasons[("SessionStart-0", "opencode")] == (
        "Claude-protocol hook on SessionStart: OpenCode's plugin bridge only observes "
        "session.created, so the handler's answer (block, context, stop) would be lost")
    assert reasons[("UserPromptSubmit-0", "codex")] == (
        "Claude-protocol hook with prompt handlers: the wrapper runs only command handlers on "
        "codex")
    assert "unified_exec" in reasons[("PreToolUse-0", "codex")]
    assert reasons[("SessionStart-0", "codex")].startswith("Claude-protocol hook run by uze's "
                                                           "wrapper")
    assert {reasons[(name, "claude_code")] for name in names} == {NATIVE_PROJECT}
    # adr/0041: Claude Code gets the package whole, as its own plugin; its settings stay as
    # they were and the hooks file is the package's own, every key kept
    plugin = sandbox.project / ".claude" / "skills" / "claude-hooks"
    assert settings.read_bytes() == own
    assert (plugin / "hooks" / "hooks.json").read_bytes() == \
        (CLAUDE_HOOKS / "hooks" / "hooks.json").read_bytes()
    assert (plugin / ".claude-plugin" / "plugin.json").read_bytes() == \
        (CLAUDE_HOOKS / ".claude-plugin" / "plugin.json").read_bytes()
    assert (plugin / "hooks" / "guard.sh").stat().st_mode & 0o111
    codex = json.loads((sandbox.project / ".codex" / "hooks.json").read_text())["hooks"]
    assert sorted(codex) == ["PreToolUse", "SessionStart"]
    wrapper = codex["PreToolUse"][0]["hooks"][0]["command"]
    assert wrapper.endswith("/codex/claude-PreToolUse-0.py")
    assert b'"protocol": "claude"' in Path(wrapper).read_bytes()
    status = as_json(assert_ok(uze("status", "--json")))
    states = {(p["resource"], p["harness"]): p["state"]
              for p in status["packages"][0]["projections"] if p["kind"] == "hook"}
    assert states[("PreToolUse-0", "claude_code")] == "matched"
    assert states[("UserPromptSubmit-0", "codex")] == "undelivered"
    assert states[("SessionStart-0", "opencode")] == "undelivered"
    plugin = (sandbox.project / ".opencode" / "plugins" / "uze-claude-hooks.js").read_text()
    assert "/opencode/claude-PreToolUse-0.py" in plugin
    assert_ok(uze("uninstall", "claude-hooks"))
    assert settings.read_bytes() == own
    assert snapshot(sandbox)["project"] == before["project"]


def test_claude_protocol_hooks_are_listed_for_consent(uze: Uze) -> None:
    result = uze("install", CLAUDE_HOOKS, "--harness", "claude_code")

    assert result.returncode == 1
    assert "PreToolUse-0 (PreToolUse, Claude protocol, Bash|mcp__.*)" in result.stderr
    assert "guard.sh" in result.stderr
    assert '"prompt": "Does the prompt ask for secrets? $ARGUMENTS"' in result.stderr


def test_mcp_as_claude_writes_it_resolves_the_root_everywhere_and_reports_defaults(
    uze: Uze, sandbox: Sandbox
) -> None:
    document = as_json(assert_ok(uze("install", DATA / "claude-mcp", "--harness",
                                     "claude_code,opencode", "--trust", "--json")))

    # project scope: the package copy is named relative to the project root (ADR 0039)
    root = "./.uze/packages/claude-mcp"
    claude = json.loads((sandbox.project / ".mcp.json").read_text())["mcpServers"]
    assert claude["api"] == {
        "command": f"{root}/bin/api", "args": ["--config", f"{root}/api.toml"],
        "env": {"API_TOKEN": "${API_TOKEN:-anonymous}", "DATA": f"{root}/data"}}
    assert claude["docs"] == {
        "type": "http", "url": "https://docs.example.invalid/${REGION:-eu}/mcp",
        "headers": {"X-Plugin-Root": root}}
    rows = {(p["resource"], p["harness"]): (p["route"], p["reason"])
            for p in document["projections"] if p["kind"] == "mcp"}
    assert rows[("api", "claude_code")] == ("native", "")
    assert rows[("api", "opencode")][0] == "degraded"
    assert "opencode has no ${VAR:-default}: the default of API_TOKEN ('anonymous') is dropped" \
        in rows[("api", "opencode")][1]
    assert "REGION ('eu')" in rows[("docs", "opencode")][1]
    opencode = json.loads((sandbox.project / "opencode.json").read_text())["mcp"]
    assert opencode["api"]["environment"]["API_TOKEN"] == "{env:API_TOKEN}"
    assert opencode["docs"]["url"] == "https://docs.example.invalid/{env:REGION}/mcp"


def test_agents_keep_their_tool_allowlist_or_are_degraded(uze: Uze, sandbox: Sandbox) -> None:
    document = as_json(assert_ok(uze("install", DATA / "claude-agents", "--harness",
                                     "claude_code,codex,opencode,gemini_cli", "--trust", "--json")))

    rows = {(p["resource"], p["harness"]): (p["route"], p["reason"])
            for p in document["projections"] if p["kind"] == "agent"}
    assert rows[("code-architect", "claude_code")] == ("native", NATIVE_PROJECT)
    # adr/0041: the agent file reaches Claude Code as the package wrote it, in its own plugin
    plugin = sandbox.project / ".claude/skills/claude-agents"
    claude = (plugin / "agents/code-architect.md").read_bytes()
    assert claude == (DATA / "claude-agents/agents/code-architect.md").read_bytes()
    for line in (b"tools: Glob, Grep, Read\n", b"model: sonnet\n", b"color: green\n",
                 b"permissionMode: plan\n"):
        assert line in claude
    labels = {(p["resource"], p["harness"]): p["label"] for p in document["projections"]}
    assert labels[("code-architect", "claude_code")] == "claude-agents:code-architect"
    assert labels[("code-architect", "opencode")] == "claude-agents-code-architect"
    route, reason = rows[("code-architect", "codex")]
    assert route == "degraded"
    assert "tool allowlist not enforced (tools: Glob, Grep, Read)" in reason
    opencode = (sandbox.project / ".opencode/agents/claude-agents-code-architect.md").read_text()
    assert "tools:\n  '*': false\n  glob: true\n  grep: true\n  read: true\n" in opencode
    gemini = (sandbox.project / ".gemini/agents/claude-agents-code-architect.md").read_text()
    assert "tools:\n- glob\n- search_file_content\n- grep\n- read_file\n- read_many_files\n" \
        in gemini
    assert all(route != "native" for (name, harness), (route, _) in rows.items()
               if name == "code-architect" and harness != "claude_code")
    assert rows[("helper", "opencode")] == ("native", "")


def test_a_claude_plugins_own_documents_are_not_instructions(uze: Uze, sandbox: Sandbox,
                                                             tmp_path: Path) -> None:
    package = tmp_path / "docs-plugin"
    (package / ".claude-plugin").mkdir(parents=True)
    (package / ".claude-plugin" / "plugin.json").write_text('{"name": "docs-plugin"}')
    (package / "AGENTS.md").write_text("# Contributing\nWe reject most pull requests.\n")
    (package / "CLAUDE.md").write_text("Run the test suite before committing.\n")
    (package / "skills" / "s").mkdir(parents=True)
    (package / "skills" / "s" / "SKILL.md").write_text("Use it.\n")

    document = as_json(assert_ok(uze("check", package, "--json")))

    assert document["instructions"] is None
    assert {p["kind"] for p in document["projections"]} == {"skill"}
    assert_ok(uze("install", package, "--harness", "claude_code,codex,gemini_cli"))
    for name in ("AGENTS.md", "CLAUDE.md", "GEMINI.md"):
        assert not (sandbox.project / name).exists()


def test_the_plan_shows_the_size_and_first_line_of_instruction_text(uze: Uze) -> None:
    text = (DATA / "every-kind" / "AGENTS.md").read_bytes()
    first = next(line for line in text.decode().splitlines() if line.strip())

    plan = assert_ok(uze("install", DATA / "every-kind", "--harness", "codex", "--dry-run"))
    document = as_json(assert_ok(uze("check", DATA / "every-kind", "--json")))

    assert f"instructions: AGENTS.md, {len(text)} bytes, first line: {first}" in plan.stdout
    assert document["instructions"] == {"file": "AGENTS.md", "bytes": len(text),
                                        "first_line": first}


def test_commands_reach_every_harness_by_its_best_route(uze: Uze, sandbox: Sandbox) -> None:
    package = DATA / "claude-commands"
    before = snapshot(sandbox)

    document = as_json(assert_ok(uze("install", package, "--harness",
                                     "claude_code,codex,opencode,gemini_cli", "--trust", "--json")))

    rows = {(p["resource"], p["harness"]): (p["route"], p["reason"], p["target"])
            for p in document["projections"] if p["kind"] == "command"}
    assert set(rows) == {(c, h) for c in ("review", "sync")
                         for h in ("claude_code", "codex", "opencode", "gemini_cli")}
    assert all(route != "unsupported" and (route == "native" or reason)
               for route, reason, _ in rows.values())
    project = sandbox.project
    review = (package / "commands" / "review.md").read_bytes()
    # adr/0041: Claude Code gets the package whole, as its own plugin; the labels say how
    # each command is typed there (`/claude-commands:git:sync`)
    plugin = project / ".claude/skills/claude-commands"
    assert (plugin / "commands/review.md").read_bytes() == review
    assert rows[("sync", "claude_code")][2] == ".claude/skills/claude-commands/commands/git/sync.md"
    labels = {(p["resource"], p["harness"]): p["label"] for p in document["projections"]
              if p["kind"] == "command"}
    assert labels[("sync", "claude_code")] == "claude-commands:git:sync"
    assert labels[("review", "claude_code")] == "claude-commands:review"
    assert labels[("review", "opencode")] == "claude-commands-review"
    opencode = (project / ".opencode/commands/claude-commands-review.md").read_text()
    assert opencode.startswith("---\ndescription: Review the current change\n---\n")
    assert "focusing on $ARGUMENTS." in opencode
    # adr/0068: Gemini CLI gets a TOML command, its arguments and shell in Gemini's syntax
    gemini = tomllib.loads((project / rows[("review", "gemini_cli")][2]).read_text())
    assert gemini["description"] == "Review the current change"
    assert "focusing on {{args}}." in gemini["prompt"]
    assert "The diff: !{git diff --stat}" in gemini["prompt"]
    assert rows[("review", "gemini_cli")][2] == ".gemini/commands/claude-commands-review.toml"
    codex_target = rows[("review", "codex")][2]
    skill = (project / codex_target / "SKILL.md").read_text()
    assert skill.startswith("---\nname: claude-commands-review\n")
    assert "allow_implicit_invocation: false" in (project / codex_target / "agents/openai.yaml"
                                                  ).read_text()
    assert "command review (inline shell): git diff --stat" in "\n".join(document["executions"])
    assert_ok(uze("uninstall", "claude-commands"))
    assert snapshot(sandbox)["project"] == before["project"]


def test_install_says_per_harness_how_many_resources_it_received_and_could_not(
    uze: Uze,
) -> None:
    harnesses = "claude_code,codex,opencode"
    rows = as_json(assert_ok(uze("install", CLAUDE_HOOKS, "--harness", harnesses, "--dry-run",
                                 "--json")))["projections"]
    verbose = assert_ok(uze("install", CLAUDE_HOOKS, "--harness", harnesses, "--dry-run")).stdout
    result = assert_ok(uze("install", CLAUDE_HOOKS, "--harness", harnesses, "--trust"))

    lines = result.stdout.splitlines()
    counts = []
    for harness in harnesses.split(","):
        mine = [r for r in rows if r["harness"] == harness]
        lost = sum(r["route"] == "unsupported" for r in mine)
        line = next(line for line in lines if line.startswith(f"  {harness}: "))
        assert line.startswith(f"  {harness}: {len(mine) - lost} delivered"), line
        assert line.endswith(f", {lost} not delivered") == bool(lost), line
        counts.append(f"{harness} {len(mine) - lost} delivered" + (f", {lost} not" if lost else ""))
    assert [line for line in lines if line.startswith("  opencode: ")] == [
        "  opencode: 1 delivered (1 adapted), 2 not delivered"]  # PreToolUse only (ADR 0034)
    unsupported = [r for r in rows if r["route"] == "unsupported"]
    text = result.stdout[result.stdout.index("Not delivered, by reason:"):]
    assert all(r["reason"] in " ".join(text.split()) for r in unsupported)  # each reason once
    assert all(text.count(r["reason"][:40]) == 1 for r in unsupported)
    assert f"Per harness: {'; '.join(counts)}" in verbose
    for name in ("PreToolUse-0", "SessionStart-0", "UserPromptSubmit-0"):
        assert verbose.count(name) >= 2  # a row per harness, delivered or not
