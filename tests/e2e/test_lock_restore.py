"""Issue 30 item 1: a lock that pins many packages from one repository (a monorepo, a
marketplace) restores, updates and verifies in one command, each repository fetched at most once
per command, cold (empty $UZE_HOME) and warm (mirror present), with the upstream there and gone.

git's own trace (GIT_TRACE, which uze passes through) counts what the network was asked."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, as_json, assert_ok
from tests.gitserve import Repo
from tests.helpers import tree_bytes

pytestmark = pytest.mark.e2e
HARNESS = ("--harness", "claude_code,codex")
NAMES = ("alpha", "beta", "gamma", "delta", "epsilon")


def _package(name: str, note: str) -> dict[str, str]:
    return {
        f"plugins/{name}/plugin.json": f'{{"name": "{name}", "version": "1.0.0"}}\n',
        f"plugins/{name}/skills/{name}-do/SKILL.md":
            f"---\nname: {name}-do\ndescription: Does {name}.\n---\n{note}\n",
    }


def _mono(root: Path) -> Repo:
    repo = Repo(root / "served" / "mono.git")
    files: dict[str, str] = {}
    for name in NAMES:
        files.update(_package(name, f"{name} one"))
    repo.commit(files)
    return repo


def _committed(project: Path) -> dict[str, bytes | str]:
    return {k: v for k, v in tree_bytes(project).items() if not (k == ".uze" or
                                                               k.startswith(".uze/"))}


def _mate(sandbox: Sandbox, name: str, lead: Path) -> tuple[Path, dict[str, str]]:
    """A teammate's clone (uze.toml and uze.lock only) with its own HOME and UZE_HOME."""
    root = sandbox.root / name
    project = root / "project"
    (project / ".git").mkdir(parents=True)
    for rel in ("uze.toml", "uze.lock"):
        shutil.copy2(lead / rel, project / rel)
    env = {**os.environ, "HOME": str(root / "home"), "UZE_HOME": str(root / "uze-home"),
           "XDG_CONFIG_HOME": str(root / "home" / ".config"), "GIT_TRACE": str(root / "trace")}
    return project, env


def _asked(env: dict[str, str], url: str) -> dict[str, int]:
    """How often git was asked to reach `url` (fetch, ls-remote) since the trace began; the
    trace is emptied for the next command."""
    trace = Path(env["GIT_TRACE"])
    lines = trace.read_text(encoding="utf-8").splitlines() if trace.exists() else []
    trace.write_text("")
    calls = [line for line in lines if "trace: built-in: git" in line and url in line]
    return {verb: sum(f" {verb} " in line for line in calls) for verb in ("fetch", "ls-remote")}


def test_five_packages_from_one_repository_restore_cold_and_warm_fetching_once(
        uze: Uze, sandbox: Sandbox) -> None:
    mono = _mono(sandbox.root)
    for name in NAMES:
        assert_ok(uze("install", f"git+{mono.url}#subdirectory=plugins/{name}", *HARNESS))
    lock = (sandbox.project / "uze.lock").read_text(encoding="utf-8")
    assert lock.count(f'source = "git+{mono.url}"') == 5
    committed = _committed(sandbox.project)

    project, env = _mate(sandbox, "mate", sandbox.project)
    cold = uze("install", "--frozen", cwd=project, env=env)
    assert cold.returncode == 0, cold.stderr
    assert "is busy" not in cold.stderr
    for name in NAMES:
        assert f"{name} 1.0.0: installed" in cold.stdout
    assert _committed(project) == committed
    assert _asked(env, mono.url)["fetch"] == 1  # one fetch for all five

    # Warm, upstream gone: the mirror answers every package, nothing asks the network.
    shutil.rmtree(mono.bare)
    shutil.rmtree(project / ".uze")
    for rel in (".claude", ".agents", ".codex", "CLAUDE.md", "AGENTS.md"):
        path = project / rel
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
    warm = uze("install", "--frozen", cwd=project, env=env)
    assert warm.returncode == 0, warm.stderr
    assert _committed(project) == committed
    assert _asked(env, mono.url) == {"fetch": 0, "ls-remote": 0}
    status = as_json(assert_ok(uze("status", "--json", cwd=project, env=env)))
    assert sorted(p["name"] for p in status["packages"]) == sorted(NAMES)


