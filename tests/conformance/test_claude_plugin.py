"""A package with its own `.claude-plugin/plugin.json` on Claude Code: one native plugin.

uze delivers such a package whole, its own manifest included, as a folder of Claude Code's skill
root, which the real binary loads as `<package>@skills-dir` (adr/0041). What must show, with the
real binary, in project scope (workspace trusted, as its trust dialog records it) and user scope:

* `claude -p /context` lists the plugin, its skill as `<package>:<skill>` (the label status
  shows), its command `<package>:<command>` and its agent `<package>:<agent>`;
* `claude mcp list` connects its MCP server `plugin:<package>:<server>`, whose command is
  `${CLAUDE_PLUGIN_ROOT}/bin/server.sh` (Claude Code resolves the root);
* a command invoked by that label reaches the scripted model with its body and arguments;
* an agent whose `tools` lists only Read is offered only Read and has a Bash call refused;
* after uninstall none is listed, and the project holds the bytes it held before install.

The package is written here (no copy of a published plugin).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.evidence import EvidenceRun
from tests.conformance.lab import Lab, model_run, prepare_user_state, require
from tests.conformance.model_server import ModelServer, Script, model_server, tool_names
from tests.conftest import Sandbox
from tests.helpers import tree_bytes
from uze.doctor import probes

pytestmark = pytest.mark.conformance
NAME = "plan-kit"
SKILL = "brainstorming"
COMMAND = "tidy"
AGENT = "reader"
COMMAND_BODY = "UZE_PLUGIN_COMMAND_BODY: remove trailing whitespace from"
DELEGATE = "UZE_PLUGIN_DELEGATE"  # the prompt that makes the scripted model call the agent
TASK = "UZE_PLUGIN_SUBAGENT_TASK"  # the agent's task: it then asks for Bash, which it lacks
AGENT_BASH = "touch uze-plugin-agent-bash"
SERVER = "probe"


def build_plugin(dest: Path) -> Path:
    """A Claude-layout plugin: one skill, one command, one read-only agent."""
    (dest / ".claude-plugin").mkdir(parents=True)
    manifest = {"name": NAME, "version": "1.2.0", "description": "Planning helpers."}
    (dest / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest), encoding="utf-8")
    (dest / "skills" / SKILL).mkdir(parents=True)
    (dest / "skills" / SKILL / "SKILL.md").write_text(
        f"---\nname: {SKILL}\ndescription: Explore ideas before planning (uze plugin probe)\n"
        "---\nAsk one question at a time.\n", encoding="utf-8")
    (dest / "commands").mkdir()
    (dest / "commands" / f"{COMMAND}.md").write_text(
        f"---\ndescription: Tidy the named files\nargument-hint: FILES\n---\n"
        f"{COMMAND_BODY} $ARGUMENTS\n", encoding="utf-8")
    (dest / "agents").mkdir()
    (dest / "agents" / f"{AGENT}.md").write_text(
        f"---\nname: {AGENT}\ndescription: Reads files and reports (uze plugin probe)\n"
        "tools: Read\n---\nYou only read files.\n", encoding="utf-8")
    (dest / "bin").mkdir()
    shutil.copy(Path(__file__).with_name("mcp_probe.py"), dest / "bin" / "mcp_probe.py")
    server = dest / "bin" / "server.sh"
    server.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$(dirname "$0")/mcp_probe.py"\n',
                      encoding="utf-8")
    server.chmod(0o755)
    servers = {SERVER: {"type": "stdio", "command": "${CLAUDE_PLUGIN_ROOT}/bin/server.sh"}}
    (dest / ".mcp.json").write_text(json.dumps(servers), encoding="utf-8")
    return dest


def _tree(root: Path) -> dict[str, bytes | str]:
    return {k: v for k, v in tree_bytes(root).items() if not k.startswith(".git")}


def _context(lab: Lab) -> dict[str, Any]:
    events = probes.claude_events(lab.run("claude", *probes.CLAUDE_CONTEXT).stdout)
    init, _markdown = probes.claude_context(events)
    return init


def _turn(lab: Lab, model: ModelServer, prompt: str, script: Script) -> list[Any]:
    model.clear()
    model.script = script
    args, env = model_run(lab, "claude", model.url, prompt)
    lab.run("claude", *args, env=env)
    return [r for r in model.logged("claude") if r.path.endswith("/v1/messages")]


def _tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool_result blocks of a Claude request."""
    return [block for message in body.get("messages") or []
            if isinstance(message.get("content"), list)
            for block in message["content"]
            if isinstance(block, dict) and block.get("type") == "tool_result"]


