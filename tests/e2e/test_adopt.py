"""Adoption at install (issue 34 item 2, adr/0096): files already there byte for byte are taken
over, never rewritten, and removed by uninstall; anything else there is refused, nothing written.

The files are made by a real install into another project and copied here by hand, so they
are byte for byte what uze would write; the install here must find them, say so, and leave
every byte, inode and mtime as it was.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from blake3 import blake3

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, as_json, assert_ok
from tests.helpers import build_tree, tree_bytes

pytestmark = pytest.mark.e2e
HARNESSES = ("--harness", "codex,opencode,gemini_cli")
KIT = {
    "plugin.json": '{"name": "kit", "version": "1.0.0", "description": "A kit."}\n',
    "skills/review/SKILL.md": "---\nname: review\ndescription: Review code.\n---\nReview.\n",
    "skills/review/references/guide.md": "guide\n",
    "agents/reader.md": "---\nname: reader\ndescription: Reads.\n---\nRead it.\n",
    "commands/tidy.md": "---\ndescription: Tidy.\n---\nTidy $ARGUMENTS\n",
    "mcp.json": '{"mcpServers": {"search": {"url": "https://search.example.com/mcp", '
                '"type": "http"}}}\n',
    "AGENTS.md": "Be kind.\n",
}
# What the install above writes for the three harnesses, as targets (its receipt's keys).
ADOPTED = [
    "AGENTS.md#kit", "GEMINI.md#kit", ".agents/skills/kit-review",
    ".opencode/commands/kit-tidy.md", ".gemini/commands/kit-tidy.toml", ".codex/skills/kit-tidy",
    ".codex/agents/kit-reader.toml", ".opencode/agents/kit-reader.md",
    ".gemini/agents/kit-reader.md", ".codex/config.toml#mcp_servers.search",
    "opencode.json#mcp.search", ".gemini/settings.json#mcpServers.search",
]
BOOKKEEPING = ("uze.toml", "uze.lock", ".uze")


def _mine(rel: str) -> bool:
    """Whether `rel` is uze's own bookkeeping (manifest, lock, `.uze/`), not a delivered file."""
    return rel.split("/")[0] in BOOKKEEPING


def _already_there(uze: Uze, sandbox: Sandbox, package: Path) -> dict[str, bytes | str]:
    """Install `package` into a scratch project, copy what it delivered into the project by
    hand (no bookkeeping), and return the project's tree."""
    scratch = sandbox.root / "scratch"
    (scratch / ".git").mkdir(parents=True)
    assert_ok(uze("install", package, *HARNESSES, cwd=scratch))
    for rel, data in tree_bytes(scratch).items():
        if _mine(rel) or rel == ".git" or data == "dir":
            continue
        build_tree(sandbox.project, {rel: (scratch / rel).read_bytes()})
    return tree_bytes(sandbox.project)


def _stats(root: Path) -> dict[str, tuple[int, int]]:
    """(inode, mtime_ns) of every file below `root` but .git."""
    return {p.relative_to(root).as_posix(): (p.lstat().st_ino, p.lstat().st_mtime_ns)
            for p in root.rglob("*") if p.is_file() and ".git" not in p.parts}


def _digest(data: bytes) -> str:
    return blake3(data).hexdigest()


@pytest.fixture
def kit(sandbox: Sandbox) -> Path:
    return build_tree(sandbox.root / "kit", KIT)


def test_an_install_adopts_files_there_byte_for_byte_and_uninstall_removes_them(
        uze: Uze, sandbox: Sandbox, kit: Path) -> None:
    (sandbox.project / "README.md").write_text("mine\n")
    before = _already_there(uze, sandbox, kit)
    stats = _stats(sandbox.project)

    result = as_json(assert_ok(uze("install", kit, *HARNESSES, "--json")))

    assert result["adopted"] == ADOPTED
    assert all(a["action"] == "unchanged" and a.get("adopted") is True
               and "adopted" in a["detail"] and "uze uninstall" in a["detail"]
               for a in result["actions"])
    after = tree_bytes(sandbox.project)
    assert {k: v for k, v in after.items() if not _mine(k)} == before  # not a byte rewritten
    assert _stats(sandbox.project).items() >= stats.items()  # same inodes, same mtimes
    receipt = json.loads((sandbox.project / ".uze/receipts/kit.json").read_bytes())
    records = {a["target"]: a for a in receipt["artifacts"]}
    agent = sandbox.project / ".codex/agents/kit-reader.toml"
    assert records[".codex/agents/kit-reader.toml"]["digest"] == _digest(agent.read_bytes())
    skill = sandbox.project / ".agents/skills/kit-review"
    assert records[".agents/skills/kit-review"]["files"] == {
        "SKILL.md": _digest((skill / "SKILL.md").read_bytes()),
        "references/guide.md": _digest(b"guide\n")}
    status = as_json(assert_ok(uze("status", "kit", "--json")))
    assert {p["state"] for p in status["packages"][0]["projections"]
            if p["target"]} == {"matched"}

    gone = assert_ok(uze("uninstall", "kit"))
    assert all(f"Removed {target}" in gone.stdout for target in ADOPTED)
    assert tree_bytes(sandbox.project) == {"README.md": b"mine\n\0mode=644"}


