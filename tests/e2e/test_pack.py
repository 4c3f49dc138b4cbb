"""`uze pack DIR --out OUT` end to end (issue 34 item 4, ADRs 0091 and 0097): one folder per
envelope (Claude Code plugin, Codex plugin, Gemini CLI extension) with each agent in its
harness's form, the same bytes on every run, `--check` for an author's CI, `--marketplace`
catalogs uze's own reader reads back, bad input refused with nothing written, and the round
trip: installing each envelope into its harness projects what installing the package does,
but for the differences ADR 0097 names."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.helpers import DATA, run_uze, tree_bytes
from uze.sources.catalog import parse_catalog
from uze.sources.spec import Source

ENVELOPES = ("claude_code", "codex", "gemini_cli")
PORTABLE_ONLY = {"plugin.json", "mcp.json", "hooks.json"}
DESCRIPTION = "One of every resource kind uze reads."


def _package(root: Path, name: str = "every-kind") -> Path:
    """every-kind (skills, an agent, instructions, two MCP servers, hooks), a nested agent
    and a command."""
    package = root / name
    shutil.copytree(DATA / "every-kind", package)
    (package / "agents" / "team").mkdir()
    (package / "agents" / "team" / "planner.md").write_text(
        "---\nname: planner\ndescription: Plans.\ntools: Read, Grep\n---\nPlan.\n",
        encoding="utf-8")
    (package / "commands").mkdir()
    (package / "commands" / "tidy.md").write_text(
        "---\ndescription: Tidy\n---\nTidy $ARGUMENTS.\n", encoding="utf-8")
    if name != "every-kind":
        manifest = json.loads((package / "plugin.json").read_bytes())
        (package / "plugin.json").write_text(json.dumps({**manifest, "name": name}),
                                             encoding="utf-8")
    return package


def _pack(sandbox: Sandbox, *args: str | Path) -> tuple[int, str, str]:
    result = run_uze("pack", *args, cwd=sandbox.project)
    return result.returncode, result.stdout, result.stderr


def _json(path: Path) -> object:
    return json.loads(path.read_bytes())


def test_pack_writes_one_folder_per_envelope(sandbox: Sandbox) -> None:
    package = _package(sandbox.root)
    out = sandbox.root / "out"
    code, stdout, stderr = _pack(sandbox, package, "--out", out)
    assert code == 0, stderr
    assert "packed every-kind into" in stdout
    assert "envelopes claude_code/, codex/, gemini_cli/" in stdout
    assert "hooks.json" not in stdout  # every hook group is packed, in each envelope
    assert "not packed: codex: agents: not in the Codex plugin format" in stdout
    assert {p.name for p in out.iterdir()} == set(ENVELOPES)
    claude = out / "claude_code"
    assert _json(claude / ".claude-plugin" / "plugin.json") == {
        "name": "every-kind", "version": "1.2.3", "description": DESCRIPTION,
        "skills": "./skills/", "commands": "./commands/"}
    servers = _json(claude / ".mcp.json")["mcpServers"]  # type: ignore[index]
    assert servers["docs"]["command"] == "${CLAUDE_PLUGIN_ROOT}/scripts/server.sh"
    assert servers["search"] == {"type": "http", "url": "https://search.example.com/mcp",
                                 "headers": {"X-Client": "uze"}}
    # Claude's agent: its harness.claude_code block applied, no `harness:` left.
    assert (claude / "agents" / "reviewer.md").read_bytes() == (
        b"---\nname: reviewer\ndescription: A careful code reviewer.\nmodel: sonnet\n---\n"
        b"You review code. Point out bugs first, then missing tests, then style.\n")
    assert (claude / "agents" / "team" / "planner.md").is_file()
    codex = out / "codex"
    assert _json(codex / ".codex-plugin" / "plugin.json") == {
        "name": "every-kind", "version": "1.2.3", "description": DESCRIPTION,
        "skills": "./skills/", "mcpServers": "./.mcp.json"}
    # Codex expands no ${CLAUDE_PLUGIN_ROOT} in a plugin's server: it runs in the plugin.
    codex_servers = _json(codex / ".mcp.json")["mcpServers"]  # type: ignore[index]
    assert codex_servers["docs"] == {"command": "./scripts/server.sh", "args": ["--stdio"],
                                     "env": {"DOCS_MODE": "local"}, "cwd": "."}
    assert codex_servers["search"] == servers["search"]
    assert not (codex / "agents").exists() and not (codex / "commands").exists()
    gemini = out / "gemini_cli"
    manifest = _json(gemini / "gemini-extension.json")
    assert manifest["contextFileName"] == "AGENTS.md"  # type: ignore[index]
    docs = manifest["mcpServers"]["docs"]  # type: ignore[index]
    assert docs["command"] == "${extensionPath}/scripts/server.sh"
    assert manifest["mcpServers"]["search"] == {  # type: ignore[index]
        "httpUrl": "https://search.example.com/mcp", "headers": {"X-Client": "uze"}}
    assert (gemini / "commands" / "tidy.toml").read_bytes() == (
        b'description = "Tidy"\nprompt = """Tidy {{args}}.\n"""\n')
    assert not (gemini / "commands" / "tidy.md").exists()
    # Gemini's agents: flat (it reads no subfolders), no `harness:`, Claude tool names mapped.
    assert sorted(p.name for p in (gemini / "agents").iterdir()) == [
        "reviewer.md", "team-planner.md"]
    assert (gemini / "agents" / "reviewer.md").read_bytes() == (
        b"---\nname: reviewer\ndescription: A careful code reviewer.\n---\n"
        b"You review code. Point out bugs first, then missing tests, then style.\n")
    planner = (gemini / "agents" / "team-planner.md").read_text(encoding="utf-8")
    assert planner.startswith("---\nname: team-planner\n") and "harness" not in planner
    # Every other package file, byte for byte with its mode, in each envelope.
    source = tree_bytes(package)
    for envelope in ENVELOPES:
        packed = tree_bytes(out / envelope)
        assert "plugin.json" not in packed and "hooks.json" not in packed
        for path, data in source.items():
            if path in PORTABLE_ONLY or path.startswith(("agents/", "commands/")) or \
                    data == "dir" or (path == "AGENTS.md" and envelope != "gemini_cli") or \
                    (path.endswith("SKILL.md") and envelope == "claude_code"):
                continue
            assert (out / envelope / path).read_bytes() == (package / path).read_bytes()
            executable = ((out / envelope / path).stat().st_mode & 0o100,
                          (package / path).stat().st_mode & 0o100)
            assert executable[0] == executable[1], (envelope, path)  # pack keeps the x bit
    assert (out / "gemini_cli" / "scripts" / "server.sh").stat().st_mode & 0o100
    # Hooks: install's wrapper per group, run by the envelope's hooks/hooks.json through the
    # harness's plugin-root variable, finding the package root relative to itself.
    for envelope, root, event in (("claude_code", "${CLAUDE_PLUGIN_ROOT}", "PreToolUse"),
                                  ("codex", "${CLAUDE_PLUGIN_ROOT}", "PreToolUse"),
                                  ("gemini_cli", "${extensionPath}", "BeforeTool")):
        wrapper = f"hooks/{envelope}/PreToolUse-0-no-force-push.py"
        (group,) = _json(out / envelope / "hooks" / "hooks.json")["hooks"][event]  # type: ignore[index]
        assert group["hooks"][0]["command"] == f'"{root}"/{wrapper}'
        script = out / envelope / wrapper
        assert script.stat().st_mode & 0o100
        assert b'"plugin_root": "../.."' in script.read_bytes()
    # Claude's skills: its invocation keys, no `invoke`, no `name` (listed by folder).
    assert (claude / "skills" / "helper" / "SKILL.md").read_bytes().startswith(
        b"---\ndescription: Background conventions the model applies on its own.\n"
        b"user-invocable: false\n---\n")


def test_pack_is_deterministic_and_check_is_red_then_green(sandbox: Sandbox) -> None:
    package = _package(sandbox.root)
    first, second = sandbox.root / "one", sandbox.root / "two"
    assert _pack(sandbox, package, "--out", first)[0] == 0
    assert _pack(sandbox, package, "--out", second)[0] == 0
    assert tree_bytes(first) == tree_bytes(second)
    code, stdout, _ = _pack(sandbox, package, "--out", first, "--check")
    assert code == 0 and "are as `uze pack` writes them" in stdout
    (first / "gemini_cli" / "gemini-extension.json").write_text("{}\n", encoding="utf-8")
    (first / "codex" / "skills" / "helper" / "SKILL.md").unlink()
    (first / "claude_code" / "scripts" / "server.sh").chmod(0o644)
    before = tree_bytes(first)
    code, stdout, _ = _pack(sandbox, package, "--out", first, "--check")
    assert code == 1
    named = [line.strip() for line in stdout.splitlines()[1:] if line.startswith("  ")]
    assert named == ["claude_code/scripts/server.sh", "codex/skills/helper/SKILL.md",
                     "gemini_cli/gemini-extension.json"]
    total = len(json.loads(run_uze("pack", package, "--out", second, "--json",
                                   cwd=sandbox.project).stdout)["files"])
    assert f"3 of {total} files differ" in stdout
    assert tree_bytes(first) == before  # --check writes nothing
    assert _pack(sandbox, package, "--out", first)[0] == 0  # pack again repairs it
    assert tree_bytes(first) == tree_bytes(second)
    code, stdout, _ = _pack(sandbox, package, "--out", first, "--check", "--json")
    assert code == 0 and json.loads(stdout)["differs"] == []


def test_pack_into_a_direct_subfolder_of_the_package_leaves_it_out(sandbox: Sandbox) -> None:
    package = _package(sandbox.root)
    assert _pack(sandbox, package, "--out", package / "dist")[0] == 0
    once = tree_bytes(package)
    assert "dist/claude_code/.claude-plugin/plugin.json" in once
    assert not any(path.startswith("dist/claude_code/dist") for path in once)
    assert _pack(sandbox, package, "--out", package / "dist", "--check")[0] == 0
    assert _pack(sandbox, package, "--out", package / "dist")[0] == 0
    assert tree_bytes(package) == once


def test_bad_input_is_refused_with_nothing_written(sandbox: Sandbox) -> None:
    package = _package(sandbox.root)
    out = sandbox.root / "out"
    bare = sandbox.root / "bare"
    bare.mkdir()
    code, _, stderr = _pack(sandbox, bare, "--out", out)
    assert code == 1 and "not a portable package (no plugin.json at its root)" in stderr
    assert "hint:" in stderr and "Traceback" not in stderr
    code, _, stderr = _pack(sandbox, bare, "--out", out, "--marketplace", "mine")
    assert code == 1 and "no package folders" in stderr and "hint:" in stderr
    before = tree_bytes(package)
    for inside in (package, package / "dist" / "deeper"):
        code, _, stderr = _pack(sandbox, package, "--out", inside)
        assert code == 2 and "is inside the package folder" in stderr
    assert tree_bytes(package) == before
    code, _, stderr = _pack(sandbox, sandbox.root, "--out", out, "--marketplace", "Bad Name")
    assert code == 2 and "--marketplace 'Bad Name'" in stderr
    (package / "mcp.json").write_text("{not json", encoding="utf-8")
    code, _, stderr = _pack(sandbox, package, "--out", out)
    assert code == 1 and "mcp.json" in stderr and "Traceback" not in stderr
    assert not out.exists()
    code, _, stderr = _pack(sandbox, package)
    assert code == 2 and "--out" in stderr


def test_marketplace_packs_each_package_and_both_catalogs(sandbox: Sandbox) -> None:
    packages = sandbox.root / "packages"
    _package(packages)
    _package(packages, "second")
    (packages / "notes").mkdir()  # a folder without plugin.json is not a package
    out = sandbox.root / "market"
    code, stdout, stderr = _pack(sandbox, packages, "--out", out, "--marketplace", "mine")
    assert code == 0, stderr
    assert "catalog .claude-plugin/marketplace.json" in stdout
    assert "not packed: second: codex: agents" in stdout
    assert sorted(p.name for p in out.iterdir()) == [".agents", ".claude-plugin",
                                                     "every-kind", "second"]
    assert sorted(p.name for p in (out / "second").iterdir()) == sorted(ENVELOPES)
    claude = _json(out / ".claude-plugin" / "marketplace.json")
    assert claude == {"name": "mine", "owner": {"name": "mine"}, "plugins": [
        {"name": name, "version": "1.2.3", "description": DESCRIPTION,
         "source": f"./{name}/claude_code"} for name in ("every-kind", "second")]}
    codex = _json(out / ".agents" / "plugins" / "marketplace.json")
    assert codex["plugins"][1] == {  # type: ignore[index]
        "name": "second", "version": "1.2.3", "description": DESCRIPTION,
        "source": {"source": "local", "path": "./second/codex"},
        "policy": {"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
        "category": "Productivity"}
    # uze's own reader of both catalogs finds each package's envelope folder.
    for rel, envelope in ((".claude-plugin/marketplace.json", "claude_code"),
                          (".agents/plugins/marketplace.json", "codex")):
        catalog = parse_catalog((out / rel).read_bytes(), rel, Source("folder", str(out)),
                                "https://github.com")
        assert catalog.name == "mine"
        assert [(e.name, e.source) for e in catalog.entries] == [
            (name, Source("folder", str(out / name / envelope)))
            for name in ("every-kind", "second")]
    again = sandbox.root / "again"
    assert _pack(sandbox, packages, "--out", again, "--marketplace", "mine")[0] == 0
    assert tree_bytes(again) == tree_bytes(out)
    code, _, _ = _pack(sandbox, packages, "--out", out, "--marketplace", "mine", "--check")
    assert code == 0
    (out / ".agents" / "plugins" / "marketplace.json").write_text("{}", encoding="utf-8")
    code, stdout, _ = _pack(sandbox, packages, "--out", out, "--marketplace", "mine", "--check")
    assert code == 1 and "  .agents/plugins/marketplace.json" in stdout
    _package(packages / "dup", "second").rename(packages / "third")
    code, _, stderr = _pack(sandbox, packages, "--out", again, "--marketplace", "mine")
    assert code == 1 and "a second package named second" in stderr


def _installed(sandbox: Sandbox, name: str, source: Path, harness: str) -> Path:
    project = sandbox.root / name
    (project / ".git").mkdir(parents=True)
    result = run_uze("install", source, "--harness", harness, "--trust", cwd=project)
    assert result.returncode == 0, result.stderr
    return project


def _rows(project: Path) -> set[tuple[str, str, str, str]]:
    result = run_uze("status", "--json", cwd=project)
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)["packages"][0]["projections"]
    return {(r["kind"], r["resource"], r["route"], r["target"]) for r in rows}


def _resources(project: Path) -> dict[str, bytes | str]:
    """The harness-visible files, without uze's own state and package copy."""
    return {path: data for path, data in tree_bytes(project).items()
            if not path.startswith((".uze/", "uze.")) and data != "dir"}


