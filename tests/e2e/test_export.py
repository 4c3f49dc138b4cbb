"""`uze export --harness H --out DIR` end to end (issue 34 item 1, ADR 0095): a hand-made Claude
Code setup beside a real `uze install` is exported as a portable package whose every byte is
known, that `uze check` accepts, without a secret value in it, and without a byte of the
project, home or uze's data changing; bad input is refused with nothing written."""

from __future__ import annotations

import json
from pathlib import Path
from subprocess import CompletedProcess

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import EVERY_KIND, Snapshot, Uze, as_json, snapshot
from tests.helpers import build_tree, tree_bytes

pytestmark = pytest.mark.e2e

TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"  # a secret that must never leave the project
BEARER = "Bearer s3cr3t-value"
SKILL_MD = "---\nname: review\ndescription: Review a change.\n---\nRead the diff, then review.\n"
GUIDE = "# Guide\n\nLook for bugs first.\n"
CHECK_SH = "#!/bin/sh\ngit diff --stat\n"
LOGO = bytes(range(256))
AGENT = ("---\nname: tester\ndescription: Runs the tests.\ntools: Read, Bash\nmodel: sonnet\n"
         "---\nRun the whole suite and report failures.\n")
COMMAND = "---\ndescription: Commit the staged work\n---\nCommit with the message $ARGUMENTS.\n"
USER_TEXT = "# Team rules\n\nWrite tests first.\n"
MCP = {"mcpServers": {
    "db": {"type": "stdio", "command": "npx", "args": ["-y", "db-server", "--api-key", TOKEN],
           "env": {"DB_TOKEN": TOKEN, "LOG_LEVEL": "debug"}},
    "tickets": {"type": "http", "url": "https://tickets.example/mcp",
                "headers": {"Authorization": BEARER, "X-Team": "core"}},
}}
SETTINGS = {
    "permissions": {"allow": ["Bash(git status)"]},
    "hooks": {"PostToolUse": [{"matcher": "Write|Edit", "hooks": [
        {"type": "command", "command": "npx prettier --write .", "timeout": 20}]}]},
}


def _json(value: object) -> bytes:
    return (json.dumps(value, indent=2, sort_keys=True) + "\n").encode()


def _setup(sandbox: Sandbox, uze: Uze) -> None:
    """The user's own Claude Code setup, then every-kind installed by uze into the same files
    (a CLAUDE.md region, .mcp.json entries, settings.json hook groups, a plugin folder)."""
    project = sandbox.project
    build_tree(project, {
        ".claude/skills/review/SKILL.md": SKILL_MD,
        ".claude/skills/review/references/guide.md": GUIDE,
        ".claude/skills/review/scripts/check.sh": CHECK_SH,
        ".claude/skills/review/assets/logo.png": LOGO,
        ".claude/agents/tester.md": AGENT,
        ".claude/commands/git/commit.md": COMMAND,
        ".mcp.json": json.dumps(MCP, indent=2) + "\n",
        ".claude/settings.json": json.dumps(SETTINGS, indent=2) + "\n",
        "CLAUDE.md": USER_TEXT,
    })
    (project / ".claude/skills/review/scripts/check.sh").chmod(0o755)
    installed = uze("install", EVERY_KIND, "--harness", "claude_code", "--trust")
    assert installed.returncode == 0, installed.stderr
    assert "<!-- uze:begin every-kind -->" in (project / "CLAUDE.md").read_text()


def _expected() -> dict[str, bytes | str]:
    head = {"name": "shop", "version": "0.1.0",
            "description": "Exported from claude_code (project scope) by uze export"}
    files: dict[str, bytes] = {
        ".claude-plugin/plugin.json": _json(head) + b"\0mode=644",
        "AGENTS.md": USER_TEXT.encode() + b"\0mode=644",
        "agents/tester.md": AGENT.encode() + b"\0mode=644",
        "commands/git/commit.md": COMMAND.encode() + b"\0mode=644",
        "hooks/hooks.json": _json({"hooks": SETTINGS["hooks"]}) + b"\0mode=644",
        "mcp.json": _json({"mcpServers": {
            "db": {"command": "npx", "args": ["-y", "db-server", "--api-key", "${DB_API_KEY}"],
                   "env": {"DB_TOKEN": "${DB_TOKEN}", "LOG_LEVEL": "debug"}},
            "tickets": {"type": "http", "url": "https://tickets.example/mcp",
                        "headers": {"Authorization": "Bearer ${TICKETS_AUTHORIZATION}",
                                    "X-Team": "core"}}}}) + b"\0mode=644",
        "plugin.json": _json(head) + b"\0mode=644",
        "skills/review/SKILL.md": SKILL_MD.encode() + b"\0mode=644",
        "skills/review/assets/logo.png": LOGO + b"\0mode=644",
        "skills/review/references/guide.md": GUIDE.encode() + b"\0mode=644",
        "skills/review/scripts/check.sh": CHECK_SH.encode() + b"\0mode=755",
    }
    folders = {".claude-plugin", "agents", "commands", "commands/git", "hooks", "skills",
               "skills/review", "skills/review/assets", "skills/review/references",
               "skills/review/scripts"}
    return dict(sorted({**files, **dict.fromkeys(folders, "dir")}.items()))


