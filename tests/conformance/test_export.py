"""`uze export` on the real Claude Code (issue 34 item 1, ADR 0095): a hand-made setup that the
pinned `claude` lists (a skill with a nested file, an agent, a nested command, an HTTP MCP server
whose Authorization header holds a secret, a SessionStart hook, CLAUDE.md) is exported; the
package, installed by uze into a second project, is listed by the same binary with every one
of those resources under the package's label, the hook runs, the user's instructions are
loaded, and the server connects with the secret given only as the environment variable the
export named in place of the value (unset, claude names it missing)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path

import pytest

from tests.conformance.lab import TIMEOUT, Lab, hook_log, require
from tests.e2e.conftest import snapshot
from tests.helpers import build_tree
from uze.doctor import probes

pytestmark = pytest.mark.conformance

SECRET = "s3cret-header-value"
USER_TEXT = "# Team rules\n\nAnswer in English. EXPORT-MARKER-7\n"


def _setup(project: Path, url: str) -> None:
    build_tree(project, {
        ".claude/skills/review/SKILL.md": "---\nname: review\ndescription: Review a change "
                                          "carefully.\n---\nRead references/guide.md first.\n",
        ".claude/skills/review/references/guide.md": "Look for bugs.\n",
        ".claude/agents/tester.md": "---\nname: tester\ndescription: Runs the tests.\n"
                                    "tools: Read, Bash\n---\nRun the suite.\n",
        ".claude/commands/git/commit.md": "---\ndescription: Commit the work\n---\n"
                                          "Commit with message $ARGUMENTS.\n",
        ".mcp.json": json.dumps({"mcpServers": {"tickets": {
            "type": "http", "url": url, "headers": {"Authorization": f"Bearer {SECRET}"}}}}),
        ".claude/settings.json": json.dumps({"hooks": {"SessionStart": [{"hooks": [{
            "type": "command",
            "command": 'echo exported-hook >> "$UZE_CONFORMANCE_HOOK_LOG"'}]}]}}),
        "CLAUDE.md": USER_TEXT,
    })


def _listed(lab: Lab, env: dict[str, str] | None = None
            ) -> tuple[dict[str, set[str]], str, str]:
    """What the real claude shows in the lab's project: skills, agents, commit commands and
    connected servers by kind, the text of the memory files it loads, and `claude mcp list`."""
    events = probes.claude_events(lab.run("claude", *probes.CLAUDE_CONTEXT, env=env).stdout)
    init, _markdown = probes.claude_context(events)
    listing = lab.run("claude", *probes.CLAUDE_MCP, env=env).stdout
    mcp = probes.claude_mcp(listing)
    return {
        "skill": set(probes.claude_listed(events, "Skills", "skills").counts),
        "agent": set(probes.claude_listed(events, "Custom Agents", "agents").counts),
        "command": {c for c in init.get("slash_commands") or [] if "commit" in c},
        "mcp": set(mcp.connected or ()),
    }, probes.claude_memory(events)[1], listing


def _second_project(lab: Lab) -> Lab:
    """A second project trusted as the first one is (workspace trust, project MCP approved)."""
    project = lab.sandbox.root / "second"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True, timeout=TIMEOUT)
    build_tree(project, {".claude/settings.local.json": '{"enableAllProjectMcpServers": true}\n'})
    state = lab.sandbox.home / ".claude.json"
    trusted = json.loads(state.read_text(encoding="utf-8"))
    trusted["projects"][str(project)] = {"hasTrustDialogAccepted": True}
    state.write_text(json.dumps(trusted, indent=2) + "\n", encoding="utf-8")
    return Lab(dataclasses.replace(lab.sandbox, project=project), lab.package)


def test_claude_lists_the_exported_setup_installed_into_another_project(
        lab: Lab, mcp_url: str) -> None:
    require("claude")
    _setup(lab.sandbox.project, mcp_url)
    before, memory, _listing = _listed(lab)
    assert "EXPORT-MARKER-7" in memory
    assert "review" in before["skill"] and "tester" in before["agent"]
    assert before["mcp"] == {"tickets"}
    untouched = snapshot(lab.sandbox)["project"]
    out = lab.sandbox.root / "exported"
    exported = lab.uze("export", "--harness", "claude_code", "--name", "shop", "--out", str(out))
    assert SECRET not in exported.stdout
    assert SECRET not in "".join(p.read_text(errors="replace") for p in out.rglob("*")
                                 if p.is_file())
    assert snapshot(lab.sandbox)["project"] == untouched

    second = _second_project(lab)
    second.uze("install", str(out), "--harness", "claude_code", "--trust")
    hook_log(lab.sandbox).unlink(missing_ok=True)
    unset = second.run("claude", *probes.CLAUDE_MCP).stdout
    assert "Missing environment variables: TICKETS_AUTHORIZATION" in unset
    env = {"TICKETS_AUTHORIZATION": SECRET}
    after, memory, listing = _listed(second, env)
    assert {"shop:review"} <= after["skill"]
    assert {"shop:tester"} <= after["agent"]
    assert before["command"] == {"git:commit"}
    assert after["command"] == {"shop:git:commit"}
    assert after["mcp"] == {"tickets"}
    assert "Missing environment variables" not in listing  # the reference is expanded
    assert "EXPORT-MARKER-7" in memory
    assert "exported-hook" in hook_log(lab.sandbox).read_text(encoding="utf-8")
    written = (second.sandbox.project / ".mcp.json").read_text(encoding="utf-8")
    assert "${TICKETS_AUTHORIZATION}" in written and SECRET not in written