# What installing an envelope does not project as installing the package does (ADR 0097):
# what the envelope's format has no place for, and the hooks, which come back in the
# harness's own format (compared apart: HOOKS_BACK).
NOT_IN_ENVELOPE = {
    "claude_code": {"hook", "instructions"},
    "codex": {"hook", "instructions", "agent", "command"},
    "gemini_cli": {"hook"},
}
# The packed hooks, read back by uze: Claude Code's and Codex's hooks/hooks.json as
# Claude-protocol groups named by event (Claude Code runs them from the plugin; Codex through
# uze's translating wrapper, degraded as any Claude-protocol group there); Gemini CLI's own
# hook format uze does not read (a warning).
HOOKS_BACK = {
    "claude_code": {("PostToolUse-0", "native"), ("PreToolUse-0", "native")},
    "codex": {("PostToolUse-0", "degraded"), ("PreToolUse-0", "degraded")},
    "gemini_cli": set(),
}


@pytest.mark.parametrize("harness", ENVELOPES)
def test_installing_each_envelope_projects_what_the_package_does(sandbox: Sandbox,
                                                                 harness: str) -> None:
    package = _package(sandbox.root)
    out = sandbox.root / "out"
    assert _pack(sandbox, package, "--out", out)[0] == 0
    direct = _installed(sandbox, "direct", package, harness)
    packed = _installed(sandbox, "packed", out / harness, harness)
    expected = {row for row in _rows(direct) if row[0] not in NOT_IN_ENVELOPE[harness]}
    got = {row for row in _rows(packed) if row[0] != "hook"}
    assert {(r, route) for k, r, route, _ in _rows(packed) if k == "hook"} == HOOKS_BACK[harness]
    assert {r for k, r, _, _ in _rows(direct) if k == "hook"} == {"no-force-push", "log-edits"}
    if harness == "claude_code":  # a Claude plugin's servers stay in its folder (ADR 0041)
        expected = {(k, r, route, ".claude/skills/every-kind" if k == "mcp" else target)
                    for k, r, route, target in expected}
    if harness == "gemini_cli":  # read back from TOML, the command is Gemini's own, and so
        # is the agent (its tools in Gemini CLI's names, kept as written); the nested agent is
        # named by its flat file (an extension's agents/ has no subfolders)
        expected = {(k, "team-planner" if r == "planner" else r,
                     "native" if k in ("command", "agent") else route, t)
                    for k, r, route, t in expected}
    assert got == expected
    mine, theirs = _resources(direct), _resources(packed)
    # Allowed (ADR 0097): a Claude plugin's manifest names its component folders, uze's own
    # does not; the hook files hold the hooks (compared above). An extension's agent `tools`
    # are read as Gemini CLI's names (ADR 0068), so they survive the trip back byte for byte.
    allowed = {".claude/skills/every-kind/.claude-plugin/plugin.json", ".gemini/settings.json",
               ".codex/hooks.json", ".codex/config.toml"}
    shared = [path for path in mine if path in theirs and path not in allowed]
    assert len(shared) >= 5 and all(mine[path] == theirs[path] for path in shared), [
        path for path in shared if mine[path] != theirs[path]]
    if harness == "gemini_cli":
        servers = [_json(project / ".gemini" / "settings.json")["mcpServers"]  # type: ignore[index]
                   for project in (direct, packed)]
        assert servers[0] == servers[1]
    if harness == "codex":  # the server that names the package root runs in it, as packed
        config = (packed / ".codex" / "config.toml").read_bytes()
        moved = b'cwd = "./.uze/packages/every-kind"\n'
        assert moved in config
        assert config.replace(moved, b"") == (direct / ".codex" / "config.toml").read_bytes()