def test_export_writes_the_users_claude_setup_without_uzes_files_or_secrets(
        sandbox: Sandbox, uze: Uze) -> None:
    _setup(sandbox, uze)
    before = snapshot(sandbox)
    out = sandbox.root / "exported"
    result = uze("export", "--harness", "claude_code", "--name", "shop", "--out", out)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert tree_bytes(out) == _expected()
    assert snapshot(sandbox) == before  # nothing in the project, home or uze's data changed
    assert TOKEN not in result.stdout and "s3cr3t" not in result.stdout
    assert "secret: db env.DB_TOKEN is now ${DB_TOKEN}" in result.stdout
    assert "not exported: setting permissions (.claude/settings.json)" in result.stdout
    checked = uze("check", out, "--strict")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert snapshot(sandbox) == before


def test_export_json_names_what_was_exported_left_and_referenced(
        sandbox: Sandbox, uze: Uze) -> None:
    _setup(sandbox, uze)
    out = sandbox.root / "exported"
    result = uze("export", "--harness", "claude", "--name", "shop", "--out", out, "--json")
    assert result.returncode == 0, result.stderr
    document = as_json(result)
    assert document["schema"] == 1
    assert document["package"] == {"name": "shop", "version": "0.1.0"}
    assert (document["harness"], document["scope"], document["out"]) == (
        "claude_code", "project", str(out))
    assert sorted((item["kind"], item["resource"], item["source"], item["path"])
                  for item in document["exported"]) == [
        ("agent", "tester", ".claude/agents/tester.md", "agents/tester.md"),
        ("command", "git/commit", ".claude/commands/git/commit.md", "commands/git/commit.md"),
        ("hook", "PostToolUse-0", ".claude/settings.json", "hooks/hooks.json: "
         "hooks.PostToolUse[0]"),
        ("instructions", "CLAUDE.md", "CLAUDE.md", "AGENTS.md"),
        ("mcp", "db", ".mcp.json", "mcp.json: mcpServers.db"),
        ("mcp", "tickets", ".mcp.json", "mcp.json: mcpServers.tickets"),
        ("skill", "review", ".claude/skills/review", "skills/review"),
    ]
    assert document["secrets"] == [
        {"server": "db", "field": "env.DB_TOKEN", "variable": "DB_TOKEN"},
        {"server": "db", "field": "args[3]", "variable": "DB_API_KEY"},
        {"server": "tickets", "field": "headers.Authorization",
         "variable": "TICKETS_AUTHORIZATION"},
    ]
    assert document["not_exported"] == [
        {"kind": "setting", "resource": "permissions", "source": ".claude/settings.json",
         "reason": "a setting of the harness, not a resource a package carries"}]
    assert document["files"] == sorted(path for path, value in _expected().items()
                                       if value != "dir")
    assert TOKEN not in result.stdout


def test_export_without_name_is_named_after_the_project(sandbox: Sandbox, uze: Uze) -> None:
    build_tree(sandbox.project, {".claude/commands/hello.md": "Say hello.\n"})
    out = sandbox.root / "named"
    result = uze("export", "--harness", "claude_code", "--out", out)
    assert result.returncode == 0, result.stderr
    assert json.loads((out / "plugin.json").read_text())["name"] == "project"


