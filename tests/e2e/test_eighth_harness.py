"""A new harness is one module plus one registry line (docs/design.md, "Adding a harness").

The test copies the `uze` package, adds `uze/harnesses/acme_agent.py` (a made-up harness with
every resource kind) and one line to `HARNESS_IDS`, touches nothing else, and runs the real
`uze` command from that copy: install delivers every kind to the new harness, status sees each
one, the generated hook wrapper answers in the harness's protocol, and uninstall leaves the
project as it was. No production code knows the harness: nothing here is a test hook.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import Sandbox
from tests.helpers import tree_bytes

SOURCE = Path(__file__).parents[2] / "uze"
PACKAGES = Path(__file__).parents[1] / "data" / "packages"
HARNESS = "acme_agent"
MODULE = '''"""Acme Agent: ACME.md, `.acme/skills`, Markdown agents, commands, MCP and hooks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from uze.harnesses import mcp
from uze.harnesses.base import (
    CLAUDE_TOOLS, SAME_EVENTS, AgentFormat, CommandSurface, Harness, HookTarget, McpTarget,
    ProjectForms, cap, hook_events,
)
from uze.location import Location
from uze.paths import Paths


def acme_home(paths: Paths) -> Path:
    return paths.home / ".acme"


def _place(project: str, user: str) -> Any:
    return lambda loc: loc.pick(project, acme_home(loc.paths) / user)


def _mcp(server: Any) -> mcp.Translated:
    if server.url:
        return mcp.Translated({"url": server.url, **mcp.headers_of(server)})
    value: dict[str, object] = {"command": server.command, "args": list(server.args)}
    if server.env:
        value["env"] = dict(server.env)
    return mcp.drop_cwd(server, "Acme Agent", mcp.Translated(value))


HARNESS = Harness(
    id="acme_agent",
    binary="acme",
    # How its project entries name the project root (adr/0039); without it: `degraded`.
    project_forms=ProjectForms(mcp=".", hook="."),
    markers=(".acme",),
    home=acme_home,
    instructions_file=_place("ACME.md", "ACME.md"),
    skill_roots=lambda loc: (_place(".acme/skills", "skills")(loc),),
    agents=AgentFormat(folder=_place(".acme/agents", "agents"), allowed=frozenset({"model"})),
    mcp=McpTarget(_place(".acme/mcp.json", "mcp.json"), "json",
                  lambda _loc, name: ("mcpServers", name), _mcp),
    hooks=HookTarget(file=_place(".acme/settings.json", "settings.json"), role="acme settings",
                     fmt="json", effects=frozenset({"observe", "deny"})),
    hook_events=hook_events(SAME_EVENTS, {"PreToolUse"}, ("command",)),
    tools=CLAUDE_TOOLS,
    hook_answer="claude",
    commands=CommandSurface(_place(".acme/commands", "commands"), ".md",
                            lambda _command, original: (original, "native", "")),
    capabilities={
        **{(kind, "base"): cap("native", "", "a test") for kind in
           ("instructions", "skill", "agent", "mcp", "hook", "command")},
        ("skill", "invoke.user_only"): cap("native", "", "a test"),
        ("skill", "invoke.model_only"): cap("native", "", "a test"),
    },
    column="acme",
)
'''
LAST_LINE = '    "deepseek_harness",\n)'


def _uze_with_an_eighth_harness(root: Path) -> Path:
    """A copy of the uze package with the new module and its registry line, nothing else."""
    copy = root / "src" / "uze"
    shutil.copytree(SOURCE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "harnesses" / f"{HARNESS}.py").write_text(MODULE, encoding="utf-8")
    registry = copy / "harnesses" / "__init__.py"
    text = registry.read_text(encoding="utf-8")
    assert text.count(LAST_LINE) == 1
    registry.write_text(text.replace(LAST_LINE, f'    "deepseek_harness",\n    "{HARNESS}",\n)'),
                        encoding="utf-8")
    before, after = tree_bytes(SOURCE), tree_bytes(copy)
    changed = {rel for rel in before.keys() | after.keys()
               if "__pycache__" not in rel and before.get(rel) != after.get(rel)}
    assert changed == {"harnesses/__init__.py", f"harnesses/{HARNESS}.py"}
    return copy.parent


def _uze(src: Path, *args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run([sys.executable, "-m", "uze", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_a_new_harness_module_and_registry_line_get_every_kind_delivered(
        sandbox: Sandbox) -> None:
    src = _uze_with_an_eighth_harness(sandbox.root)
    project = sandbox.project
    before = tree_bytes(project)

    done = _uze(src, "install", PACKAGES / "every-kind", "--harness", HARNESS, "--trust",
                "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    routes = {(p["kind"], p["resource"]): p["route"]
              for p in json.loads(done.stdout)["projections"] if p["harness"] == HARNESS}
    assert set(routes.values()) == {"native"}
    assert {kind for kind, _ in routes} == {"instructions", "skill", "agent", "mcp", "hook"}
    done = _uze(src, "install", PACKAGES / "claude-commands", "--harness", HARNESS, "--trust",
                "--json",
                cwd=project)
    assert done.returncode == 0, done.stderr

    assert b"<!-- uze:begin every-kind" in (project / "ACME.md").read_bytes()
    assert (project / ".acme" / "skills" / "every-kind-review" / "SKILL.md").is_file()
    assert (project / ".acme" / "agents" / "every-kind-reviewer.md").is_file()
    assert (project / ".acme" / "commands" / "claude-commands-review.md").is_file()
    servers = json.loads((project / ".acme" / "mcp.json").read_text())["mcpServers"]
    assert set(servers) == {"docs", "search"}
    settings = json.loads((project / ".acme" / "settings.json").read_text())
    (guard,) = settings["hooks"]["PreToolUse"]
    command = guard["hooks"][0]["command"]
    assert guard["matcher"] == "^(?:Bash)$" and f"/{HARNESS}/" in command

    native = {"tool_name": "Bash", "tool_input": {"command": "git push --force"},
              "cwd": str(project), "hook_event_name": "PreToolUse"}
    answer = subprocess.run([command], input=json.dumps(native), capture_output=True,
                            text=True, timeout=60, check=False)
    decision = json.loads(answer.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert "force push is not allowed" in decision["permissionDecisionReason"]

    status = _uze(src, "status", "--json", cwd=project)
    assert status.returncode == 0, status.stderr
    states = {p["state"] for package in json.loads(status.stdout)["packages"]
              for p in package["projections"] if p["harness"] == HARNESS}
    assert states == {"matched"}
    shown = _uze(src, "status", cwd=project)
    assert shown.returncode == 0 and "acme" in shown.stdout

    for name in ("claude-commands", "every-kind"):
        gone = _uze(src, "uninstall", name, "--json", cwd=project)
        assert gone.returncode == 0, gone.stderr
    assert tree_bytes(project) == before