def test_the_plain_install_names_each_adopted_target_and_what_uninstall_does(
        uze: Uze, sandbox: Sandbox, kit: Path) -> None:
    _already_there(uze, sandbox, kit)
    dry = assert_ok(uze("install", kit, *HARNESSES, "--dry-run"))
    assert "Would adopt 12 targets already there byte for byte" in dry.stdout

    out = assert_ok(uze("install", kit, *HARNESSES)).stdout

    assert ("Adopted 12 targets already there byte for byte (nothing rewritten); "
            "`uze uninstall kit` removes them:") in out
    assert all(f"\n  {target}\n" in out for target in ADOPTED)


def test_uninstall_keeps_an_adopted_file_edited_since_and_says_so(
        uze: Uze, sandbox: Sandbox, kit: Path) -> None:
    _already_there(uze, sandbox, kit)
    assert_ok(uze("install", kit, *HARNESSES))
    agent = sandbox.project / ".opencode/agents/kit-reader.md"
    agent.write_bytes(agent.read_bytes() + b"My own line.\n")
    edited = agent.read_bytes()

    result = assert_ok(uze("uninstall", "kit"))

    assert ("kept .opencode/agents/kit-reader.md: changed since install; kept "
            "(uze uninstall --force removes it)") in result.stdout
    assert agent.read_bytes() == edited
    left = {k for k, v in tree_bytes(sandbox.project).items() if v != "dir"}
    assert left == {".opencode/agents/kit-reader.md"}


def test_a_partial_match_is_refused_with_both_digests_and_nothing_is_written(
        uze: Uze, sandbox: Sandbox, kit: Path) -> None:
    _already_there(uze, sandbox, kit)
    guide = sandbox.project / ".agents/skills/kit-review/references/guide.md"
    guide.write_bytes(b"my guide\n")  # SKILL.md beside it still matches
    before, stats = tree_bytes(sandbox.project), _stats(sandbox.project)

    result = uze("install", kit, *HARNESSES)

    assert result.returncode == 1
    assert ("uze: error: conflict at .agents/skills/kit-review: exists and was not written "
            "by uze") in result.stderr
    mine, theirs = _digest(b"my guide\n"), _digest(b"guide\n")
    assert (f".agents/skills/kit-review/references/guide.md: on disk blake3:{mine}; the "
            f"package's blake3:{theirs}") in result.stderr
    assert "SKILL.md" not in result.stderr  # the file that matches is not named
    assert tree_bytes(sandbox.project) == before
    assert _stats(sandbox.project) == stats


def test_an_entry_with_another_value_is_refused_with_both_digests(
        uze: Uze, sandbox: Sandbox, kit: Path) -> None:
    _already_there(uze, sandbox, kit)
    config = sandbox.project / "opencode.json"
    document = json.loads(config.read_bytes())
    document["mcp"]["search"]["url"] = "https://elsewhere.example.com/mcp"
    config.write_text(json.dumps(document, indent=2) + "\n")
    before = tree_bytes(sandbox.project)

    result = uze("install", kit, *HARNESSES)

    assert result.returncode == 1
    assert ("conflict at opencode.json#mcp.search: an entry with this name is there and uze did "
            "not write it") in result.stderr
    assert "opencode.json#mcp.search: on disk blake3:" in result.stderr
    assert "; the package's blake3:" in result.stderr
    assert tree_bytes(sandbox.project) == before


