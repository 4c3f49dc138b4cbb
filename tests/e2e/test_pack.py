"""`uze pack DIR --out OUT` end to end (issue 34 item 4, ADR 0091): the bytes it writes, the
same bytes on every run, `--check` for an author's CI, bad input refused with nothing written,
and the round trip: installing OUT projects exactly what installing DIR does."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import Sandbox
from tests.helpers import DATA, run_uze, tree_bytes

FOUR = "claude_code,codex,gemini_cli,opencode"


def _package(root: Path) -> Path:
    """every-kind (skills, an agent, instructions, two MCP servers, hooks) plus a command."""
    package = root / "every-kind"
    shutil.copytree(DATA / "every-kind", package)
    (package / "commands").mkdir()
    (package / "commands" / "tidy.md").write_text(
        "---\ndescription: Tidy\n---\nTidy $ARGUMENTS.\n", encoding="utf-8")
    return package


def _pack(sandbox: Sandbox, *args: str | Path) -> tuple[int, str, str]:
    result = run_uze("pack", *args, cwd=sandbox.project)
    return result.returncode, result.stdout, result.stderr


def test_pack_writes_the_envelopes_and_a_copy_of_every_file(sandbox: Sandbox) -> None:
    package = _package(sandbox.root)
    out = sandbox.root / "out"
    code, stdout, stderr = _pack(sandbox, package, "--out", out)
    assert code == 0, stderr
    assert "packed every-kind into" in stdout
    assert "not packed: hooks.json" in stdout  # portable hooks need uze's wrapper
    claude = json.loads((out / ".claude-plugin" / "plugin.json").read_bytes())
    assert claude == {
        "name": "every-kind", "version": "1.2.3",
        "description": "One of every resource kind uze reads.",
        "skills": "./skills/", "commands": "./commands/", "agents": ["./agents/reviewer.md"]}
    servers = json.loads((out / ".mcp.json").read_bytes())["mcpServers"]
    assert servers["docs"]["command"] == "${CLAUDE_PLUGIN_ROOT}/scripts/server.sh"
    assert servers["search"] == {"type": "http", "url": "https://search.example.com/mcp",
                                 "headers": {"X-Client": "uze"}}
    codex = json.loads((out / ".codex-plugin" / "plugin.json").read_bytes())
    assert codex == {"name": "every-kind", "version": "1.2.3",
                     "description": "One of every resource kind uze reads.",
                     "skills": "./skills/", "mcpServers": "./.mcp.json"}
    gemini = json.loads((out / "gemini-extension.json").read_bytes())
    assert gemini["contextFileName"] == "AGENTS.md"
    assert gemini["mcpServers"]["docs"]["command"] == "${extensionPath}/scripts/server.sh"
    assert gemini["mcpServers"]["search"] == {"httpUrl": "https://search.example.com/mcp",
                                              "headers": {"X-Client": "uze"}}
    # Gemini CLI loads TOML commands from an extension: the Markdown command, translated.
    assert (out / "commands" / "tidy.toml").read_bytes() == (
        b'description = "Tidy"\nprompt = """Tidy {{args}}.\n"""\n')
    # Every file of the package is carried byte for byte, with its mode.
    source, packed = tree_bytes(package), tree_bytes(out)
    assert {path: packed[path] for path in source} == source
    made = {".claude-plugin", ".claude-plugin/plugin.json", ".codex-plugin",
            ".codex-plugin/plugin.json", "gemini-extension.json", ".mcp.json",
            "commands/tidy.toml"}
    assert set(packed) - set(source) == made
    assert (out / "gemini-extension.json").read_bytes().endswith(b"}\n")


def test_pack_is_deterministic_and_check_is_red_then_green(sandbox: Sandbox) -> None:
    package = _package(sandbox.root)
    first, second = sandbox.root / "one", sandbox.root / "two"
    assert _pack(sandbox, package, "--out", first)[0] == 0
    assert _pack(sandbox, package, "--out", second)[0] == 0
    assert tree_bytes(first) == tree_bytes(second)
    code, stdout, _ = _pack(sandbox, package, "--out", first, "--check")
    assert code == 0 and "are as `uze pack` writes them" in stdout
    (first / "gemini-extension.json").write_text("{}\n", encoding="utf-8")
    (first / "skills" / "helper" / "SKILL.md").unlink()
    (first / "scripts" / "server.sh").chmod(0o644)
    before = tree_bytes(first)
    code, stdout, _ = _pack(sandbox, package, "--out", first, "--check")
    assert code == 1
    named = [line.strip() for line in stdout.splitlines()[1:] if line.startswith("  ")]
    assert named == ["gemini-extension.json", "scripts/server.sh", "skills/helper/SKILL.md"]
    assert "3 of 19 files differ" in stdout
    assert tree_bytes(first) == before  # --check writes nothing
    assert _pack(sandbox, package, "--out", first)[0] == 0  # pack again repairs it
    assert tree_bytes(first) == tree_bytes(second)
    code, stdout, _ = _pack(sandbox, package, "--out", first, "--check", "--json")
    assert code == 0 and json.loads(stdout)["differs"] == []


def test_pack_into_the_package_itself_is_idempotent(sandbox: Sandbox) -> None:
    package = _package(sandbox.root)
    assert _pack(sandbox, package, "--out", package)[0] == 0
    once = tree_bytes(package)
    assert ".claude-plugin/plugin.json" in once
    assert _pack(sandbox, package, "--out", package, "--check")[0] == 0
    assert _pack(sandbox, package, "--out", package)[0] == 0
    assert tree_bytes(package) == once


def test_bad_input_is_refused_with_nothing_written(sandbox: Sandbox) -> None:
    package = _package(sandbox.root)
    out = sandbox.root / "out"
    bare = sandbox.root / "bare"
    bare.mkdir()
    code, _, stderr = _pack(sandbox, bare, "--out", out)
    assert code == 1 and "not a portable package (no plugin.json at its root)" in stderr
    assert "hint:" in stderr and "Traceback" not in stderr
    (package / "mcp.json").write_text("{not json", encoding="utf-8")
    code, _, stderr = _pack(sandbox, package, "--out", out)
    assert code == 1 and "mcp.json" in stderr and "Traceback" not in stderr
    assert not out.exists()
    inside = package / "dist"
    code, _, stderr = _pack(sandbox, package, "--out", inside)
    assert code == 2 and "is inside the package" in stderr
    assert not inside.exists()
    code, _, stderr = _pack(sandbox, package)
    assert code == 2 and "--out" in stderr


def _rows(sandbox: Sandbox, project: Path) -> list[dict[str, object]]:
    result = run_uze("status", "--json", cwd=project)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    rows = document["packages"][0]["projections"]
    return sorted(rows, key=lambda row: json.dumps(row, sort_keys=True))


def test_installing_the_packed_folder_projects_what_the_package_does(sandbox: Sandbox) -> None:
    package = _package(sandbox.root)
    out = sandbox.root / "out"
    assert _pack(sandbox, package, "--out", out)[0] == 0
    projects = []
    for name, source in (("from-package", package), ("from-pack", out)):
        project = sandbox.root / name
        (project / ".git").mkdir(parents=True)
        result = run_uze("install", source, "--harness", FOUR, "--trust", cwd=project)
        assert result.returncode == 0, result.stderr
        projects.append(project)
    direct, packed = (_rows(sandbox, project) for project in projects)
    assert len(direct) == 40
    assert packed == direct
