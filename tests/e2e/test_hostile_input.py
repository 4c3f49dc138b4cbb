"""Hostile input gets a clean answer (issue 19, items 9-14): a package or a project built to
break uze makes it exit 1 (2 for usage) with `uze: error: ...` naming the file and the fix,
never a traceback, and nothing is written anywhere; user content is never lost.

Every test runs the real `uze` in a subprocess with a fresh HOME, UZE_HOME and project (the
autouse `sandbox` fixture) and compares byte snapshots of all three before and after.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, assert_no_traceback, assert_ok, snapshot
from tests.helpers import REPO, build_tree

pytestmark = pytest.mark.e2e

SKILL = "---\nname: s\ndescription: A skill.\n---\nBody.\n"
MCP = {"mcpServers": {"srv": {"command": "node", "args": ["server.js"]}}}
HOOKS = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}]}}


def _package(root: Path, name: str = "pkg", **files: str | bytes) -> Path:
    """A valid package `name` with one skill, plus `files` (relative path with `__` for `/`)."""
    tree: dict[str, str | bytes] = {
        "plugin.json": json.dumps({"name": name, "version": "1.0.0"}) + "\n",
        "skills/s/SKILL.md": SKILL,
    }
    tree |= {rel.replace("__", "/"): data for rel, data in files.items()}
    return build_tree(root / "packages" / name, tree)


def _assert_refused(
    result: subprocess.CompletedProcess[str], before: dict[str, dict[str, bytes | str]],
    sandbox: Sandbox, *lines: str, code: int = 1,
) -> None:
    """Exit `code`, each of `lines` on stderr, a hint, nothing on stdout, nothing written."""
    assert_no_traceback(result)
    assert result.returncode == code, result.stderr
    assert result.stdout == ""
    for line in lines:
        assert line in result.stderr.splitlines(), (line, result.stderr)
    assert result.stderr.splitlines()[-1].startswith("hint: "), result.stderr
    assert snapshot(sandbox) == before


def _invalid(source: Path, count: int = 1) -> str:
    return f"uze: error: invalid package {source}: {count} problem{'s' if count > 1 else ''}"


# item 12: what a package file can make uze compute --------------------------------------


def _deep_json(key: str) -> str:
    return "{" + f'"{key}": ' + "[" * 100_000 + "]" * 100_000 + "}"


@pytest.mark.parametrize(
    ("relpath", "text"),
    [
        ("plugin.json", '{"name": "pkg", "version": "1.0.0", "x": ' + "[" * 100_000
         + "]" * 100_000 + "}"),
        ("mcp.json", _deep_json("mcpServers")),
        ("hooks.json", _deep_json("hooks")),
        ("mcp.json", '{"mcpServers": ' + '{"a": ' * 70 + "{}" + "}" * 70 + "}"),
    ],
    ids=["plugin.json-100000", "mcp.json-100000", "hooks.json-100000", "mcp.json-71-objects"],
)
@pytest.mark.parametrize("command", ["check", "install"])
def test_deeply_nested_json_in_a_package_is_refused_by_name(
    sandbox: Sandbox, uze: Uze, relpath: str, text: str, command: str
) -> None:
    source = _package(sandbox.root)
    (source / relpath).write_text(text, encoding="utf-8")
    before = snapshot(sandbox)
    trust = ["--trust"] if command == "install" else []
    result = uze(command, source, "--harness", "all", *trust)
    _assert_refused(result, before, sandbox, f"{relpath}: nested more than 64 levels deep",
                    _invalid(source))


def _alias_bomb(levels: int, key: str = "x") -> str:
    lines = [f'{key}0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"{key}{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]"
              for i in range(1, levels)]
    return "\n".join(lines) + "\n"


BOMB = "frontmatter stands for more than 10000 values once its aliases (*name) are expanded; " \
       "write the values out, or use fewer aliases"


@pytest.mark.parametrize(
    ("relpath", "text", "problem"),
    [
        ("skills/s/SKILL.md", f"---\nname: s\ndescription: d\n{_alias_bomb(9)}---\nB\n", BOMB),
        ("agents/a.md",
         "---\nname: a\ndescription: d\n" + _alias_bomb(9) + "harness:\n  codex:\n    model: *a8\n"
         "---\nB\n", BOMB),
        ("skills/s/SKILL.md", "---\nname: s\ndescription: d\nx: &a [*a]\n---\nB\n",
         "frontmatter holds an alias inside the value it names"),
        ("skills/s/SKILL.md", "---\nname: s\ndescription: d\nx: " + "[" * 5000 + "]" * 5000
         + "\n---\nB\n", "frontmatter is nested more than 64 levels deep"),
        ("skills/s/SKILL.md", "---\nname: s\ndescription: d\nx: '" + "y" * 300_000 + "'\n---\nB\n",
         "frontmatter is larger than 256 KiB"),
    ],
    ids=["alias-bomb-skill", "alias-bomb-agent-codex", "recursive-alias", "deep-yaml", "huge"],
)
def test_frontmatter_that_expands_without_bound_is_refused_fast(
    sandbox: Sandbox, uze: Uze, relpath: str, text: str, problem: str
) -> None:
    """A bad frontmatter skips its one resource (issue 21); the limit makes it cheap, so
    `check --strict` refuses at once and `install` delivers the rest with the warning."""
    source = _package(sandbox.root, **{"agents__b.md": "---\nname: b\ndescription: d\n---\nB\n"})
    build_tree(source, {relpath: text})
    before = snapshot(sandbox)
    line = f"{relpath}: {problem}; skipped"
    _assert_refused(uze("check", source, "--strict"), before, sandbox, line, _invalid(source))
    started = time.monotonic()
    result = assert_ok(uze("install", source, "--harness", "claude_code"))
    assert time.monotonic() - started < 10
    assert f"warning: {line}" in " ".join(result.stdout.split())
    delivered = {p.relative_to(sandbox.project).as_posix()
                 for p in (sandbox.project / ".claude").rglob("*") if p.is_file()}
    skipped = ".claude/skills/pkg/agents/a.md" if relpath.startswith("agents/") \
        else ".claude/skills/pkg/skills/s/SKILL.md"  # Claude Code's plugin folder (adr/0048)
    assert ".claude/skills/pkg/agents/b.md" in delivered
    assert skipped not in delivered


NULL = "has no value (null); give it one or leave the key out"


@pytest.mark.parametrize(
    ("harness_block", "description", "location"),
    [
        ("  codex:\n    model:\n", "d", f"harness.codex.model: {NULL}"),
        ("  codex:\n    model: [1, null]\n", "d", f"harness.codex.model: {NULL}"),
        ("  claude_code:\n    tools: {a: null}\n", "d", f"harness.claude_code.tools: {NULL}"),
        ("  codex:\n    model: 2020-01-01\n", "d",
         "harness.codex.model: holds a date; quote it to make it text"),
        ("  codex: {}\n", "", "description: must be text"),
    ],
    ids=["null", "null-in-list", "null-in-mapping", "date", "null-description"],
)
@pytest.mark.parametrize("command", ["check", "install"])
def test_an_empty_value_where_text_is_expected_skips_the_agent_by_location(
    sandbox: Sandbox, uze: Uze, harness_block: str, description: str, location: str, command: str
) -> None:
    source = _package(sandbox.root)
    build_tree(source, {"agents/a.md":
                        f"---\nname: a\ndescription: {description}\nharness:\n{harness_block}"
                        "---\nBody.\n"})
    before = snapshot(sandbox)
    line = f"agents/a.md: {location}; skipped"
    if command == "check":
        result = uze("check", source, "--harness", "all", "--strict")
        _assert_refused(result, before, sandbox, line, _invalid(source))
        return
    result = assert_ok(uze("install", source, "--harness", "all"))
    assert f"warning: {line}" in " ".join(result.stdout.split())
    assert not list(sandbox.project.rglob("pkg-a.*"))  # no harness got the agent
    assert not (sandbox.project / ".claude/skills/pkg/agents").exists()  # nor Claude Code's plugin
    assert (sandbox.project / ".claude/skills/pkg/skills/s/SKILL.md").is_file()


@pytest.mark.parametrize("command", [None, "", 5, "  "], ids=["null", "empty", "number", "blank"])
def test_a_claude_hook_without_a_command_line_is_skipped_not_delivered(
    sandbox: Sandbox, uze: Uze, command: object
) -> None:
    handler = {"type": "command", "command": command}
    good = {"type": "command", "command": "echo ok"}
    hooks = {"hooks": {"SessionStart": [{"hooks": [handler]}, {"hooks": [good]}]}}
    source = build_tree(sandbox.root / "claude-pkg", {
        ".claude-plugin/plugin.json": json.dumps({"name": "pkg", "version": "1.0.0"}),
        "hooks/hooks.json": json.dumps(hooks), "skills/s/SKILL.md": SKILL,
    })
    line = ("hooks/hooks.json: hooks.SessionStart[0].hooks[0]: a command handler needs a "
            "`command` line (text); the group is skipped")
    before = snapshot(sandbox)
    _assert_refused(uze("check", source, "--strict"), before, sandbox, line, _invalid(source))
    result = assert_ok(uze("install", source, "--harness", "claude_code", "--trust"))
    assert f"warning: {line}" in " ".join(result.stdout.split())
    settings = json.loads((sandbox.project / ".claude/settings.json").read_text())
    assert settings["hooks"]["SessionStart"] == [{"hooks": [good]}]


# item 12: harness configs of the wrong shape in the project ----------------------------

SHAPES = [
    (".mcp.json", "[]", "mcpServers.srv", "the top level", "an array"),
    (".mcp.json", '{"mcpServers": null}', "mcpServers.srv", "mcpServers", "null"),
    (".mcp.json", '{"mcpServers": []}', "mcpServers.srv", "mcpServers", "an array"),
    (".claude/settings.json", '{"hooks": []}', "hooks.SessionStart", "hooks", "an array"),
    (".claude/settings.json", "[]", "hooks.SessionStart", "the top level", "an array"),
    (".codex/config.toml", "[[mcp_servers]]\n", "mcp_servers.srv", "mcp_servers", "an array"),
    (".codex/config.toml", "mcp_servers = 1\n", "mcp_servers.srv", "mcp_servers", "a number"),
    (".codex/hooks.json", '{"hooks": true}', "hooks.SessionStart", "hooks", "true or false"),
    (".gemini/settings.json", '"a string"', "mcpServers.srv", "the top level", "a string"),
    ("opencode.json", '{"mcp": null}', "mcp.srv", "mcp", "null"),
]


@pytest.mark.parametrize(("relpath", "text", "key", "where", "found"), SHAPES,
                         ids=[f"{s[0]}={s[1].strip()}" for s in SHAPES])
def test_a_harness_config_of_the_wrong_shape_is_refused_before_anything_is_written(
    sandbox: Sandbox, uze: Uze, relpath: str, text: str, key: str, where: str, found: str
) -> None:
    files = {"mcp.json": json.dumps(MCP), "hooks.json": json.dumps(HOOKS)}
    source = _package(sandbox.root, **files)
    build_tree(sandbox.project, {relpath: text})
    before = snapshot(sandbox)
    result = uze("install", source, "--harness", "all", "--trust")
    _assert_refused(
        result, before, sandbox,
        f"uze: error: cannot add {key} to {relpath}: {where} is {found}, not an object",
        f"hint: fix {where} in {relpath} by hand (the harness expects an object there), or leave "
        "out that harness with --harness; nothing was written",
    )


@pytest.mark.parametrize(("relpath", "text", "key", "where", "found"),
                         [SHAPES[0], SHAPES[3], SHAPES[5], SHAPES[8]],
                         ids=[f"{s[0]}={s[1].strip()}" for s in (SHAPES[0], SHAPES[3], SHAPES[5],
                                                                 SHAPES[8])])
def test_a_config_reshaped_after_install_is_refused_on_reinstall_and_uninstall_works(
    sandbox: Sandbox, uze: Uze, relpath: str, text: str, key: str, where: str, found: str
) -> None:
    files = {"mcp.json": json.dumps(MCP), "hooks.json": json.dumps(HOOKS)}
    source = _package(sandbox.root, **files)
    assert_ok(uze("install", source, "--harness", "all", "--trust"))
    (sandbox.project / relpath).write_text(text)  # the user rewrote it: uze's entry is gone
    before = snapshot(sandbox)
    _assert_refused(
        uze("install", source, "--trust"), before, sandbox,
        f"uze: error: cannot add {key} to {relpath}: {where} is {found}, not an object",
    )
    document = json.loads(assert_ok(uze("status", "pkg", "--json")).stdout)
    states = {p["target"]: p["state"] for pkg in document["packages"] for p in pkg["projections"]}
    suffix = "[pkg/SessionStart-0]" if key.startswith("hooks.") else ""
    assert states[f"{relpath}#{key}{suffix}"] == "missing"
    assert_ok(uze("uninstall", "pkg"))
    assert (sandbox.project / relpath).read_text() == text


def test_a_hook_list_of_the_wrong_shape_names_the_file_and_the_fix(
    sandbox: Sandbox, uze: Uze
) -> None:
    source = _package(sandbox.root, **{"hooks.json": json.dumps(HOOKS)})
    build_tree(sandbox.project, {".claude/settings.json": '{"hooks": {"SessionStart": {}}}'})
    before = snapshot(sandbox)
    result = uze("install", source, "--harness", "claude_code", "--trust")
    _assert_refused(
        result, before, sandbox,
        "uze: error: cannot safely edit .claude/settings.json: hooks.SessionStart is not a list",
        "hint: move that value aside by hand, or leave out that harness with --harness, "
        "then run again",
    )


# item 12: EACCES ----------------------------------------------------------------------


def _denied(
    sandbox: Sandbox, paths: list[Path], *args: str | Path
) -> subprocess.CompletedProcess[str]:
    """uze with every open of `paths` failing with EACCES (tests/e2e/eacces_runner.py)."""
    return subprocess.run(
        [sys.executable, "-m", "tests.e2e.eacces_runner", ":".join(map(str, paths)),
         *map(str, args)],
        cwd=sandbox.project, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True,
        text=True, timeout=120, check=False,
    )


@pytest.mark.parametrize("relpath", ["plugin.json", "skills/s/SKILL.md", "skills", "mcp.json"])
def test_a_package_file_uze_may_not_read_is_refused_by_name(
    sandbox: Sandbox, relpath: str
) -> None:
    source = _package(sandbox.root, **{"mcp.json": json.dumps(MCP)})
    before = snapshot(sandbox)
    result = _denied(sandbox, [source / relpath], "install", source, "--harness", "all", "--trust")
    _assert_refused(result, before, sandbox, f"{relpath}: cannot read: Permission denied",
                    _invalid(source))


@pytest.mark.parametrize("relpath", [".mcp.json", "CLAUDE.md", ".claude/settings.json"])
def test_a_project_file_uze_may_not_read_is_refused_by_name(
    sandbox: Sandbox, relpath: str
) -> None:
    source = _package(sandbox.root, **{"mcp.json": json.dumps(MCP), "AGENTS.md": "Be brief.\n",
                                       "hooks.json": json.dumps(HOOKS)})
    build_tree(sandbox.project, {relpath: "{}\n" if relpath.endswith(".json") else "Mine.\n"})
    before = snapshot(sandbox)
    result = _denied(sandbox, [sandbox.project / relpath],
                     "install", source, "--harness", "claude_code", "--trust")
    _assert_refused(
        result, before, sandbox, f"uze: error: permission denied: {sandbox.project / relpath}",
        "hint: give your user access to it (see ls -l), or leave out what needs it, then run the "
        "command again; what this command changed was put back",
    )


# item 14: --harness lists --------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (",,", "--harness ',,' names no harness"),
        ("", "--harness '' names no harness"),
        (" , ", "--harness ' , ' names no harness"),
        ("claude_code,,codex", "--harness 'claude_code,,codex' has an empty name in its list"),
        ("codex,", "--harness 'codex,' has an empty name in its list"),
    ],
)
@pytest.mark.parametrize("form", ["install", "install --json", "install --dry-run", "check"])
def test_an_empty_harness_list_is_a_usage_error(
    sandbox: Sandbox, uze: Uze, value: str, message: str, form: str
) -> None:
    source = _package(sandbox.root)
    command, *flags = form.split()
    before = snapshot(sandbox)
    result = uze(command, source, *flags, "--harness", value)
    _assert_refused(result, before, sandbox, f"uze: error: {message}",
                    "hint: name them: --harness claude_code,codex (or --harness all)", code=2)
    equals = uze(command, source, *flags, f"--harness={value}")  # typer's path, not the fast one
    assert (equals.returncode, equals.stderr) == (2, result.stderr)


def test_a_harness_list_with_spaces_still_installs(sandbox: Sandbox, uze: Uze) -> None:
    source = _package(sandbox.root)
    result = assert_ok(uze("install", source, "--harness", " claude_code , codex "))
    assert result.stdout.startswith(
        f"Installed pkg 1.0.0 (project scope, {sandbox.project}) for claude_code, codex\n")


# items 9-11: user content is never lost -----------------------------------------------

AGENT = "---\nname: a\ndescription: An agent.\n---\n{body}\n"


def _versions(sandbox: Sandbox, count: int, files: dict[str, str] | None = None) -> list[Path]:
    """Versions 1..count of package `pkg` (a skill, an agent saying `vN`, an MCP server);
    `files` (relative path -> text) go into version 2 and later."""
    found = []
    for number in range(1, count + 1):
        extra = (files or {}) if number > 1 else {}
        found.append(build_tree(sandbox.root / f"v{number}", {
            "plugin.json": json.dumps({"name": "pkg", "version": f"{number}.0.0"}),
            "skills/s/SKILL.md": SKILL,
            "agents/a.md": AGENT.format(body=f"v{number}"),
            "mcp.json": json.dumps(MCP),
            **extra,
        }))
    return found


def _status_states(uze: Uze) -> dict[str, str]:
    document = json.loads(assert_ok(uze("status", "pkg", "--json")).stdout)
    return {p["target"]: p["state"] for pkg in document["packages"] for p in pkg["projections"]}


@pytest.mark.parametrize("same_bytes", [False, True], ids=["different", "identical"])
def test_an_upgrade_keeps_a_users_own_file_at_a_path_the_new_version_ships_as_the_users(
    sandbox: Sandbox, uze: Uze, same_bytes: bool
) -> None:
    theirs = "Notes from the package.\n"
    mine = theirs if same_bytes else "My own notes.\n"
    v1, v2 = _versions(sandbox, 2, {"skills/s/notes.md": theirs})
    assert_ok(uze("install", v1, "--harness", "claude_code", "--trust"))
    skill = sandbox.project / ".claude/skills/pkg/skills/s"  # in Claude Code's plugin folder
    (skill / "notes.md").write_text(mine)
    assert_ok(uze("install", v2, "--harness", "claude_code", "--trust"))
    assert (skill / "notes.md").read_text() == mine
    beside = skill / "notes.md.uze-new"
    assert beside.exists() != same_bytes
    if not same_bytes:
        assert beside.read_text() == theirs
        beside.unlink()  # the user reads it and throws it away
    states = _status_states(uze)
    assert states.pop(".claude/skills/pkg/skills/s") == "drifted"  # the skill holds theirs
    assert set(states.values()) == {"matched"}  # the rest of the plugin folder is as written
    result = assert_ok(uze("uninstall", "pkg"))
    assert "kept .claude/skills/pkg/skills/s/notes.md: yours, not uze's; kept" in result.stdout
    assert (skill / "notes.md").read_text() == mine


def test_a_uze_new_file_is_the_users_and_the_next_upgrade_writes_beside_it(
    sandbox: Sandbox, uze: Uze
) -> None:
    v1, v2, v3 = _versions(sandbox, 3)
    (v3 / "agents/a.md").write_text(AGENT.format(body="v3"))
    (v3 / "skills/s/SKILL.md").write_text(SKILL + "More.\n")
    (v2 / "skills/s/SKILL.md").write_text(SKILL + "Other.\n")
    # Gemini CLI: an agent file and a skill folder, each its own artifact
    assert_ok(uze("install", v1, "--harness", "gemini_cli", "--trust"))
    agent = sandbox.project / ".gemini/agents/pkg-a.md"
    skill = sandbox.project / ".agents/skills/pkg-s/SKILL.md"
    for path in (agent, skill):
        path.write_text(path.read_text() + "My edit.\n")
    assert_ok(uze("install", v2, "--trust"))
    merged = {}
    for path in (agent, skill):
        new = path.with_name(path.name + ".uze-new")
        merged[path] = new.read_text() + "Merged by me.\n"
        new.write_text(merged[path])
    before = snapshot(sandbox)["project"]
    result = assert_ok(uze("install", v3, "--trust", "--json"))
    actions = {a["target"]: a for a in json.loads(result.stdout)["actions"]}
    assert actions[".gemini/agents/pkg-a.md"]["detail"] == \
        "edited since install; kept, the new version beside it as pkg-a.md.uze-new.1"
    after = snapshot(sandbox)
    for path in (agent, skill):
        assert path.with_name(path.name + ".uze-new").read_text() == merged[path]
        assert path.read_text().endswith("My edit.\n")
    assert agent.with_name("pkg-a.md.uze-new.1").read_text() == AGENT.format(
        body="v3").replace("name: a", "name: pkg-a")
    assert skill.with_name("SKILL.md.uze-new.1").read_text().endswith("Body.\nMore.\n")
    new_files = sorted(set(after["project"]) - set(before))
    assert [f for f in new_files if "uze-new" in f] == [
        ".agents/skills/pkg-s/SKILL.md.uze-new.1", ".gemini/agents/pkg-a.md.uze-new.1"]
    assert_ok(uze("install", v3, "--trust"))  # again: the copy beside it is there already
    assert snapshot(sandbox) == after


@pytest.mark.parametrize(
    ("relpath", "harness", "edit", "left"),
    [
        ("opencode.json", "opencode", ("{\n", "{\n  // my own note\n"), "{\n  // my own note\n}\n"),
        (".gemini/settings.json", "gemini_cli", ("\n}", "\n  /* mine */\n}"),
         "{\n  /* mine */\n}\n"),
        (".mcp.json", "claude_code", ("{\n", '{\n  "myKey": {},\n'), '{\n  "myKey": {}\n}\n'),
        (".codex/config.toml", "codex", ("", "# my codex note\n"), "# my codex note\n"),
    ],
    ids=["jsonc-line-comment", "jsonc-block-comment", "json-own-empty-key", "toml-comment"],
)
def test_a_config_file_uze_created_and_the_user_edited_is_kept_without_uzes_entries(
    sandbox: Sandbox, uze: Uze, relpath: str, harness: str, edit: tuple[str, str], left: str
) -> None:
    (v1,) = _versions(sandbox, 1)
    assert_ok(uze("install", v1, "--harness", harness, "--trust"))
    path = sandbox.project / relpath
    text = path.read_text()
    path.write_text(edit[1] + text if not edit[0] else text.replace(edit[0], edit[1], 1))
    assert_ok(uze("uninstall", "pkg"))
    assert path.read_text() == left


# item 12: hook ids and links out of the package ------------------------------------------


def _hooks(**groups: list[dict[str, object]]) -> str:
    handler = {"type": "command", "command": "echo hi"}
    return json.dumps({"hooks": {event: [{**g, "hooks": [handler]} for g in found]
                                 for event, found in groups.items()}})


@pytest.mark.parametrize(
    ("hooks", "lines"),
    [
        (_hooks(SessionStart=[{"id": "a" * 300}]),
         ["hooks.json: hooks.SessionStart[0].id: is 300 characters long; the limit is 64"]),
        (_hooks(SessionStart=[{}], Stop=[{"id": "SessionStart-0"}]),
         ["hooks.json: hooks.Stop[0].id: 'SessionStart-0' is the name uze gives a group "
          "without an id; choose another"]),
        (_hooks(Stop=[{"id": " "}]),
         ["hooks.json: hooks.Stop[0].id: must not be empty; leave the key out instead"]),
    ],
    ids=["over-long", "generated-name", "empty"],
)
@pytest.mark.parametrize("command", ["check", "install"])
def test_a_hook_id_that_would_break_a_derived_name_is_refused(
    sandbox: Sandbox, uze: Uze, hooks: str, lines: list[str], command: str
) -> None:
    source = _package(sandbox.root, **{"hooks.json": hooks})
    before = snapshot(sandbox)
    trust = ["--trust"] if command == "install" else []
    result = uze(command, source, "--harness", "all", *trust)
    _assert_refused(result, before, sandbox, *lines, _invalid(source, len(lines)))


@pytest.mark.parametrize("link", ["/proc/self/environ", "/proc/self/fd/0", "/proc", "/dev/zero"])
def test_a_link_to_proc_or_dev_in_a_package_is_refused_without_reading_it(
    sandbox: Sandbox, uze: Uze, link: str
) -> None:
    source = _package(sandbox.root)
    (source / "skills/s/data").symlink_to(link)
    before = snapshot(sandbox)
    result = uze("install", source, "--harness", "all")
    _assert_refused(result, before, sandbox,
                    "skills/s/data: symbolic link points outside the package", _invalid(source))


# item 13: check refuses what install would trip on ---------------------------------------


@pytest.mark.parametrize(
    ("line", "number"),
    [
        (b"<!-- uze:end pkg\xc2\xa0 -->\n", 2),  # NBSP: a marker to the byte-level scanner
        (b"<!-- uze:begin other -->\r\n", 2),
        (b"<!-- uze:end x\xe2\x80\x83 -->\n", 2),  # EM SPACE
    ],
    ids=["nbsp", "crlf", "em-space"],
)
@pytest.mark.parametrize("command", ["check", "install"])
def test_a_marker_look_alike_in_package_instructions_is_refused_by_line(
    sandbox: Sandbox, uze: Uze, line: bytes, number: int, command: str
) -> None:
    source = _package(sandbox.root, **{"AGENTS.md": b"Be brief.\n" + line + b"Thanks.\n"})
    before = snapshot(sandbox)
    result = uze(command, source, "--harness", "claude_code,codex")
    _assert_refused(result, before, sandbox,
                    f"AGENTS.md:{number}: holds a uze region marker, which would break the region "
                    "uze writes; remove that line", _invalid(source))


def test_agents_whose_installed_names_coincide_are_caught_by_check(
    sandbox: Sandbox, uze: Uze
) -> None:
    source = _package(sandbox.root, **{
        "agents/x/y.md": AGENT.format(body="nested"),
        "agents/z.md": "---\nname: x-y\ndescription: An agent.\n---\nflat\n",
    })
    (source / "agents/x/y.md").write_text("---\nname: y\ndescription: An agent.\n---\nnested\n")
    line = ("agents/z.md: agent 'x-y' is installed as 'x-y', like agents/x/y.md; rename one; "
            "skipped")
    before = snapshot(sandbox)
    _assert_refused(uze("check", source, "--strict"), before, sandbox, line,
                    _invalid(source))
    result = assert_ok(uze("install", source, "--harness", "claude_code,codex"))
    assert f"warning: {line}" in " ".join(result.stdout.split())
    receipt = json.loads((sandbox.project / ".uze/receipts/pkg.json").read_text())
    targets = [a["target"] for a in receipt["artifacts"]]
    assert len(targets) == len(set(targets))
    assert (sandbox.project / ".codex/agents/pkg-x-y.toml").read_text().count("nested") == 1
    plugin = sandbox.project / ".claude/skills/pkg/agents"  # Claude Code: `pkg:x:y` (adr/0048)
    assert (plugin / "x/y.md").read_text().endswith("nested\n")
    assert not (plugin / "z.md").exists()
    assert_ok(uze("uninstall", "pkg"))
    assert snapshot(sandbox)["project"] == before["project"]


# item 14: a repository that is itself a package -------------------------------------------


@pytest.mark.parametrize("with_instructions", [False, True])
def test_installing_the_project_itself_converges(
    sandbox: Sandbox, uze: Uze, with_instructions: bool
) -> None:
    files = {"plugin.json": json.dumps({"name": "pkg", "version": "1.0.0"}),
             "skills/s/SKILL.md": SKILL, "agents/a.md": AGENT.format(body="v1"),
             "mcp.json": json.dumps(MCP), "hooks.json": json.dumps(HOOKS)}
    if with_instructions:
        files["AGENTS.md"] = "The project's own instructions.\n"
    build_tree(sandbox.project, files)
    original = snapshot(sandbox)["project"]
    assert_ok(uze("install", ".", "--harness", "all", "--trust"))
    first = snapshot(sandbox)
    for _ in range(2):
        again = assert_ok(uze("install", ".", "--harness", "all", "--trust", "--json"))
        assert {a["action"] for a in json.loads(again.stdout)["actions"]} == {"unchanged"}
        assert snapshot(sandbox)["project"] == first["project"]
    assert not (sandbox.project / ".uze/packages/pkg/.uze").exists()
    assert_ok(uze("uninstall", "pkg"))
    assert snapshot(sandbox)["project"] == original


@pytest.mark.parametrize(
    ("denied", "command"),
    [(denied, command) for denied in (".mcp.json", ".uze/receipts", ".claude/skills/pkg")
     for command in ("status", "status --json", "uninstall pkg", "list")
     # an unlistable receipts folder during uninstall fails the rollback's own folder sync too,
     # which leaves the journal to the next command: a transaction matter, not this test's
     if (denied, command) != (".uze/receipts", "uninstall pkg")],
)
def test_a_file_uze_may_not_read_after_install_is_named_by_every_command(
    sandbox: Sandbox, uze: Uze, denied: str, command: str
) -> None:
    source = _package(sandbox.root, **{"mcp.json": json.dumps(MCP)})
    assert_ok(uze("install", source, "--harness", "claude_code", "--trust"))
    before = snapshot(sandbox)
    result = _denied(sandbox, [sandbox.project / denied], *command.split())
    if command == "list" and denied != ".uze/receipts":
        assert_ok(result)  # list reads receipts only
        return
    _assert_refused(
        result, before, sandbox, f"uze: error: permission denied: {sandbox.project / denied}",
        "hint: give your user access to it (see ls -l), or leave out what needs it, then run the "
        "command again; what this command changed was put back",
    )
