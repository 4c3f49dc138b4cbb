"""All or nothing for consent (issue 30 item 4, adr/0064).

A lead commits a project declaring three packages, two of which run an MCP server, from a git
repository and a folder. In a teammate's fresh clone, `uze install` (and `--frozen`) collects
every package's consent question before writing anything: without a terminal and without
`--trust` it refuses naming both packages, and no file changes anywhere (the clone, HOME,
UZE_HOME: no mirror, no store, no receipt). On a terminal it asks once, for both, before the
first write.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, assert_ok
from tests.e2e.test_trust import _on_terminal
from tests.gitserve import Repo, git
from tests.helpers import build_tree, tree_bytes

pytestmark = pytest.mark.e2e
CODEX = ("--harness", "codex")


def _runs(name: str) -> dict[str, str]:
    """A package that runs an MCP server."""
    return {f"plugins/{name}/plugin.json": json.dumps({"name": name, "version": "1.0.0"}),
            f"plugins/{name}/mcp.json": json.dumps({"mcpServers": {f"{name}-tool": {
                "command": "python3", "args": ["${PLUGIN_ROOT}/server.py"]}}}),
            f"plugins/{name}/server.py": f"print('{name}')\n"}


def _committed_project(uze: Uze, sandbox: Sandbox) -> Path:
    """The lead's project, committed (installed by another user), cloned for the teammate."""
    home = sandbox.root / "lead" / "home"
    home.mkdir(parents=True)
    lead = {**os.environ, "HOME": str(home), "UZE_HOME": str(sandbox.root / "lead" / "uze"),
            "XDG_CONFIG_HOME": str(home / ".config")}
    repo = Repo(sandbox.root / "served" / "kit.git")
    repo.commit({**_runs("pkg-b"), **_runs("pkg-c")})
    project = sandbox.root / "lead" / "project"
    build_tree(project, {".gitignore": ".uze/\n", "plugins/pkg-a/plugin.json":
                         '{"name": "pkg-a", "version": "1.0.0"}\n',
                         "plugins/pkg-a/skills/tips/SKILL.md":
                         "---\nname: tips\ndescription: Tips.\n---\nTips.\n"})
    git("init", "-q", cwd=project)
    assert_ok(uze("install", "./plugins/pkg-a", *CODEX, cwd=project, env=lead))
    for name in ("pkg-b", "pkg-c"):
        assert_ok(uze("install", f"git+{repo.url}#subdirectory=plugins/{name}", *CODEX,
                      "--trust", cwd=project, env=lead))
    git("add", "-A", cwd=project)
    git("commit", "-q", "-m", "three packages", cwd=project)
    clone = sandbox.root / "clone"
    git("clone", "-q", project, clone, cwd=sandbox.root)
    return clone


def _everything(sandbox: Sandbox, clone: Path) -> tuple[object, ...]:
    return tree_bytes(clone), tree_bytes(sandbox.home), tree_bytes(sandbox.uze_home)


@pytest.mark.parametrize("frozen", [(), ("--frozen",)])
def test_without_a_terminal_a_converge_names_every_package_needing_consent_and_writes_nothing(
        uze: Uze, sandbox: Sandbox, frozen: tuple[str, ...]) -> None:
    clone = _committed_project(uze, sandbox)
    before = _everything(sandbox, clone)

    refused = uze("install", *frozen, cwd=clone)
    assert refused.returncode == 1
    assert ("uze: error: 2 packages run commands on your machine (pkg-b, pkg-c); nothing was "
            "installed without your consent") in refused.stderr
    for name in ("pkg-b", "pkg-c"):
        assert f"{name}:\n  It will run:\n  " in refused.stderr
        assert f"mcp {name}-tool: python3 ${{PLUGIN_ROOT}}/server.py" in refused.stderr
    assert "--trust" in refused.stderr
    assert _everything(sandbox, clone) == before  # no mirror, no store, no receipt, no file

    done = uze("install", *frozen, "--trust", cwd=clone)
    assert done.returncode == 0, done.stderr
    for name in ("pkg-a", "pkg-b", "pkg-c"):
        assert f"{name} 1.0.0: installed" in done.stdout
    assert git("status", "--porcelain", cwd=clone) == ""


def test_on_a_terminal_a_converge_asks_once_for_every_package_before_writing(
        uze: Uze, sandbox: Sandbox) -> None:
    clone = _committed_project(uze, sandbox)
    before = _everything(sandbox, clone)
    code, screen = _on_terminal(["install"], "n", clone)
    assert code == 1, screen
    assert screen.count("[y/N]") == 1
    assert screen.index("pkg-b:") < screen.index("pkg-c:") < screen.index("[y/N]")
    flat = " ".join(screen.split())  # the question is plural and names every package
    assert "Install these 2 packages (pkg-b, pkg-c) and let them run these? [y/N]" in flat
    assert "Install it and let it run these?" not in flat
    assert ("uze: error: pkg-b, pkg-c not installed: you declined; nothing of them was "
            "written") in flat
    assert _everything(sandbox, clone) == before

    code, screen = _on_terminal(["install"], "y", clone)
    assert code == 0, screen
    assert screen.count("[y/N]") == 1
    assert "pkg-b 1.0.0: installed" in screen and "pkg-c 1.0.0: installed" in screen
    assert git("status", "--porcelain", cwd=clone) == ""


def test_update_asks_every_consent_question_before_moving_any_pin(
        uze: Uze, sandbox: Sandbox) -> None:
    repo = Repo(sandbox.root / "served" / "kit.git")
    repo.commit({**_runs("pkg-b"), **_runs("pkg-c")})
    for name in ("pkg-b", "pkg-c"):
        assert_ok(uze("install", f"git+{repo.url}#subdirectory=plugins/{name}", *CODEX,
                      "--trust"))
    repo.commit({f"plugins/{name}/server.py": f"print('{name} 2')\n"
                 for name in ("pkg-b", "pkg-c")})
    before = _everything(sandbox, sandbox.project)

    refused = uze("update")
    assert refused.returncode == 1
    assert ("uze: error: 2 packages run commands on your machine (pkg-b, pkg-c); nothing was "
            "installed without your consent") in refused.stderr
    assert "new or changed: mcp pkg-b-tool" in refused.stderr
    assert "new or changed: mcp pkg-c-tool" in refused.stderr
    assert _everything(sandbox, sandbox.project) == before

    done = uze("update", "--trust")
    assert done.returncode == 0, done.stderr
    assert "pkg-b: 1.0.0 -> 1.0.0" in done.stdout and "pkg-c: 1.0.0 -> 1.0.0" in done.stdout
