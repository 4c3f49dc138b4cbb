"""The whole team story of issue 30 ("What it must show"), end to end: real git, real `uze`
subprocesses, three people (a lead, a teammate and CI) each with their own HOME and UZE_HOME,
a marketplace served by `git daemon` on loopback and the team's repository as a bare remote.

The lead installs three plugins of one marketplace and commits; the teammate clones, sees what
is declared, installs in one command and `git status` is clean; CI without a terminal refuses
`--frozen` before writing anything, then passes with `--trust`; the lead updates, the teammate
pulls and installs; a committed edit is kept and named, and `--force` restores the lock; two
branches that each add a package merge, and `uze install` resolves the conflict moving no other
pin; `status --check` exits 1 then 0 along the way.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, as_json, assert_ok, person
from tests.gitserve import Repo, git, git_daemon
from tests.helpers import tree_bytes

pytestmark = pytest.mark.e2e
HARNESS = ("--harness", "claude_code,codex")
PLUGINS = ("alpha", "beta", "gamma")


def _plugin(name: str, version: str, body: str) -> dict[str, str]:
    """A plugin with one skill; `beta` also runs an MCP server (consent is asked for it)."""
    files = {f"plugins/{name}/plugin.json": f'{{"name": "{name}", "version": "{version}"}}\n',
             f"plugins/{name}/skills/main/SKILL.md":
                 f"---\nname: main\ndescription: The {name} skill.\n---\n{body}\n"}
    if name == "beta":
        files["plugins/beta/mcp.json"] = json.dumps({"mcpServers": {"beta-docs": {
            "command": "${PLUGIN_ROOT}/server.sh", "args": ["--stdio"]}}}) + "\n"
        files["plugins/beta/server.sh"] = "#!/bin/sh\nexec cat\n"
    return files


def _work(project: Path) -> dict[str, bytes | str]:
    return {k: v for k, v in tree_bytes(project).items() if not k.startswith(".git/")}


def _pins(project: Path) -> dict[str, str]:
    """Each pinned package's `[[package]]` block of uze.lock, by name."""
    blocks = (project / "uze.lock").read_text().split("[[package]]")[1:]
    return {re.search(r'name = "([^"]+)"', b).group(1): b.strip() for b in blocks}  # type: ignore[union-attr]


def _clean(project: Path) -> None:
    assert git("status", "--porcelain", "--untracked-files=all", cwd=project) == ""


def _commit(project: Path, message: str) -> None:
    git("add", "-A", cwd=project)
    git("commit", "-q", "-m", message, cwd=project)