@pytest.mark.parametrize("scope", ("project", "user"))
def test_a_claude_plugin_is_one_native_plugin_its_labels_resolve_and_uninstall_removes_it(
    sandbox: Sandbox, evidence: EvidenceRun, scope: str
) -> None:
    require("claude")
    prepare_user_state(sandbox)
    lab = Lab(sandbox, build_plugin(sandbox.root / "packages" / NAME))
    before = _tree(sandbox.project)
    lab.uze("install", str(lab.package), "--harness", "claude_code", "--scope", scope, "--trust")
    status = json.loads(lab.uze("status", NAME, "--json", "--scope", scope).stdout)
    rows = {(p["kind"], p["resource"]): p for p in status["packages"][0]["projections"]}
    assert rows[("skill", SKILL)]["label"] == f"{NAME}:{SKILL}", rows
    assert rows[("skill", SKILL)]["reason"].startswith("native package, its own manifest"), rows
    assert rows[("command", COMMAND)]["label"] == f"{NAME}:{COMMAND}", rows
    assert rows[("agent", AGENT)]["label"] == f"{NAME}:{AGENT}", rows

    with evidence.check("claude_code", "skill.label", scope):
        init = _context(lab)
        plugins = [p for p in init.get("plugins") or [] if p.get("name") == NAME]
        assert [p.get("source") for p in plugins] == [f"{NAME}@skills-dir"], init.get("plugins")
        assert (init.get("skills") or []).count(f"{NAME}:{SKILL}") == 1, init.get("skills")
    commands = init.get("slash_commands") or []
    assert commands.count(f"{NAME}:{COMMAND}") == 1, commands
    assert (init.get("agents") or []).count(f"{NAME}:{AGENT}") == 1, init.get("agents")
    server = f"plugin:{NAME}:{SERVER}"
    assert rows[("mcp", SERVER)]["label"] == server, rows
    seen = probes.claude_mcp(lab.run("claude", *probes.CLAUDE_MCP).stdout)
    assert seen.counts[server] == 1 and seen.connected and server in seen.connected, seen

    with model_server() as model:
        with evidence.check("claude_code", "command.label", scope):
            requests = _turn(lab, model, f"/{NAME}:{COMMAND} notes.txt", Script())
            text = "".join(r.text() for r in requests)
            assert f"{COMMAND_BODY} notes.txt" in text, (
                f"/{NAME}:{COMMAND} did not bring its body to the model: {text[:3000]}")
        with evidence.check("claude_code", "agent.tools", scope):
            call = {"subagent_type": f"{NAME}:{AGENT}", "description": "read a file",
                    "prompt": TASK}
            bash = {"command": AGENT_BASH, "description": "not one of the agent's tools"}
            script = Script(calls=((TASK, "Bash", bash), (DELEGATE, "Agent", call)))
            requests = _turn(lab, model, DELEGATE, script)
            sub = [r for r in requests if TASK in r.text() and "Agent" not in
                   tool_names("claude", r.body)]
            assert sub, f"the agent {NAME}:{AGENT} never ran: {[r.text()[:500] for r in requests]}"
            offered = set(tool_names("claude", sub[0].body))
            assert "Read" in offered and "Bash" not in offered, offered
            assert not (sandbox.project / AGENT_BASH.split()[1]).exists(), "Bash ran in the agent"
            refused = [b for r in sub for b in _tool_results(r.body)]
            assert refused and all(b.get("is_error") for b in refused), refused
            assert "No such tool available: Bash" in json.dumps(refused), refused

    lab.uze("uninstall", NAME, "--scope", scope)
    init = _context(lab)
    listed = [n for key in ("skills", "slash_commands", "agents") for n in init.get(key) or []]
    assert not [n for n in listed if n.startswith(f"{NAME}:")], listed
    assert not [p for p in init.get("plugins") or [] if p.get("name") == NAME], init
    assert not probes.claude_mcp(lab.run("claude", *probes.CLAUDE_MCP).stdout).counts[server]
    assert _tree(sandbox.project) == before


