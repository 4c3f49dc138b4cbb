"""A teammate's clone works (issue 22 item 5, adr/0039), proven with the real binaries.

uze installs the package in project scope; the project folder is then moved to another path
(the old path no longer exists, as on a teammate's machine) and, with no uze command run
again, the real harness still:

* starts the package's stdio MCP server `docs` (its command names the package copy under
  `.uze/packages/`), reported connected by the harness's own health check;
* runs the package's SessionStart hook `session-note` in one model turn against the scripted
  model: the harness runs uze's wrapper (under `.uze/hooks/`), which runs the handler
  `${PLUGIN_ROOT}/scripts/session.sh` from the package copy.

Before the move, no file uze wrote into the project names the project's absolute path. The
forms each harness proves here are the facts in `uze/harnesses/<id>.py` (`PROJECT_FORMS`).
"""

from __future__ import annotations

import dataclasses
import shutil
import time
from pathlib import Path

import pytest

from tests.conformance.contracts import Oracle, session_runs
from tests.conformance.lab import (
    Lab,
    model_run,
    prepare_user_state,
    require,
    trust_codex_hooks,
)
from tests.conformance.model_server import model_server
from tests.conformance.oracles import REAL_HARNESSES
from uze.doctor import probes
from uze.harnesses import REGISTRY

pytestmark = pytest.mark.conformance
HARNESSES = ("claude_code", "codex", "gemini_cli", "opencode")


def _written(project: Path) -> dict[str, bytes]:
    """Every file in the project but git's own."""
    return {
        p.relative_to(project).as_posix(): p.read_bytes()
        for p in sorted(project.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(project).parts
    }


def _moved(lab: Lab) -> Lab:
    """The lab with its project moved to a new path, and the user's own per-project state
    (Codex trust, Claude's approval of project MCP servers) given for the new path."""
    old = lab.sandbox.project
    new = lab.sandbox.root / "elsewhere" / "clone"
    new.parent.mkdir()
    shutil.move(old, new)
    moved = dataclasses.replace(lab.sandbox, project=new)
    prepare_user_state(moved)
    return Lab(moved, lab.package)


def _connected(lab: Lab, harness: str) -> frozenset[str]:
    """The MCP servers the harness's own health check reports connected."""
    if harness == "codex":  # `codex mcp list` reads config only: ask a session instead
        start: dict[str, object] = {"cwd": str(lab.sandbox.project), "ephemeral": True}

        def status(done: list[dict[str, object]]) -> dict[str, object]:
            time.sleep(0.5)  # a stdio server the session starts may still be starting
            return {"threadId": done[0]["thread"]["id"]}  # type: ignore[index]

        results = lab.rpc("codex", probes.CODEX_APP_SERVER,
                          [("thread/start", start), *[("mcpServerStatus/list", status)] * 20])
        return frozenset(server["name"] for result in results[1:]
                         for server in result["data"]  # type: ignore[attr-defined]
                         if server["runtimeStatus"] == "connected")
    oracle = REAL_HARNESSES[harness].entry("mcp", "project")
    assert isinstance(oracle, Oracle)
    seen = oracle.read(lab)
    assert seen.connected is not None, f"{oracle.command} does not health-check\n{seen.evidence}"
    return seen.connected


@pytest.mark.parametrize("harness", HARNESSES)
def test_a_moved_project_still_starts_its_mcp_server_and_runs_its_hook(
    lab: Lab, harness: str
) -> None:
    binary = REAL_HARNESSES[harness].binary
    require(binary)
    forms = REGISTRY[harness].project_forms
    assert forms.mcp is not None and forms.hook is not None, f"{harness} has no proven form"
    lab.install(harness, "project")
    old = lab.sandbox.project
    leaked = {path for path, data in _written(old).items() if str(old).encode() in data}
    assert not leaked, f"these files uze wrote name the project's absolute path: {leaked}"

    moved = _moved(lab)
    assert not old.exists()
    connected = _connected(moved, harness)
    assert "docs" in connected, f"{harness} did not start the moved project's server: {connected}"

    if harness == "codex":
        assert trust_codex_hooks(moved), "codex listed no hook of the moved project to trust"
    with model_server() as model:
        args, env = model_run(moved, binary, model.url, "hello")
        runs, out = session_runs(moved, lambda: moved.run(binary, *args, env=env).stdout)
    assert runs >= 1, f"{harness} did not run the moved project's SessionStart hook\n{out[-3000:]}"