def test_export_into_an_empty_folder_fills_it(sandbox: Sandbox, uze: Uze) -> None:
    build_tree(sandbox.project, {".claude/commands/hello.md": "Say hello.\n"})
    out = sandbox.root / "empty"
    out.mkdir()
    result = uze("export", "--harness", "claude_code", "--out", out)
    assert result.returncode == 0, result.stderr
    assert sorted(tree_bytes(out)) == [
        "commands", "commands/hello.md", "plugin.json"]


def test_export_reads_the_user_scope_from_the_harness_home(sandbox: Sandbox, uze: Uze) -> None:
    build_tree(sandbox.home, {
        ".claude/skills/notes/SKILL.md": "---\nname: notes\ndescription: Take notes.\n---\nx\n",
        ".claude/CLAUDE.md": "Answer briefly.\n",
        ".claude.json": json.dumps({"mcpServers": {"clock": {"command": "clock-mcp"}},
                                    "numStartups": 3}),
    })
    out = sandbox.root / "mine"
    result = uze("export", "--harness", "claude_code", "--scope", "user", "--out", out,
                 "--json")
    assert result.returncode == 0, result.stderr
    assert sorted((i["kind"], i["source"]) for i in as_json(result)["exported"]) == [
        ("instructions", "~/.claude/CLAUDE.md"), ("mcp", "~/.claude.json"),
        ("skill", "~/.claude/skills/notes")]
    assert json.loads((out / "plugin.json").read_text())["name"] == "claude-setup"
    assert (out / "AGENTS.md").read_text() == "Answer briefly.\n"


@pytest.mark.parametrize(("args", "code", "message"), [
    (("--harness", "claud"), 2, "uze: error: unknown harness 'claud'"),
    (("--harness", "claude_code,codex"), 2, "export reads one harness"),
    (("--harness", "claude_code", "--scope", "team"), 2, "invalid --scope 'team'"),
    (("--harness", "claude_code", "--name", "Bad_Name"), 2, "--name 'Bad_Name'"),
])
def test_export_refuses_bad_arguments_and_writes_nothing(
        sandbox: Sandbox, uze: Uze, args: tuple[str, ...], code: int, message: str) -> None:
    build_tree(sandbox.project, {".claude/commands/hello.md": "Say hello.\n"})
    before = snapshot(sandbox)
    out = sandbox.root / "out"
    result = uze("export", *args, "--out", out)
    assert result.returncode == code, result.stderr
    assert message in result.stderr
    assert "hint: " in result.stderr
    assert not out.exists()
    assert snapshot(sandbox) == before


def test_export_refuses_an_out_folder_that_is_not_empty(sandbox: Sandbox, uze: Uze) -> None:
    build_tree(sandbox.project, {".claude/commands/hello.md": "Say hello.\n"})
    out = build_tree(sandbox.root / "taken", {"notes.txt": "mine\n"})
    before = tree_bytes(sandbox.root)
    result = uze("export", "--harness", "claude_code", "--out", out)
    assert result.returncode == 1
    assert f"uze: error: --out {out}: is a folder that is not empty" in result.stderr
    assert "hint: name a new folder" in result.stderr
    assert tree_bytes(sandbox.root) == before


def test_export_refuses_an_out_inside_what_it_reads(sandbox: Sandbox, uze: Uze) -> None:
    build_tree(sandbox.project, {".claude/commands/hello.md": "Say hello.\n"})
    before = snapshot(sandbox)
    result = uze("export", "--harness", "claude_code", "--out", ".claude/skills/pkg")
    assert result.returncode == 2
    assert "which export reads" in result.stderr
    assert snapshot(sandbox) == before


@pytest.mark.parametrize(("path", "text", "message"), [
    (".mcp.json", '{"mcpServers": {"db": ', "uze: error: .mcp.json: does not parse (1:"),
    (".claude/settings.json", "[1, 2]", "uze: error: .claude/settings.json: is not an object"),
    ("CLAUDE.md", "x\n<!-- uze:begin lost -->\ny\n", "CLAUDE.md: uze's region markers do not"),
])
def test_export_refuses_a_file_it_cannot_read_and_writes_nothing(
        sandbox: Sandbox, uze: Uze, path: str, text: str, message: str) -> None:
    build_tree(sandbox.project, {".claude/commands/hello.md": "Say hello.\n", path: text})
    before = snapshot(sandbox)
    out = sandbox.root / "out"
    result = uze("export", "--harness", "claude_code", "--out", out)
    assert result.returncode == 1, result.stderr
    assert message in result.stderr
    assert "nothing was written" in result.stderr
    assert not out.exists()
    assert [p.name for p in sandbox.root.iterdir() if "uze-tmp" in p.name] == []
    assert snapshot(sandbox) == before