PORTABLE = "tidy-kit"


def build_portable(dest: Path) -> Path:
    """A portable package (uze's own root `plugin.json`): one skill, one command, one agent."""
    dest.mkdir(parents=True)
    manifest = {"name": PORTABLE, "version": "0.3.0", "description": "Tidying helpers."}
    (dest / "plugin.json").write_text(json.dumps(manifest), encoding="utf-8")
    (dest / "skills" / SKILL).mkdir(parents=True)
    (dest / "skills" / SKILL / "SKILL.md").write_text(
        f"---\nname: {SKILL}\ndescription: Explore ideas before tidying (uze portable probe)\n"
        "---\nAsk one question at a time.\n", encoding="utf-8")
    (dest / "commands").mkdir()
    (dest / "commands" / f"{COMMAND}.md").write_text(
        f"---\ndescription: Tidy the named files\n---\n{COMMAND_BODY} $ARGUMENTS\n",
        encoding="utf-8")
    (dest / "agents").mkdir()
    (dest / "agents" / f"{AGENT}.md").write_text(
        f"---\nname: {AGENT}\ndescription: Reads files and reports (uze portable probe)\n"
        "---\nYou only read files.\n", encoding="utf-8")
    return dest


@pytest.mark.parametrize("scope", ("project", "user"))
def test_a_portable_package_is_a_generated_plugin_its_labels_resolve_and_uninstall_removes_it(
    sandbox: Sandbox, evidence: EvidenceRun, scope: str
) -> None:
    """adr/0048: Claude Code lists a portable package's skill as `<package>:<skill>`, its
    command `/<package>:<command>` reaches the model; OpenCode, which scans Claude Code's skill
    root too, lists the skill once, its own copy under its flat name (the plugin's copy has no
    `name`, so OpenCode skips it); uninstall leaves the project as it was."""
    require("claude")
    require("opencode")
    prepare_user_state(sandbox)
    lab = Lab(sandbox, build_portable(sandbox.root / "packages" / PORTABLE))
    before = _tree(sandbox.project)
    lab.uze("install", str(lab.package), "--harness", "claude_code,opencode", "--scope", scope,
            "--trust")
    status = json.loads(lab.uze("status", PORTABLE, "--json", "--scope", scope).stdout)
    rows = {(p["kind"], p["resource"], p["harness"]): p
            for p in status["packages"][0]["projections"]}
    claude = {k[:2]: row for k, row in rows.items() if k[2] == "claude_code"}
    assert claude[("skill", SKILL)]["label"] == f"{PORTABLE}:{SKILL}", rows
    assert claude[("command", COMMAND)]["label"] == f"{PORTABLE}:{COMMAND}", rows
    assert claude[("agent", AGENT)]["label"] == f"{PORTABLE}:{AGENT}", rows
    assert ("workspace is trusted" in claude[("skill", SKILL)]["reason"]) == (scope == "project")
    opencode = rows[("skill", SKILL, "opencode")]
    assert (opencode["label"], opencode["route"]) == (f"{PORTABLE}-{SKILL}", "native"), opencode

    with evidence.check("claude_code", "skill.label", scope):
        init = _context(lab)
        plugins = [p for p in init.get("plugins") or [] if p.get("name") == PORTABLE]
        assert [p.get("source") for p in plugins] == [f"{PORTABLE}@skills-dir"], init
        assert (init.get("skills") or []).count(f"{PORTABLE}:{SKILL}") == 1, init.get("skills")
        listed = [n for key in ("skills", "agents") for n in init.get(key) or []]
        assert not [n for n in listed if n.startswith(f"{PORTABLE}-")], listed  # no flat copy
    assert (init.get("slash_commands") or []).count(f"{PORTABLE}:{COMMAND}") == 1, init
    assert (init.get("agents") or []).count(f"{PORTABLE}:{AGENT}") == 1, init.get("agents")
    seen = probes.opencode_skills(lab.run("opencode", *probes.OPENCODE_SKILLS).stdout)
    assert seen.counts == {f"{PORTABLE}-{SKILL}": 1}, seen.evidence
    listed_at = opencode["target"].removeprefix("~/")  # OpenCode's own copy, not the plugin's
    assert f"{listed_at}/SKILL.md" in seen.evidence and ".claude" not in seen.evidence

    with model_server() as model, evidence.check("claude_code", "command.label", scope):
        requests = _turn(lab, model, f"/{PORTABLE}:{COMMAND} notes.txt", Script())
        text = "".join(r.text() for r in requests)
        assert f"{COMMAND_BODY} notes.txt" in text, (
            f"/{PORTABLE}:{COMMAND} did not bring its body to the model: {text[:3000]}")

    lab.uze("uninstall", PORTABLE, "--scope", scope)
    init = _context(lab)
    listed = [n for key in ("skills", "slash_commands", "agents") for n in init.get(key) or []]
    assert not [n for n in listed if n.startswith(PORTABLE)], listed
    assert not [p for p in init.get("plugins") or [] if p.get("name") == PORTABLE], init
    seen = probes.opencode_skills(lab.run("opencode", *probes.OPENCODE_SKILLS).stdout)
    assert not seen.counts, seen.evidence
    after = _tree(sandbox.project)
    own = {".opencode", ".opencode/.gitignore"}  # the opencode binary writes these, not uze
    assert {k: v for k, v in after.items() if k not in own} == before


