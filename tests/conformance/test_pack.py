"""What `uze pack` writes is what the real harnesses load (issue 34 item 4, ADRs 0091, 0097).

The conformance package (skills, a top-level and a nested agent, a command, instructions, a
stdio and an HTTP MCP server, hooks) packed, as one package and as a marketplace of it:

- the validators accept each envelope and the Claude catalog (`claude plugin validate`,
  `gemini extensions validate`);
- Gemini CLI, given the extension folder linked, lists its context file, skills, servers,
  both agents (rendered without the portable `harness:` block it refuses) and hooks, connects
  both servers, and in a turn against the scripted model runs the TOML command and the packed
  SessionStart hook;
- Claude Code adds the packed marketplace and installs the plugin from it, offline, in the
  temporary HOME, lists its skills, agents, command and servers, and runs its SessionStart
  hook (the wrapper pack wrote, inside the plugin);
- Codex adds the packed marketplace and installs the plugin from it, offline, and lists its
  skills, servers and hooks.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.contracts import session_runs
from tests.conformance.lab import PACKAGE, Lab, model_run, require
from tests.conformance.model_server import model_server
from uze.doctor import probes

pytestmark = pytest.mark.conformance

MARKET = "uze-packed"
SKILLS = ["helper", "review", "ship"]


def _packed(lab: Lab) -> Path:
    out = lab.sandbox.root / "packed"
    packed = lab.uze("pack", str(lab.package), "--out", str(out))
    assert f"packed {PACKAGE}" in packed.stdout
    return out


def _market(lab: Lab) -> Path:
    """The package's parent folder (a folder of packages) packed as a marketplace."""
    out = lab.sandbox.root / "market"
    lab.uze("pack", str(lab.package.parent), "--out", str(out), "--marketplace", MARKET)
    return out


def test_the_validators_accept_every_envelope_and_the_catalog(lab: Lab) -> None:
    require("claude")
    require("gemini")
    out = _packed(lab)
    claude = lab.run("claude", "plugin", "validate", str(out / "claude_code"))
    assert "Validation passed" in claude.stdout + claude.stderr
    assert " error" not in (claude.stdout + claude.stderr).lower()
    gemini = lab.run("gemini", "extensions", "validate", str(out / "gemini_cli"))
    assert "successfully validated" in gemini.stdout + gemini.stderr
    market = _market(lab)
    catalog = lab.run("claude", "plugin", "validate", str(market))
    assert "Validation passed" in catalog.stdout + catalog.stderr
    assert "marketplace.json" in catalog.stdout + catalog.stderr


def _gemini_listed(lab: Lab, folder: Path) -> tuple[dict[str, Any], str]:
    link = lab.run("gemini", "extensions", "link", str(folder), "--consent")
    assert PACKAGE in link.stdout + link.stderr
    result = lab.run("gemini", "extensions", "list", "-o", "json")
    text = result.stdout + result.stderr
    start = text.index("\n[") + 1 if "\n[" in text else 0
    (listed,) = json.JSONDecoder().raw_decode(text, start)[0]
    return listed, text[:start]


def test_gemini_loads_the_extension_with_its_context_skills_servers_and_agents(
        lab: Lab) -> None:
    require("gemini")
    folder = _packed(lab) / "gemini_cli"
    listed, noise = _gemini_listed(lab, folder)
    assert (listed["name"], listed["isActive"]) == (PACKAGE, True)
    assert listed["contextFiles"] == [str(folder / "AGENTS.md")]
    assert sorted(skill["name"] for skill in listed["skills"]) == SKILLS
    assert sorted(listed["mcpServers"]) == ["docs", "search"]
    assert listed["mcpServers"]["docs"]["command"] == str(folder / "scripts" / "server.sh")
    # ADR 0091's gap, closed (ADR 0097): each agent in Gemini's form, flat in agents/.
    assert sorted(agent["name"] for agent in listed["agents"]) == ["reviewer", "team-planner"]
    assert "Unrecognized key" not in noise and "Error loading agent" not in noise
    health = lab.run("gemini", "mcp", "list")
    assert probes.gemini_mcp(health.stdout + health.stderr).connected == {"docs", "search"}
    # The packed hooks: Gemini's events, each running its wrapper inside the extension.
    hooks = listed["hooks"]
    assert sorted(hooks) == ["AfterTool", "BeforeTool", "SessionStart"]
    (before,) = hooks["BeforeTool"]
    assert before["hooks"][0]["command"] == (
        f'"{folder}"/hooks/gemini_cli/PreToolUse-0-no-force-push.py')


