"""A new harness is what docs/design.md "Adding a harness" lists, and nothing else.

The test copies the repository (`uze`, `tests`, `docs`, `adr`, `scripts`, `examples`, `.ci`,
README.md, pyproject.toml) and does there what the design lists for a made-up harness with
every resource kind: `uze/harnesses/acme_agent.py`, one line in `HARNESS_IDS`, the README's
capability table and docs/compatibility.md regenerated with the copy's own generators, a
section in docs/harnesses.md. It checks that no other file changed and runs in the copy the
tests that read every harness or a generated document: a test a newcomer would have to find by
its failure fails here first. Then the real `uze` command from that copy installs every kind
to the new harness, status sees each one, the generated hook wrapper answers in the harness's
protocol, and uninstall leaves the project as it was. No production code knows the harness.
"""

from __future__ import annotations

import json
import os
import re
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
    CLAUDE_TOOLS, SAME_EVENTS, AgentFormat, CommandSurface, Harness, HookProtocol, HookTarget,
    Instructions, McpTarget, ProjectForms, Skills, cap, hook_events, unclaimed_events,
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
    instructions=Instructions(_place("ACME.md", "ACME.md")),
    skills=Skills(lambda loc: (_place(".acme/skills", "skills")(loc),)),
    agents=AgentFormat(folder=_place(".acme/agents", "agents"), allowed=frozenset({"model"})),
    mcp=McpTarget(_place(".acme/mcp.json", "mcp.json"), "json",
                  lambda _loc, name: ("mcpServers", name), _mcp),
    hooks=HookTarget(file=_place(".acme/settings.json", "settings.json"), role="acme settings",
                     fmt="json", effects=frozenset({"observe", "deny"})),
    hook_protocol=HookProtocol(events=hook_events(
        SAME_EVENTS, {"PreToolUse"}, ("command",),
        why_not=unclaimed_events("acme_agent", "not proven on its binary")),
        tools=CLAUDE_TOOLS, answer="claude"),
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
REPO = SOURCE.parent
COPIED = ("uze", "tests", "docs", "adr", "scripts", "examples", ".ci", "README.md",
          "pyproject.toml")
# What docs/design.md "Adding a harness" lists to touch, in its order, for `foo` = acme_agent.
TOUCHED = ("uze/harnesses/acme_agent.py", "uze/harnesses/__init__.py", "README.md",
           "docs/compatibility.md", "docs/harnesses.md")
# The tests that read every harness of the registry or a generated document.
REGISTRY_WIDE = (
    "tests/unit/capabilities", "tests/unit/harnesses", "tests/unit/doctor",
    "tests/unit/hooks/test_golden.py", "tests/unit/commands/test_install_durability.py",
    "tests/unit/test_architecture.py", "tests/unit/test_docs.py", "tests/unit/test_portable.py",
    "tests/unit/ui/test_cli_docs.py",
)
TABLE = re.compile(r"(<!-- capability-table:begin -->\n)(.*?)(<!-- capability-table:end -->)",
                   re.S)


def _python(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([sys.executable, *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=900, check=False)


def _copy(root: Path) -> Path:
    root.mkdir(parents=True)
    for name in COPIED:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, root / name,
                            ignore=shutil.ignore_patterns("__pycache__", ".hypothesis"))
        else:
            shutil.copy2(REPO / name, root / name)
    return root


def _add_the_harness(root: Path) -> None:
    """Each file docs/design.md lists, done as a newcomer does it."""
    (root / "uze" / "harnesses" / f"{HARNESS}.py").write_text(MODULE, encoding="utf-8")
    registry = root / "uze" / "harnesses" / "__init__.py"
    text = registry.read_text(encoding="utf-8")
    assert text.count(LAST_LINE) == 1
    registry.write_text(text.replace(LAST_LINE, f'    "deepseek_harness",\n    "{HARNESS}",\n)'),
                        encoding="utf-8")
    table = _python(root, "-m", "uze.capabilities.table")
    assert table.returncode == 0, table.stderr
    readme = root / "README.md"
    readme.write_text(TABLE.sub(lambda m: m[1] + table.stdout + m[3],
                                readme.read_text(encoding="utf-8")), encoding="utf-8")
    docs = _python(root, "scripts/update-evidence.py", "--docs-only")
    assert docs.returncode == 0, docs.stderr
    harnesses = root / "docs" / "harnesses.md"
    harnesses.write_text(harnesses.read_text(encoding="utf-8") + "\n## Acme Agent\n\nWhat uze "
                         "writes there: ACME.md, `.acme/skills`, `.acme/agents`.\n",
                         encoding="utf-8")


def _files(root: Path) -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    for name in COPIED:
        base = root / name
        paths = [base] if base.is_file() else [p for p in base.rglob("*") if p.is_file()]
        found |= {p.relative_to(root).as_posix(): p.read_bytes() for p in paths
                  if "__pycache__" not in p.parts and ".hypothesis" not in p.parts}
    return found


def _uze_with_an_eighth_harness(root: Path) -> Path:
    """A copy of the repository with the new harness added as docs/design.md lists."""
    before = _files(_copy(root))
    _add_the_harness(root)
    after = _files(root)
    changed = sorted(rel for rel in before.keys() | after.keys()
                     if before.get(rel) != after.get(rel))
    assert changed == sorted(TOUCHED)
    return root


def test_the_design_lists_the_files_a_new_harness_touches_in_order() -> None:
    design = (REPO / "docs" / "design.md").read_text(encoding="utf-8")
    section = design.partition("## 6. Adding a harness")[2].partition("\n## ")[0]
    listed = re.findall(r"^- `([^`]+)`", section, re.M)
    assert [path.replace("foo", HARNESS) for path in listed] == list(TOUCHED)


def test_a_new_harness_touches_only_the_listed_files_and_every_registry_wide_test_passes(
        tmp_path: Path) -> None:
    root = _uze_with_an_eighth_harness(tmp_path / "repo")
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert f"| `deepseek_harness` | `{HARNESS}` |" in readme
    assert f"## `{HARNESS}`" in (root / "docs" / "compatibility.md").read_text(encoding="utf-8")
    done = _python(root, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *REGISTRY_WIDE)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout.splitlines()[-1]


def _uze(src: Path, *args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run([sys.executable, "-m", "uze", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_a_new_harness_module_and_registry_line_get_every_kind_delivered(
        sandbox: Sandbox) -> None:
    src = _uze_with_an_eighth_harness(sandbox.root / "repo")
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