@pytest.mark.parametrize("layout", ("native", "portable"))
def test_after_uninstall_with_an_edited_skill_claude_code_no_longer_loads_the_package(
    sandbox: Sandbox, layout: str
) -> None:
    """adr/0065: an edit to one skill of the plugin folder marks that skill drifted, not the
    package; uninstall keeps only the edited file and removes the rest, the plugin manifest
    included, so the real binary lists none of the package's skills, commands or agents (nor
    the kept skill under any name). OpenCode, which scans Claude Code's skill root too, lists
    nothing of a portable package's kept copy (it has no frontmatter `name`); a native
    package's kept SKILL.md names itself, and OpenCode lists that file as it would any."""
    require("claude")
    require("opencode")
    prepare_user_state(sandbox)
    name = NAME if layout == "native" else PORTABLE
    build = build_plugin if layout == "native" else build_portable
    lab = Lab(sandbox, build(sandbox.root / "packages" / name))
    harnesses = "claude_code" if layout == "native" else "claude_code,opencode"
    lab.uze("install", str(lab.package), "--harness", harnesses, "--trust")
    plugin = sandbox.project / ".claude" / "skills" / name
    edited = plugin / "skills" / SKILL / "SKILL.md"
    edited.write_bytes(edited.read_bytes() + b"My own note.\n")

    status = json.loads(lab.uze("status", name, "--json").stdout)
    states = {(p["kind"], p["resource"]): p["state"]
              for p in status["packages"][0]["projections"] if p["harness"] == "claude_code"}
    assert states.pop(("skill", SKILL)) == "drifted", states
    assert set(states.values()) == {"matched"}, states
    init = _context(lab)
    assert (init.get("skills") or []).count(f"{name}:{SKILL}") == 1, init.get("skills")

    lab.uze("uninstall", name)

    assert edited.read_bytes().endswith(b"My own note.\n")
    kept = sorted(p.relative_to(plugin).as_posix() for p in plugin.rglob("*") if p.is_file())
    assert kept == [f"skills/{SKILL}/SKILL.md"], kept
    init = _context(lab)
    assert not [p for p in init.get("plugins") or [] if p.get("name") == name], init
    listed = [n for key in ("skills", "slash_commands", "agents") for n in init.get(key) or []]
    assert not [n for n in listed if name in n or SKILL in n], listed
    if layout == "portable":  # a native skill keeps its author's `name`, which OpenCode lists
        seen = probes.opencode_skills(lab.run("opencode", *probes.OPENCODE_SKILLS).stdout)
        assert not seen.counts, seen.evidence
