"""Issue 34's end-to-end must-show, on the pinned real binaries (ADR 0095, ADR 0096): a
hand-made Claude Code setup in a project (a skill with a nested file, an agent, a nested
command, an HTTP MCP server, a SessionStart hook, CLAUDE.md) is exported with `uze export`;
the package is installed into Codex, OpenCode and Gemini CLI, which list each of its skills,
agents, commands and servers exactly once, and into Claude Code itself by adoption: every
byte, inode and mtime of the setup as it was, no plugin folder beside it, the real claude
listing each skill, agent, command and server once under the user's own names. `uze
uninstall` then removes it all: the project holds what it held before, minus the setup."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.conformance.contracts import Oracle
from tests.conformance.lab import Lab, hook_log, require
from tests.conformance.oracles import REAL_HARNESSES
from tests.helpers import build_tree, tree_bytes
from uze.doctor import probes

pytestmark = pytest.mark.conformance
OTHERS = ("codex", "opencode", "gemini_cli")
USER_TEXT = "# Team rules\n\nAnswer in English. ADOPT-MARKER-3\n"
SKILL = ".claude/skills/careful-review"
SETUP = (f"{SKILL}/SKILL.md", f"{SKILL}/references/guide.md", ".claude/agents/tester.md",
         ".claude/commands/git/commit.md", ".mcp.json", ".claude/settings.json", "CLAUDE.md")


def _setup(project: Path, url: str) -> None:
    build_tree(project, dict(zip(SETUP, (
        "---\nname: careful-review\ndescription: Review a change carefully.\n---\n"
        "Read references/guide.md first.\n",
        "Look for bugs.\n",
        "---\nname: tester\ndescription: Runs the tests.\ntools: Read, Bash\n---\n"
        "Run the suite.\n",
        "---\ndescription: Commit the work\n---\nCommit with message $ARGUMENTS.\n",
        json.dumps({"mcpServers": {"tickets": {"type": "http", "url": url}}}, indent=2) + "\n",
        json.dumps({"hooks": {"SessionStart": [{"hooks": [{
            "type": "command", "command": 'echo adopted-hook >> "$UZE_CONFORMANCE_HOOK_LOG"'}]}]}},
            indent=2) + "\n",
        USER_TEXT), strict=True)))


def _claude(lab: Lab) -> tuple[dict[str, Counter[str]], str]:
    """What the real claude lists in the project, by kind, with how often; and the text of
    the memory files it loads."""
    events = probes.claude_events(lab.run("claude", *probes.CLAUDE_CONTEXT).stdout)
    init, _markdown = probes.claude_context(events)
    mcp = probes.claude_mcp(lab.run("claude", *probes.CLAUDE_MCP).stdout)
    return {
        "skill": Counter(probes.claude_listed(events, "Skills", "skills").counts),
        "agent": Counter(probes.claude_listed(events, "Custom Agents", "agents").counts),
        "command": Counter(c for c in init.get("slash_commands") or [] if "commit" in c),
        "mcp": Counter({name: 1 for name in mcp.connected or ()}),
    }, probes.claude_memory(events)[1]


def _stats(root: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(root).as_posix(): (p.lstat().st_ino, p.lstat().st_mtime_ns)
            for p in root.rglob("*") if p.is_file() and ".git" not in p.parts}


def _files(root: Path) -> dict[str, bytes | str]:
    return {k: v for k, v in tree_bytes(root).items() if v != "dir"}


def _labels(lab: Lab) -> dict[tuple[str, str], set[str]]:
    """(harness, kind) -> the names `uze status` says each harness lists the package's
    delivered resources under (an MCP server: its name)."""
    status = json.loads(lab.uze("status", "shop", "--json").stdout)
    found: dict[tuple[str, str], set[str]] = {}
    for p in status["packages"][0]["projections"]:
        if p["target"]:
            assert p["state"] == "matched", p
            name = p["resource"] if p["kind"] == "mcp" else p["label"]
            found.setdefault((p["harness"], p["kind"]), set()).add(name)
    return found


def test_a_hand_made_claude_setup_exported_reaches_every_harness_and_claude_by_adoption(
        lab: Lab, mcp_url: str) -> None:
    for binary in ("claude", "codex", "opencode", "gemini"):
        require(binary)
    project = lab.sandbox.project
    _setup(project, mcp_url)
    before, memory = _claude(lab)
    assert before["skill"]["careful-review"] == 1 and before["agent"]["tester"] == 1, before
    assert before["command"] == Counter({"git:commit": 1})
    assert before["mcp"] == Counter({"tickets": 1})
    assert "ADOPT-MARKER-3" in memory
    untouched, stats = _files(project), _stats(project)

    out = lab.sandbox.root / "exported"
    lab.uze("export", "--harness", "claude_code", "--name", "shop", "--out", str(out))
    assert _files(project) == untouched
    result = json.loads(lab.uze("install", str(out), "--harness",
                                ",".join(("claude_code", *OTHERS)), "--trust", "--json").stdout)

    # Claude Code by adoption: the setup as it was, to the inode, and nothing beside it
    after = _files(project)
    assert {rel: after[rel] for rel in untouched} == untouched
    assert _stats(project).items() >= stats.items()
    assert set(result["adopted"]) >= {
        SKILL, ".claude/agents/tester.md", ".claude/commands/git/commit.md",
        "CLAUDE.md", ".mcp.json#mcpServers.tickets"}
    assert not (project / ".claude/skills/shop").exists()
    hook_log(lab.sandbox).unlink(missing_ok=True)
    listed, memory = _claude(lab)
    assert listed == before, listed  # each once, under the user's own names; no shop:...
    assert memory.count("ADOPT-MARKER-3") == 1
    assert "adopted-hook" in hook_log(lab.sandbox).read_text(encoding="utf-8")

    # every other harness lists each of its resources exactly once
    labels = _labels(lab)
    for harness in OTHERS:
        for kind in ("skill", "agent", "command", "mcp"):
            oracle = REAL_HARNESSES[harness].entry(kind, "project")
            names = labels.get((harness, kind), set())
            if not isinstance(oracle, Oracle) or not names:
                continue
            seen = oracle.read(lab)
            counts = {name: seen.counts[name] for name in names}
            assert set(counts.values()) == {1}, (harness, kind, counts, seen.evidence[:3000])
    opencode = REAL_HARNESSES["opencode"].entry("skill", "project")
    assert isinstance(opencode, Oracle)
    assert opencode.read(lab).counts["careful-review"] == 1  # Claude's folder; no copy of its own

    # uninstall removes it all: what was there before, minus the setup it adopted
    lab.uze("uninstall", "shop")
    left = _files(project)
    # what the real opencode wrote itself while it ran: its own .gitignore, and a `$schema`
    # key in opencode.json (so that file is not uze's empty rendering: kept, as it should be)
    left.pop(".opencode/.gitignore", None)
    if left.pop("opencode.json", None) is not None:
        config = json.loads((project / "opencode.json").read_bytes())
        assert config.keys() <= {"$schema"}, config
    assert left == {rel: data for rel, data in untouched.items() if rel not in SETUP}
    assert not (project / ".claude/skills").exists()