def test_export_with_nothing_of_the_users_says_so(sandbox: Sandbox, uze: Uze) -> None:
    installed = uze("install", EVERY_KIND, "--harness", "claude_code", "--trust")
    assert installed.returncode == 0, installed.stderr
    out = sandbox.root / "out"
    result = uze("export", "--harness", "claude_code", "--out", out)
    assert result.returncode == 1
    assert "nothing to export: claude_code has nothing in project scope" in result.stderr
    assert not out.exists()


def test_export_notes_what_an_exported_item_still_needs_from_the_project(
        sandbox: Sandbox, uze: Uze) -> None:
    build_tree(sandbox.project, {
        "CLAUDE.md": "Read @docs/rules.md and mail me@example.com.\n\n```\n@docs/code.md\n```\n",
        "docs/rules.md": "Rules.\n",
        "docs/code.md": "Code.\n",
        ".claude/settings.json": json.dumps({"hooks": {"Stop": [{"hooks": [{
            "type": "command", "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/done.sh'}]}]}}),
    })
    out = sandbox.root / "out"
    result = uze("export", "--harness", "claude_code", "--out", out, "--json")
    assert result.returncode == 0, result.stderr
    assert as_json(result)["notes"] == [
        "hook Stop-0 (.claude/settings.json) runs a file of the project ($CLAUDE_PROJECT_DIR): "
        "kept as written, it runs where that project is; the file is not in the package",
        "instructions CLAUDE.md import docs/rules.md: kept as written; the imported files are "
        "not in the package"]
    assert (out / "AGENTS.md").read_bytes() == (sandbox.project / "CLAUDE.md").read_bytes()


def test_export_lists_what_is_not_a_portable_skill(sandbox: Sandbox, uze: Uze) -> None:
    build_tree(sandbox.project, {
        ".claude/skills/Bad_Name/SKILL.md": "---\ndescription: x\n---\nx\n",
        ".claude/skills/empty/README.md": "no skill here\n",
        ".claude/skills/theirs/.claude-plugin/plugin.json": '{"name": "theirs"}',
        ".claude/commands/hello.md": "Say hello.\n",
    })
    out = sandbox.root / "out"
    result = uze("export", "--harness", "claude_code", "--out", out, "--json")
    assert result.returncode == 0, result.stderr
    left = {item["resource"]: item["reason"] for item in as_json(result)["not_exported"]}
    assert set(left) == {"Bad_Name", "empty", "theirs"}
    assert left["empty"] == "no SKILL.md: not a skill"
    assert left["theirs"].startswith("a Claude Code plugin folder")
    assert not (out / "skills").exists()


def _installed_then_exported(sandbox: Sandbox, uze: Uze, harness: str, name: str
                             ) -> tuple[Snapshot, Path, CompletedProcess[str]]:
    """every-kind installed by uze for `harness` beside the user's setup, then exported with
    --json: the snapshot between the two, OUT and the export's result (exit 0 checked)."""
    installed = uze("install", EVERY_KIND, "--harness", harness, "--trust")
    assert installed.returncode == 0, installed.stderr
    before = snapshot(sandbox)
    out = sandbox.root / "out"
    result = uze("export", "--harness", harness, "--name", name, "--out", out, "--json")
    assert result.returncode == 0, result.stderr
    return before, out, result


def test_export_reads_codex_back_into_portable_resources(sandbox: Sandbox, uze: Uze) -> None:
    build_tree(sandbox.project, {
        ".agents/skills/lint/SKILL.md": "---\nname: lint\ndescription: Lint.\n---\nLint it.\n",
        ".codex/agents/rev.toml": 'name = "rev"\ndescription = "Reviews code"\nmodel = "gpt-5"\n'
                                  'model_reasoning_effort = "high"\ncolor = "blue"\n'
                                  'developer_instructions = """\nReview carefully.\n"""\n',
        ".codex/config.toml": 'model = "gpt-5"\n\n[mcp_servers.db]\ncommand = "db-mcp"\n'
                              f'args = ["--stdio"]\nenv = {{ DB_PASSWORD = "{TOKEN}" }}\n'
                              "tool_timeout_sec = 30\n\n[mcp_servers.remote]\n"
                              'url = "https://r.example/mcp"\nbearer_token_env_var = "R_TOKEN"\n',
        ".codex/hooks.json": json.dumps({"hooks": {"PreToolUse": [{
            "matcher": "apply_patch|shell", "hooks": [{"type": "command",
                                                        "command": "./check.sh"}]}]}}),
        "AGENTS.md": "Use tabs.\n",
    })
    before, out, result = _installed_then_exported(sandbox, uze, "codex", "cx")
    head = {"name": "cx", "version": "0.1.0",
            "description": "Exported from codex (project scope) by uze export"}
    assert {path: value for path, value in tree_bytes(out).items() if value != "dir"} == {
        ".claude-plugin/plugin.json": _json(head) + b"\0mode=644",
        "AGENTS.md": b"Use tabs.\n\0mode=644",
        "agents/rev.md": b"---\nname: rev\ndescription: Reviews code\nharness:\n  codex:\n"
                         b"    model: gpt-5\n    model_reasoning_effort: high\n---\n"
                         b"Review carefully.\n\0mode=644",
        "hooks/hooks.json": _json({"hooks": {"PreToolUse": [{
            "matcher": "Edit|Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}]}})
        + b"\0mode=644",
        "mcp.json": _json({"mcpServers": {
            "db": {"command": "db-mcp", "args": ["--stdio"],
                   "env": {"DB_PASSWORD": "${DB_PASSWORD}"}},
            "remote": {"url": "https://r.example/mcp",
                       "headers": {"Authorization": "Bearer ${R_TOKEN}"}}}}) + b"\0mode=644",
        "plugin.json": _json(head) + b"\0mode=644",
        "skills/lint/SKILL.md": b"---\nname: lint\ndescription: Lint.\n---\nLint it.\n\0mode=644",
    }
    left = {(item["resource"], item["reason"]) for item in as_json(result)["not_exported"]}
    assert left == {
        ("rev", "key color: not a field uze carries for codex agents; not exported"),
        ("db", "Codex's own keys tool_timeout_sec: not portable")}
    assert TOKEN not in result.stdout
    assert snapshot(sandbox) == before
    checked = uze("check", out)
    assert checked.returncode == 0, checked.stdout + checked.stderr


GEMINI_SETTINGS = """{
  // the user's own settings
  "theme": "dark",
  "mcpServers": {"lookup": {"httpUrl": "https://s.example/mcp", "headers": {"X-Api-Key": "k"}}}
}
"""


def test_export_reads_gemini_back_into_portable_resources(sandbox: Sandbox, uze: Uze) -> None:
    build_tree(sandbox.project, {
        ".gemini/commands/git/commit.toml": 'description = "Commit"\n'
                                            'prompt = "Commit {{args}}. Now: !{git status}"\n',
        ".gemini/agents/helper.md": "---\nname: helper\ndescription: Helps.\nkind: local\n"
                                    "temperature: 0.2\nfavourite: blue\n---\nHelp out.\n",
        ".gemini/settings.json": GEMINI_SETTINGS,
        "GEMINI.md": "Be terse.\n",
    })
    before, out, result = _installed_then_exported(sandbox, uze, "gemini_cli", "gm")
    files = {path: value for path, value in tree_bytes(out).items() if value != "dir"}
    assert sorted(files) == ["AGENTS.md", "agents/helper.md", "commands/git/commit.md",
                             "mcp.json", "plugin.json"]
    assert files["commands/git/commit.md"] == (
        b"---\ndescription: Commit\n---\nCommit $ARGUMENTS. Now: !`git status`\n\0mode=644")
    assert files["agents/helper.md"] == (
        b"---\nname: helper\ndescription: Helps.\nharness:\n  gemini_cli:\n    kind: local\n"
        b"    temperature: 0.2\n---\nHelp out.\n\0mode=644")
    assert files["mcp.json"] == _json({"mcpServers": {"lookup": {
        "type": "http", "url": "https://s.example/mcp",
        "headers": {"X-Api-Key": "${LOOKUP_X_API_KEY}"}}}}) + b"\0mode=644"
    assert files["AGENTS.md"] == b"Be terse.\n\0mode=644"
    assert as_json(result)["not_exported"] == [
        {"kind": "agent", "resource": "helper", "source": ".gemini/agents/helper.md",
         "reason": "key favourite: not a field uze carries for gemini_cli agents; not exported"}]
    assert snapshot(sandbox) == before
    assert uze("check", out).returncode == 0


def test_export_refuses_a_harness_whose_hooks_it_cannot_translate(
        sandbox: Sandbox, uze: Uze) -> None:
    build_tree(sandbox.project, {
        ".gemini/settings.json": json.dumps({"hooks": {"BeforeTool": [{"matcher": "x", "hooks": [
            {"type": "command", "command": "guard"}]}]}}),
        "GEMINI.md": "Be terse.\n",
    })
    before = snapshot(sandbox)
    out = sandbox.root / "out"
    result = uze("export", "--harness", "gemini_cli", "--out", out)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        ".gemini/settings.json: hooks: gemini_cli's hook groups speak its own protocol, not "
        "Claude's; they are not yet read back into a package",
        "uze: error: cannot export gemini_cli yet: it has what uze export cannot translate into "
        "a portable package; nothing was written",
        "hint: move those aside (or export from a harness that can be exported, such as "
        "claude_code) and run again"]
    assert not out.exists()
    assert snapshot(sandbox) == before


OPENCODE = {"$schema": "https://opencode.ai/config.json", "mcp": {
    "notes": {"type": "local", "command": ["notes-mcp", "--db", "n.db"],
              "environment": {"NOTES_TOKEN": "{env:NOTES_TOKEN}", "SECRET_KEY": TOKEN}},
    "wiki": {"type": "remote", "url": "https://wiki.example/mcp", "enabled": False}}}


def test_export_reads_opencode_back_into_portable_resources(sandbox: Sandbox, uze: Uze) -> None:
    build_tree(sandbox.project, {
        ".opencode/commands/test.md": "---\ndescription: Test it\nagent: build\n---\nTest it.\n",
        ".opencode/agents/docs.md": "---\ndescription: Docs writer\nmode: subagent\n"
                                    "temperature: 0.1\n---\nWrite docs.\n",
        "opencode.json": json.dumps(OPENCODE, indent=2) + "\n",
    })
    before, out, result = _installed_then_exported(sandbox, uze, "opencode", "oc")
    assert snapshot(sandbox) == before
    assert TOKEN not in result.stdout
    assert (out / "mcp.json").read_bytes() == _json({"mcpServers": {
        "notes": {"command": "notes-mcp", "args": ["--db", "n.db"],
                  "env": {"NOTES_TOKEN": "${NOTES_TOKEN}", "SECRET_KEY": "${SECRET_KEY}"}},
        "wiki": {"url": "https://wiki.example/mcp", "enabled": False}}})
    assert as_json(result)["secrets"] == [
        {"server": "notes", "field": "env.SECRET_KEY", "variable": "SECRET_KEY"}]
    assert (out / "agents/docs.md").read_bytes() == (
        b"---\nname: docs\ndescription: Docs writer\nharness:\n  opencode:\n"
        b"    temperature: 0.1\n---\nWrite docs.\n")
    assert (out / "commands/test.md").read_bytes() == (
        b"---\ndescription: Test it\nagent: build\n---\nTest it.\n")
    # AGENTS.md held only the region uze wrote: nothing of the user's to export
    assert sorted(p.name for p in out.iterdir()) == [
        "agents", "commands", "mcp.json", "plugin.json"]
    assert uze("check", out).returncode == 0


def test_export_lists_claude_codes_private_servers_and_leaves_them_out(
        sandbox: Sandbox, uze: Uze) -> None:
    build_tree(sandbox.project, {".claude/commands/hello.md": "Say hello.\n"})
    build_tree(sandbox.home, {".claude.json": json.dumps({"projects": {str(sandbox.project): {
        "mcpServers": {"mine": {"command": "mine-mcp", "env": {"API_KEY": TOKEN}}}}}})})
    out = sandbox.root / "out"
    result = uze("export", "--harness", "claude_code", "--out", out, "--json")
    assert result.returncode == 0, result.stderr
    assert TOKEN not in result.stdout
    assert as_json(result)["not_exported"] == [{
        "kind": "mcp", "resource": "mine", "source": "~/.claude.json: projects.<this "
        "project>.mcpServers", "reason": "a server Claude Code keeps for you alone in this "
        "project (its local scope): not exported into a package meant to be shared; `claude "
        "mcp add --scope project` makes it the project's"}]
    assert not (out / "mcp.json").exists()