def test_claude_installs_the_plugin_from_the_packed_marketplace(lab: Lab) -> None:
    require("claude")
    market = _market(lab)
    added = lab.run("claude", "plugin", "marketplace", "add", str(market))
    assert MARKET in added.stdout + added.stderr
    lab.run("claude", "plugin", "install", f"{PACKAGE}@{MARKET}")
    (plugin,) = json.loads(lab.run("claude", "plugin", "list", "--json").stdout)
    assert (plugin["id"], plugin["enabled"]) == (f"{PACKAGE}@{MARKET}", True)
    runs, out = session_runs(lab, lambda: lab.run(
        "claude", *probes.CLAUDE_CONTEXT, "--include-hook-events").stdout)
    events = probes.claude_events(out)
    init, _ = probes.claude_context(events)
    # The packed hooks: the SessionStart group's wrapper ran its handler, once.
    assert runs == 1
    assert any(e.get("hook_name") == "SessionStart:startup" for e in events)

    def mine(table: str, key: str) -> list[str]:
        seen = probes.claude_listed(events, table, key).counts
        return sorted(n for n in seen.elements() if n.startswith(f"{PACKAGE}:"))

    # Claude Code's Skills table also lists the command (`tidy`), as for uze's own plugin.
    assert mine("Skills", "skills") == sorted([f"{PACKAGE}:{name}" for name in SKILLS] +
                                              [f"{PACKAGE}:tidy"])
    # The envelope's skill carries Claude's own invocation key: the model-only `helper` is
    # offered to the model, not to the user.
    assert f"{PACKAGE}:helper" not in init["skills"] and f"{PACKAGE}:ship" in init["skills"]
    assert mine("Custom Agents", "agents") == [f"{PACKAGE}:reviewer", f"{PACKAGE}:team:planner"]
    assert f"{PACKAGE}:tidy" in init["slash_commands"]
    servers = sorted((s["name"], s["status"]) for s in init["mcp_servers"]
                     if PACKAGE in s["name"])
    assert servers == [(f"plugin:{PACKAGE}:docs", "connected"),
                       (f"plugin:{PACKAGE}:search", "connected")]


def test_codex_installs_the_plugin_from_the_packed_marketplace(lab: Lab) -> None:
    require("codex")
    market = _market(lab)
    added = json.loads(lab.run("codex", "plugin", "marketplace", "add", str(market),
                               "--json").stdout)
    assert added["marketplaceName"] == MARKET
    lab.run("codex", "plugin", "add", f"{PACKAGE}@{MARKET}", "--json")
    params: dict[str, object] = {"cwds": [str(lab.sandbox.project)]}
    (result,) = lab.rpc("codex", ("app-server", "--listen", "stdio://"),
                        [("skills/list", params)])
    skills = result["data"][0]["skills"]  # type: ignore[index]
    assert sorted(s["name"] for s in skills if s.get("pluginId")) == [
        f"{PACKAGE}:{name}" for name in SKILLS]
    servers = json.loads(lab.run("codex", "mcp", "list", "--json").stdout)
    assert sorted(s["name"] for s in servers) == ["docs", "search"]
    # Both servers start: the stdio one in the plugin folder (`cwd: "."`), the HTTP one.
    thread: dict[str, object] = {"cwd": str(lab.sandbox.project), "ephemeral": True}

    def status(done: list[dict[str, object]]) -> dict[str, object]:
        time.sleep(0.5)  # a stdio server the session starts may still be starting
        return {"threadId": done[0]["thread"]["id"]}  # type: ignore[index]

    results = lab.rpc("codex", ("app-server", "--listen", "stdio://"),
                      [("thread/start", thread), *[("mcpServerStatus/list", status)] * 10])
    connected = {server["name"] for server in results[-1]["data"]  # type: ignore[attr-defined]
                 if server["runtimeStatus"] == "connected"}
    assert connected == {"docs", "search"}, results[-1]
    (listed,) = lab.rpc("codex", ("app-server", "--listen", "stdio://"),
                        [("hooks/list", params)])
    hooks = listed["data"][0]["hooks"]  # type: ignore[index]
    plugin = sorted((h["eventName"], h["source"]) for h in hooks if h.get("pluginId"))
    assert plugin == [("postToolUse", "plugin"), ("preToolUse", "plugin"),
                      ("sessionStart", "plugin")]


def test_gemini_runs_the_extension_command_and_its_session_hook(lab: Lab) -> None:
    """The packed TOML command, typed in a turn against the scripted model, sends its own
    prompt text; the packed SessionStart hook (the wrapper, through `${extensionPath}`) runs."""
    require("gemini")
    _gemini_listed(lab, _packed(lab) / "gemini_cli")
    with model_server() as model:
        args, env = model_run(lab, "gemini", model.url, "/tidy UZE-PACKED-ARG")
        runs, _ = session_runs(lab, lambda: lab.run("gemini", *args, env=env).stdout)
        sent = " ".join(json.dumps(request.body) for request in model.logged())
    assert "Remove trailing whitespace from UZE-PACKED-ARG" in sent
    assert runs == 1