def test_a_team_lives_by_uze_toml_and_uze_lock(uze: Uze, sandbox: Sandbox) -> None:
    served = sandbox.root / "served"
    market = Repo(served / "market.git")
    catalog = {"name": "team", "owner": {"name": "Team"}, "plugins": [
        {"name": n, "source": f"./plugins/{n}"} for n in (*PLUGINS, "delta", "epsilon")]}
    files: dict[str, str] = {".claude-plugin/marketplace.json": json.dumps(catalog, indent=2)}
    for name in (*PLUGINS, "delta", "epsilon"):
        files |= _plugin(name, "1.0.0", f"{name} one")
    market.commit(files)
    origin = served / "project.git"
    git("init", "-q", "--bare", origin, cwd=served)
    lead, mate, ci = (person(sandbox.root, n) for n in ("lead", "mate", "ci"))
    mine = sandbox.project
    (mine / ".git").rmdir()

    with git_daemon(served) as daemon:
        # The lead installs three plugins of one marketplace and commits.
        assert_ok(uze("marketplace", "add", f"git+{daemon}/market.git", env=lead))
        for index, name in enumerate(PLUGINS):
            done = uze("install", f"{name}@team", *HARNESS, "--trust", env=lead)
            assert done.returncode == 0, done.stderr
            # no .git yet: the first install names the folder it uses, then .uze/ marks it
            assert done.stderr == ("" if index else f"note: no .git or .uze/ in {mine} or "
                                   f"above it: using {mine} as the project (--project DIR "
                                   "names another)\n")  # adr/0066
        git("init", "-q", ".", cwd=mine)
        _commit(mine, "three team plugins")
        committed = git("ls-files", cwd=mine).splitlines()
        assert {"uze.toml", "uze.lock", ".mcp.json"} <= set(committed)
        assert not [rel for rel in committed if rel.startswith(".uze/")]  # .uze/.gitignore
        git("remote", "add", "origin", origin, cwd=mine)
        git("push", "-q", "origin", "HEAD:main", cwd=mine)
        git("fetch", "-q", "origin", cwd=mine)
        git("branch", "-q", "--set-upstream-to=origin/main", cwd=mine)

        # The teammate clones, sees what is declared, installs in one command.
        theirs = sandbox.root / "mate" / "project"
        git("clone", "-q", origin, theirs, cwd=sandbox.root)
        shown = assert_ok(uze("status", cwd=theirs, env=mate)).stdout
        assert "No packages installed" not in shown
        for name in PLUGINS:
            assert re.search(rf"{name} 1\.0\.0 \([0-9a-f]{{12}}\) from {name}@team: not "
                             "installed here", shown), shown
        assert "fix: `uze install`" in shown
        gate = uze("status", "--check", cwd=theirs, env=mate)
        assert gate.returncode == 1 and "3 differences" in gate.stdout
        assert_ok(uze("install", "--trust", cwd=theirs, env=mate))
        _clean(theirs)
        assert_ok(uze("status", "--check", cwd=theirs, env=mate))
        for rel in committed:
            assert (theirs / rel).read_bytes() == (mine / rel).read_bytes(), rel

        # CI, without a terminal: --frozen refuses before writing; --trust passes.
        build = sandbox.root / "ci" / "build"
        git("clone", "-q", origin, build, cwd=sandbox.root)
        before = _work(build)
        refused = uze("install", "--frozen", cwd=build, env=ci)
        assert refused.returncode == 1
        assert "beta" in refused.stderr and "--trust" in refused.stderr
        assert _work(build) == before, "CI's refused install wrote into the project"
        assert_ok(uze("install", "--frozen", "--trust", cwd=build, env=ci))
        assert_ok(uze("status", "--check", cwd=build, env=ci))
        _clean(build)

        # The lead updates; the teammate pulls and installs.
        released = market.commit(_plugin("alpha", "1.1.0", "alpha two"), "alpha 1.1.0")
        outdated = as_json(assert_ok(uze("outdated", "--json", cwd=mine, env=lead)))
        assert {p["name"]: p["state"] for p in outdated["packages"]} == {
            "alpha": "outdated", "beta": "current", "gamma": "current"}  # per plugin (adr/0074)
        assert_ok(uze("update", "alpha", cwd=mine, env=lead))
        assert f'commit = "{released}"' in _pins(mine)["alpha"]
        _commit(mine, "alpha 1.1.0")
        git("push", "-q", "origin", "HEAD:main", cwd=mine)
        git("pull", "-q", cwd=theirs)
        shown = assert_ok(uze("status", cwd=theirs, env=mate)).stdout
        assert re.search(rf"uze\.lock moved alpha to 1\.1\.0 at {released[:12]} \(1\.0\.0 "
                         r"installed here\): run `uze install`", shown), shown
        assert "drifted" not in shown and "--force" not in shown
        assert uze("status", "--check", cwd=theirs, env=mate).returncode == 1
        assert_ok(uze("install", cwd=theirs, env=mate))
        assert_ok(uze("status", "--check", cwd=theirs, env=mate))
        _clean(theirs)

        # A committed edit is kept and named; --force restores the locked bytes.
        skill = ".claude/skills/gamma/skills/main/SKILL.md"
        locked_bytes = (mine / skill).read_bytes()
        (mine / skill).write_text("---\nname: main\ndescription: Ours.\n---\nour words\n")
        _commit(mine, "our gamma")
        git("push", "-q", "origin", "HEAD:main", cwd=mine)
        git("pull", "-q", cwd=theirs)
        kept = uze("install", cwd=theirs, env=mate)
        assert kept.returncode == 0, kept.stderr
        assert f"  {skill}: edited; kept\n" in kept.stdout  # the file, not its folder
        assert (theirs / skill).read_text().endswith("our words\n")
        gate = uze("status", "--check", cwd=theirs, env=mate)
        assert gate.returncode == 1 and f"{skill} (edited)" in gate.stdout
        forced = uze("install", "--force", cwd=theirs, env=mate)
        assert forced.returncode == 0, forced.stderr
        assert f"  {skill}: drifted; replaced (--force)\n" in forced.stdout
        assert (theirs / skill).read_bytes() == locked_bytes
        assert_ok(uze("status", "--check", cwd=theirs, env=mate))
        git("checkout", "-q", "--", skill, cwd=theirs)  # back to the team's committed edit
        assert_ok(uze("install", "--force", cwd=mine, env=lead))  # the team takes it back
        _commit(mine, "gamma as locked")
        git("push", "-q", "origin", "HEAD:main", cwd=mine)
        git("pull", "-q", cwd=theirs)
        assert_ok(uze("status", "--check", cwd=theirs, env=mate))
        _clean(theirs)

        # Two branches each add a package; the merge conflicts; `uze install` resolves it.
        assert_ok(uze("marketplace", "add", f"git+{daemon}/market.git", env=mate))
        before_pins = _pins(mine)
        git("checkout", "-q", "-b", "add-delta", cwd=mine)
        assert_ok(uze("install", "delta@team", *HARNESS, cwd=mine, env=lead))
        _commit(mine, "delta")
        git("checkout", "-q", "-b", "add-epsilon", "origin/main", cwd=theirs)
        assert_ok(uze("install", "epsilon@team", *HARNESS, cwd=theirs, env=mate))
        _commit(theirs, "epsilon")
        git("push", "-q", "origin", "add-epsilon", cwd=theirs)
        git("fetch", "-q", "origin", cwd=mine)
        merged = subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@e.invalid",
                                 "merge", "-q", "origin/add-epsilon"], cwd=mine,
                                capture_output=True, text=True, check=False)
        assert merged.returncode == 1, merged.stdout + merged.stderr
        assert "<<<<<<<" in (mine / "uze.lock").read_text()
        assert uze("status", "--check", cwd=mine, env=lead).returncode == 1
        resolved = uze("install", cwd=mine, env=lead)
        assert resolved.returncode == 0, resolved.stderr
        after = _pins(mine)
        assert set(after) == {*PLUGINS, "delta", "epsilon"}
        assert {n: after[n] for n in before_pins} == before_pins  # no other pin moved
        assert "<<<<<<<" not in (mine / "uze.toml").read_text()
        assert_ok(uze("status", "--check", cwd=mine, env=lead))