def test_a_warm_mirror_missing_the_pinned_commit_fetches_once_for_all(
        uze: Uze, sandbox: Sandbox) -> None:
    """The mirror holds an older commit: the new pin is verified and fetched with one fetch."""
    mono = _mono(sandbox.root)
    for name in NAMES[:2]:
        assert_ok(uze("install", f"git+{mono.url}#subdirectory=plugins/{name}", *HARNESS))
    project, env = _mate(sandbox, "mate", sandbox.project)
    assert_ok(uze("install", "--frozen", cwd=project, env=env))  # the mate's mirror: commit 1
    _asked(env, mono.url)
    mono.commit({**_package("alpha", "alpha two"), **_package("beta", "beta two")})
    assert_ok(uze("update"))
    for rel in ("uze.toml", "uze.lock"):
        shutil.copy2(sandbox.project / rel, project / rel)
    pulled = uze("install", "--frozen", cwd=project, env=env)
    assert pulled.returncode == 0, pulled.stderr
    skill = project / ".agents" / "skills" / "alpha-do" / "SKILL.md"
    assert skill.read_text(encoding="utf-8").endswith("alpha two\n")
    assert _asked(env, mono.url)["fetch"] <= 1


def test_packages_from_three_repositories_and_one_marketplace_restore_in_one_command(
        uze: Uze, sandbox: Sandbox) -> None:
    served = sandbox.root / "served"
    mono = _mono(sandbox.root)
    solos = []
    for name in ("one", "two"):
        repo = Repo(served / f"{name}.git")
        repo.commit({"plugin.json": f'{{"name": "{name}", "version": "2.0.0"}}\n',
                     "skills/go/SKILL.md":
                         f"---\nname: go\ndescription: Go {name}.\n---\n{name}\n"})
        solos.append(repo)
    market = Repo(served / "market.git")
    catalog = {"name": "team", "owner": {"name": "T"}, "plugins": [
        {"name": n, "source": f"./plugins/{n}"} for n in ("m1", "m2", "m3")]}
    files: dict[str, str] = {".claude-plugin/marketplace.json": json.dumps(catalog)}
    for n in ("m1", "m2", "m3"):
        files.update({f"plugins/{n}/plugin.json": f'{{"name": "{n}", "version": "0.1.0"}}\n',
                      f"plugins/{n}/skills/{n}/SKILL.md":
                          f"---\nname: {n}\ndescription: Market {n}.\n---\n{n}\n"})
    market.commit(files)
    for name in NAMES[:3]:
        assert_ok(uze("install", f"git+{mono.url}#subdirectory=plugins/{name}", *HARNESS))
    for repo in solos:
        assert_ok(uze("install", f"git+{repo.url}", *HARNESS))
    assert_ok(uze("marketplace", "add", f"git+{market.url}"))
    for n in ("m1", "m2", "m3"):
        assert_ok(uze("install", f"{n}@team", *HARNESS))
    committed = _committed(sandbox.project)

    project, env = _mate(sandbox, "mate", sandbox.project)
    cold = uze("install", "--frozen", cwd=project, env=env)
    assert cold.returncode == 0, cold.stderr
    assert _committed(project) == committed
    for url in (mono.url, market.url, *(r.url for r in solos)):
        assert _asked(env, url)["fetch"] <= 1, url
    # With every upstream gone, a cold restore fails cleanly and writes nothing.
    for repo in (mono, market, *solos):
        shutil.rmtree(repo.bare)
    third, env3 = _mate(sandbox, "third", sandbox.project)
    before = tree_bytes(third.parent)
    gone = uze("install", "--frozen", cwd=third, env=env3)
    assert gone.returncode == 1
    assert "Traceback" not in gone.stderr and "is busy" not in gone.stderr
    after = {k: v for k, v in tree_bytes(third.parent).items() if not k.startswith("trace")}
    assert after == {k: v for k, v in before.items() if not k.startswith("trace")}
    # The first teammate's warm mirrors still restore everything offline.
    shutil.rmtree(project / ".uze")
    warm = uze("install", "--frozen", cwd=project, env=env)
    assert warm.returncode == 0, warm.stderr
    assert _committed(project) == committed