def test_a_link_where_a_file_is_planned_is_never_followed(
        uze: Uze, sandbox: Sandbox, kit: Path) -> None:
    _already_there(uze, sandbox, kit)
    agent = sandbox.project / ".codex/agents/kit-reader.toml"
    outside = sandbox.root / "elsewhere.toml"
    outside.write_bytes(agent.read_bytes())  # byte for byte what uze would write
    agent.unlink()
    agent.symlink_to(outside)
    before = tree_bytes(sandbox.project)

    result = uze("install", kit, *HARNESSES)

    assert result.returncode == 1
    assert ("uze: error: conflict at .codex/agents/kit-reader.toml: exists and was not written "
            "by uze") in result.stderr
    assert (".codex/agents/kit-reader.toml: on disk a symbolic link (never followed); the "
            "package's blake3:") in result.stderr
    assert tree_bytes(sandbox.project) == before
    assert outside.read_bytes() == (sandbox.root / "scratch/.codex/agents/kit-reader.toml"
                                    ).read_bytes()
    assert not (sandbox.project / ".uze").exists()


def test_a_target_another_package_owns_is_not_adopted(
        uze: Uze, sandbox: Sandbox, kit: Path) -> None:
    other = build_tree(sandbox.root / "other", {
        "plugin.json": '{"name": "other", "version": "1.0.0"}\n', "mcp.json": KIT["mcp.json"]})
    assert_ok(uze("install", other, "--harness", "codex"))
    before = tree_bytes(sandbox.project)

    result = uze("install", kit, "--harness", "codex")

    assert result.returncode == 1
    assert ("conflict at .codex/config.toml#mcp_servers.search: already delivered by package "
            "other") in result.stderr
    assert tree_bytes(sandbox.project) == before


def test_a_folder_with_a_file_of_the_users_beside_the_planned_ones_is_not_adopted(
        uze: Uze, sandbox: Sandbox, kit: Path) -> None:
    _already_there(uze, sandbox, kit)
    extra = sandbox.project / ".agents/skills/kit-review/notes.md"
    extra.write_bytes(b"mine\n")
    before = tree_bytes(sandbox.project)

    result = uze("install", kit, *HARNESSES)

    assert result.returncode == 1
    mine = _digest(b"mine\n")
    assert (f".agents/skills/kit-review/notes.md: on disk blake3:{mine}; not in the package"
            ) in result.stderr
    assert tree_bytes(sandbox.project) == before
    shutil.rmtree(sandbox.root / "scratch")


def _hand_made(project: Path) -> dict[str, bytes | str]:
    """A Claude Code setup written by hand, holding exactly the resources of `KIT` (a command
    in a subfolder too), and a settings file of the user's own; returns the project's tree."""
    build_tree(project, {
        ".claude/skills/review/SKILL.md": KIT["skills/review/SKILL.md"],
        ".claude/skills/review/references/guide.md": KIT["skills/review/references/guide.md"],
        ".claude/agents/reader.md": KIT["agents/reader.md"],
        ".claude/commands/tidy.md": KIT["commands/tidy.md"],
        ".claude/commands/git/commit.md": "---\ndescription: Commit.\n---\nCommit it.\n",
        ".claude/settings.local.json": '{"model": "mine"}\n',
        ".mcp.json": '{\n  "mcpServers": {\n    "search": {"type": "http", '
                     '"url": "https://search.example.com/mcp"}\n  }\n}\n',
        "CLAUDE.md": KIT["AGENTS.md"],
    })
    return tree_bytes(project)


def test_claude_code_resources_already_in_place_are_adopted_there_with_no_plugin_beside(
        uze: Uze, sandbox: Sandbox) -> None:
    kit = build_tree(sandbox.root / "kit", {
        **KIT, "commands/git/commit.md": "---\ndescription: Commit.\n---\nCommit it.\n"})
    before = _hand_made(sandbox.project)
    stats = _stats(sandbox.project)

    result = as_json(assert_ok(uze("install", kit, "--harness", "claude_code", "--json")))

    assert result["adopted"] == [
        "CLAUDE.md", ".claude/skills/review", ".claude/commands/git/commit.md",
        ".claude/commands/tidy.md", ".claude/agents/reader.md",
        ".mcp.json#mcpServers.search"]
    assert {k: v for k, v in tree_bytes(sandbox.project).items() if not _mine(k)} == before
    assert _stats(sandbox.project).items() >= stats.items()
    assert not (sandbox.project / ".claude/skills/kit").exists()  # no plugin folder beside
    rows = {(p["kind"], p["resource"]): p for p in result["projections"]}
    assert rows["skill", "review"]["label"] == "review"
    assert rows["skill", "review"]["target"] == ".claude/skills/review"
    assert rows["command", "commit"]["label"] == "/git:commit"
    assert rows["agent", "reader"]["target"] == ".claude/agents/reader.md"
    assert all(p["route"] == "native" for p in result["projections"])
    status = as_json(assert_ok(uze("status", "kit", "--json")))
    assert {p["state"] for p in status["packages"][0]["projections"]} == {"matched"}
    again = assert_ok(uze("install", kit, "--harness", "claude_code"))
    assert "Already installed: nothing changed." in again.stdout

    assert_ok(uze("uninstall", "kit"))
    assert tree_bytes(sandbox.project) == {
        ".claude": "dir", ".claude/settings.local.json": b'{"model": "mine"}\n\0mode=644'}


def test_opencode_lists_the_skill_in_place_instead_of_a_copy_of_its_own(
        uze: Uze, sandbox: Sandbox, kit: Path) -> None:
    _hand_made(sandbox.project)

    result = as_json(assert_ok(uze("install", kit, "--harness", "claude_code,opencode,codex",
                                   "--json")))

    rows = {(p["kind"], p["harness"]): p for p in result["projections"] if p["kind"] == "skill"}
    assert rows["skill", "opencode"]["target"] == ".claude/skills/review"
    assert rows["skill", "opencode"]["label"] == "review"
    # Codex is served from a root OpenCode does not read, so OpenCode sees the skill once
    assert rows["skill", "codex"]["target"] == ".codex/skills/kit-review"
    assert not (sandbox.project / ".agents/skills").exists()
    assert not (sandbox.project / ".opencode/skills").exists()


# A server the user wrote by hand, as harnesses accept it: no `args`, a secret in `env`. Its
# export is `{"command": "npx", "env": {"API_TOKEN": "${API_TOKEN}"}}` (ADR 0095).
HAND_WRITTEN = {"mcpServers": {"tickets": {"type": "stdio", "command": "npx",
                                           "env": {"API_TOKEN": "sk-live-0123456789abcdef"}}}}


@pytest.mark.parametrize(("args", "token"), [
    ((), "${API_TOKEN}"),  # the package has no args either, the secret as a reference
    ((), "${API_TOKEN:-}"),  # not what export writes: a real difference
    (("--port", "1"), "${API_TOKEN}"),  # another command line: a real difference
])
def test_a_server_there_in_the_packages_portable_form_is_adopted_else_refused(
        uze: Uze, sandbox: Sandbox, args: tuple[str, ...], token: str) -> None:
    """ADR 0096 compares an entry by its portable form, as export and import write it: a
    hand-written `.mcp.json` server without `args`, its secret replaced by `${VAR}` in the
    package, is the package's server (adopted, not a byte changed); anything else that
    differs is refused, naming both digests, nothing written."""
    mcp = json.dumps(HAND_WRITTEN, indent=2) + "\n"
    build_tree(sandbox.project, {".mcp.json": mcp, ".git/HEAD": "ref: refs/heads/main\n"})
    server: dict[str, object] = {"command": "npx", "env": {"API_TOKEN": token}}
    if args:
        server["args"] = list(args)
    package = build_tree(sandbox.root / "tickets", {
        "plugin.json": '{"name": "tickets", "version": "1.0.0"}\n',
        "mcp.json": json.dumps({"mcpServers": {"tickets": server}}),
    })
    before = tree_bytes(sandbox.project)
    stats = _stats(sandbox.project)

    result = uze("install", package, "--harness", "claude_code", "--trust", "--json")

    if args or token != "${API_TOKEN}":
        assert result.returncode == 1, result.stdout
        assert ("conflict at .mcp.json#mcpServers.tickets: an entry with this name is there and "
                "uze did not write it") in result.stderr
        assert ".mcp.json#mcpServers.tickets: on disk blake3:" in result.stderr
        assert tree_bytes(sandbox.project) == before
        return
    document = as_json(assert_ok(result))
    assert document["adopted"] == [".mcp.json#mcpServers.tickets"]
    assert (sandbox.project / ".mcp.json").read_text() == mcp
    assert {k: v for k, v in _stats(sandbox.project).items() if k == ".mcp.json"} == {
        ".mcp.json": stats[".mcp.json"]}
    status = as_json(assert_ok(uze("status", "tickets", "--json")))
    assert {p["state"] for p in status["packages"][0]["projections"]} == {"matched"}
    again = as_json(assert_ok(uze("install", package, "--harness", "claude_code", "--json")))
    assert (sandbox.project / ".mcp.json").read_text() == mcp, again  # the secret stays
    assert_ok(uze("uninstall", "tickets"))
    assert not (sandbox.project / ".mcp.json").exists()
