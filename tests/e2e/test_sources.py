"""Issue 22: installing from git (file://, git daemon, smart HTTP on loopback), the manifest and
lock it writes, reproducing a project from them, and the refusals that leave every byte as it
was."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, as_json, assert_ok, snapshot
from tests.gitserve import Repo, Stall, free_port, git_daemon, smart_http
from tests.helpers import tree_bytes

pytestmark = pytest.mark.e2e
HARNESS = ("--harness", "claude_code,codex")


def _package(name: str, version: str, note: str = "first") -> dict[str, str]:
    return {
        "plugin.json": f'{{"name": "{name}", "version": "{version}"}}\n',
        "skills/review/SKILL.md": f"---\nname: review\ndescription: Review code.\n---\n{note}\n",
    }


@pytest.fixture
def served(sandbox: Sandbox) -> Path:
    """A folder of bare repositories (served by the daemon and HTTP fixtures)."""
    root = sandbox.root / "served"
    root.mkdir()
    return root


@pytest.fixture
def flow(served: Path) -> Repo:
    """acme/flow.git: v1.0.0 (tag v1, annotated) at plugins/flow, then v1.1.0 on main."""
    repo = Repo(served / "acme" / "flow.git")
    repo.commit({"README.md": "monorepo\n", **_at("plugins/flow", _package("flow", "1.0.0"))})
    repo.tag("v1")
    repo.commit(_at("plugins/flow", _package("flow", "1.1.0", "second")))
    return repo


def _at(folder: str, files: dict[str, str]) -> dict[str, str]:
    return {f"{folder}/{rel}": text for rel, text in files.items()}


def _lock(project: Path) -> str:
    return (project / "uze.lock").read_text(encoding="utf-8")


def test_install_from_a_file_url_tag_and_subdirectory_declares_and_pins_it(
        uze: Uze, sandbox: Sandbox, flow: Repo) -> None:
    before = tree_bytes(sandbox.project)
    source = f"git+{flow.url}@v1#subdirectory=plugins/flow"
    assert_ok(uze("install", source, *HARNESS))
    skill = sandbox.project / ".claude" / "skills" / "flow" / "skills" / "review" / "SKILL.md"
    assert skill.read_text().endswith("first\n")
    manifest = (sandbox.project / "uze.toml").read_text()
    assert f'flow = "{source}"' in manifest
    lock = _lock(sandbox.project)
    tag_commit = re.search(r'commit = "([0-9a-f]{40})"', lock)
    assert tag_commit is not None
    assert f'source = "git+{flow.url}"' in lock and 'ref = "v1"' in lock
    assert 'subdirectory = "plugins/flow"' in lock and 'version = "1.0.0"' in lock
    assert 'harnesses = ["claude_code", "codex"]' in lock
    assert re.search(r'tree = "[0-9a-f]{64}"', lock)
    installed = tree_bytes(sandbox.project)
    assert_ok(uze("install", source, *HARNESS))  # again: byte-identical, lock included
    assert tree_bytes(sandbox.project) == installed
    listed = as_json(assert_ok(uze("list", "--json")))["packages"][0]
    assert listed["source"] == source and listed["commit"] == tag_commit[1]
    assert_ok(uze("uninstall", "flow"))
    assert tree_bytes(sandbox.project) == before


def test_branch_commit_and_default_branch_each_resolve_to_their_own_commit(
        uze: Uze, sandbox: Sandbox, flow: Repo) -> None:
    first = flow.commit({"other.txt": "x\n"})  # main moves on; plugins/flow is still 1.1.0
    flow.branch("stable")
    head = flow.commit(_at("plugins/flow", _package("flow", "1.2.0", "third")))
    skill = sandbox.project / ".claude" / "skills" / "flow" / "skills" / "review" / "SKILL.md"
    base = f"git+{flow.url}"
    assert_ok(uze("install", base, "--subdirectory", "plugins/flow", *HARNESS))
    assert f'commit = "{head}"' in _lock(sandbox.project) and skill.read_text().endswith("third\n")
    result = uze("install", base, "--ref", "stable", "--subdirectory", "plugins/flow", *HARNESS)
    assert result.returncode == 0, result.stderr
    assert "downgrade 1.2.0 -> 1.1.0" in result.stderr
    assert f'commit = "{first}"' in _lock(sandbox.project)
    assert skill.read_text().endswith("second\n")
    assert_ok(uze("install", f"{base}@{head}#subdirectory=plugins/flow", *HARNESS))
    assert f'ref = "{head}"' in _lock(sandbox.project) and skill.read_text().endswith("third\n")


def test_shorthand_over_git_daemon_and_smart_http(
        uze: Uze, sandbox: Sandbox, flow: Repo, served: Path) -> None:
    with git_daemon(served) as daemon:
        env = {**os.environ, "UZE_GITHUB_URL": daemon}
        assert_ok(uze("install", "acme/flow/plugins/flow@v1", *HARNESS, env=env))
    assert f'source = "git+{daemon}/acme/flow.git"' in _lock(sandbox.project)
    assert_ok(uze("uninstall", "flow"))
    with smart_http(served) as http:
        env = {**os.environ, "UZE_GITHUB_URL": http}
        assert_ok(uze("install", "acme/flow/plugins/flow", *HARNESS, env=env))
    assert f'source = "git+{http}/acme/flow.git"' in _lock(sandbox.project)
    assert 'version = "1.1.0"' in _lock(sandbox.project)


def test_an_unreachable_host_is_an_error_that_says_so_and_writes_nothing(
        uze: Uze, sandbox: Sandbox) -> None:
    before = snapshot(sandbox)
    result = uze("install", f"git+http://127.0.0.1:{free_port()}/acme/flow.git", *HARNESS)
    assert result.returncode == 1
    assert "uze: error: cannot reach git+http" not in result.stderr
    said = r"uze: error: cannot reach http://127\.0\.0\.1:\d+/acme/flow\.git"
    assert re.search(said, result.stderr)
    assert "up to date" not in result.stderr
    assert snapshot(sandbox) == before


def test_refused_authentication_is_an_error_that_says_so_and_stores_no_credential(
        uze: Uze, sandbox: Sandbox, flow: Repo, served: Path) -> None:
    before = snapshot(sandbox)
    with smart_http(served, password="s3cret-pw") as http:
        result = uze("install", f"git+{http}/acme/flow.git#subdirectory=plugins/flow", *HARNESS)
        assert result.returncode == 1
        assert "uze: error: authentication to" in result.stderr and "refused" in result.stderr
        assert snapshot(sandbox) == before
        with_credentials = http.replace("http://", "http://user:s3cret-pw@")
        assert_ok(uze("install", f"git+{with_credentials}/acme/flow.git#subdirectory=plugins/flow",
                      *HARNESS))
    assert f'source = "git+{http}/acme/flow.git"' in _lock(sandbox.project)
    for root in (sandbox.project, sandbox.home, sandbox.uze_home):
        for rel, data in tree_bytes(root).items():
            assert b"s3cret-pw" not in (data if isinstance(data, bytes) else data.encode()), rel


@pytest.fixture
def teammate(sandbox: Sandbox) -> Iterator[Sandbox]:
    """A second machine: another project path, HOME and UZE_HOME (the env is switched back
    afterwards by the sandbox fixture's monkeypatch)."""
    root = sandbox.root / "teammate"
    other = Sandbox(root, root / "home", root / "uze-home", root / "work" / "project")
    for folder in (other.home, other.uze_home, other.project / ".git"):
        folder.mkdir(parents=True)
    yield other


def _env(box: Sandbox) -> dict[str, str]:
    return {**os.environ, "HOME": str(box.home), "UZE_HOME": str(box.uze_home),
            "XDG_CONFIG_HOME": str(box.home / ".config")}


def _commit_files(project: Path) -> dict[str, bytes | str]:
    """What a team commits: everything but the machine-local `.uze/`."""
    return {k: v for k, v in tree_bytes(project).items()
            if not (k == ".uze" or k.startswith(".uze/"))}


def test_a_teammate_reproduces_the_project_from_uze_toml_and_uze_lock(
        uze: Uze, sandbox: Sandbox, flow: Repo, teammate: Sandbox) -> None:
    assert_ok(uze("install", f"git+{flow.url}@v1#subdirectory=plugins/flow", *HARNESS))
    flow.commit(_at("plugins/flow", _package("flow", "9.0.0", "later")))
    flow.tag("v1-moved", annotated=False)
    committed = _commit_files(sandbox.project)
    for rel in ("uze.toml", "uze.lock"):
        shutil.copy2(sandbox.project / rel, teammate.project / rel)
    result = uze("install", cwd=teammate.project, env=_env(teammate))
    assert result.returncode == 0, result.stderr
    assert "flow 1.0.0: installed" in result.stdout
    assert _commit_files(teammate.project) == committed
    status = as_json(assert_ok(uze("status", "--json", cwd=teammate.project, env=_env(teammate))))
    assert {p["state"] for p in status["packages"][0]["projections"]} == {"matched"}
    # Offline once cached: the repository is gone, the mirror answers.
    shutil.rmtree(flow.bare)
    shutil.rmtree(teammate.project / ".uze")
    for rel in (".claude", ".agents", ".codex"):
        shutil.rmtree(teammate.project / rel, ignore_errors=True)
    assert_ok(uze("install", "--frozen", cwd=teammate.project, env=_env(teammate)))
    assert _commit_files(teammate.project) == committed


def test_frozen_refuses_a_manifest_the_lock_does_not_match_and_writes_nothing(
        uze: Uze, sandbox: Sandbox, flow: Repo) -> None:
    assert_ok(uze("install", f"git+{flow.url}@v1#subdirectory=plugins/flow", *HARNESS))
    manifest = sandbox.project / "uze.toml"
    manifest.write_text(manifest.read_text().replace("@v1", "@main"))
    before = snapshot(sandbox)
    result = uze("install", "--frozen")
    assert result.returncode == 1
    assert "uze: error: uze.lock does not match uze.toml" in result.stderr
    assert "flow: uze.toml says" in result.stderr
    assert snapshot(sandbox) == before


def test_a_tree_digest_mismatch_names_both_digests_and_writes_nothing_anywhere(
        uze: Uze, sandbox: Sandbox, flow: Repo, teammate: Sandbox) -> None:
    assert_ok(uze("install", f"git+{flow.url}@v1#subdirectory=plugins/flow", *HARNESS))
    lock = _lock(sandbox.project)
    real = re.search(r'tree = "([0-9a-f]{64})"', lock)
    assert real is not None
    forged = "0" * 64
    shutil.copy2(sandbox.project / "uze.toml", teammate.project / "uze.toml")
    (teammate.project / "uze.lock").write_text(lock.replace(real[1], forged))
    roots = (teammate.project, teammate.home, teammate.uze_home)
    before = [tree_bytes(r) for r in roots]
    for frozen in ((), ("--frozen",)):
        result = uze("install", *frozen, cwd=teammate.project, env=_env(teammate))
        assert result.returncode == 1
        assert forged in result.stderr and real[1] in result.stderr
        assert "integrity check failed" in result.stderr
        assert [tree_bytes(r) for r in roots] == before


def _without_cache(tree: dict[str, bytes | str]) -> dict[str, bytes | str]:
    return {k: v for k, v in tree.items() if k.split("/")[0] not in ("git", "locks")}


def test_installing_another_source_under_an_installed_name_needs_replace(
        uze: Uze, sandbox: Sandbox, flow: Repo, served: Path) -> None:
    assert_ok(uze("install", f"git+{flow.url}@v1#subdirectory=plugins/flow", *HARNESS))
    fork = Repo(served / "fork" / "flow.git")
    fork.commit(_package("flow", "0.0.1", "fork"))
    before = snapshot(sandbox)
    result = uze("install", f"git+{fork.url}", *HARNESS)
    assert result.returncode == 1
    assert f"flow is installed from git+{flow.url}@v1#subdirectory=plugins/flow" in result.stderr
    assert "--replace" in result.stderr
    after = snapshot(sandbox)  # the fork's mirror is a cache: everything else is as it was
    assert (after["project"], after["home"]) == (before["project"], before["home"])
    assert _without_cache(after["uze_home"]) == _without_cache(before["uze_home"])
    replaced = uze("install", f"git+{fork.url}", *HARNESS, "--replace")
    assert replaced.returncode == 0, replaced.stderr
    assert "downgrade 1.0.0 -> 0.0.1" in replaced.stderr
    assert f'flow = "git+{fork.url}"' in (sandbox.project / "uze.toml").read_text()


def test_a_folder_source_is_locked_relative_to_the_project(uze: Uze, sandbox: Sandbox) -> None:
    inside = sandbox.project / "plugins" / "notes"
    from tests.helpers import build_tree

    build_tree(inside, _package("notes", "1.0.0"))
    outside = build_tree(sandbox.root / "elsewhere" / "other", _package("other", "1.0.0"))
    assert_ok(uze("install", "./plugins/notes", *HARNESS))
    assert_ok(uze("install", str(outside), *HARNESS))
    manifest = (sandbox.project / "uze.toml").read_text()
    assert 'notes = "./plugins/notes"' in manifest and 'other = "../elsewhere/other"' in manifest
    lock = _lock(sandbox.project)
    assert str(sandbox.root) not in lock and str(sandbox.root) not in manifest
    assert lock.count("reproducible = false") == 1
    # a folder in HOME is named from HOME: the project's files never spell a user's home
    mine = build_tree(sandbox.home / "pkgs" / "mine", _package("mine", "1.0.0"))
    assert_ok(uze("install", str(mine), *HARNESS))
    manifest, lock = (sandbox.project / "uze.toml").read_text(), _lock(sandbox.project)
    assert 'mine = "~/pkgs/mine"' in manifest and 'source = "~/pkgs/mine"' in lock
    assert str(sandbox.home) not in manifest + lock and "../home" not in manifest + lock
    assert lock.count("reproducible = false") == 2
    shutil.rmtree(sandbox.project / ".claude" / "skills" / "mine")
    # converging never reads a folder outside the project that uze.toml names (adr/0057):
    # typed on the command line, it is installed again
    gone = snapshot(sandbox)
    refused = uze("install")
    assert refused.returncode == 1 and "~/pkgs/mine is a folder outside the project" in \
        refused.stderr
    assert snapshot(sandbox) == gone
    assert_ok(uze("install", "~/pkgs/mine", *HARNESS))
    assert (sandbox.project / ".claude/skills/mine/skills/review/SKILL.md").is_file()
    assert_ok(uze("uninstall", "mine"))
    (inside / "skills" / "review" / "SKILL.md").write_text("changed\n")
    before = snapshot(sandbox)
    shutil.rmtree(sandbox.project / ".claude" / "skills" / "notes")
    before = snapshot(sandbox)
    result = uze("install")
    assert result.returncode == 1 and "integrity check failed" in result.stderr
    assert snapshot(sandbox) == before


def test_outdated_reads_and_update_moves_the_pin_after_an_upstream_commit(
        uze: Uze, sandbox: Sandbox, flow: Repo) -> None:
    assert_ok(uze("install", f"git+{flow.url}#subdirectory=plugins/flow", *HARNESS))
    old = re.search(r'commit = "([0-9a-f]{40})"', _lock(sandbox.project))
    assert old is not None
    current = as_json(assert_ok(uze("outdated", "--json")))["packages"][0]
    assert current["state"] == "current" and current["locked_commit"] == old[1]
    new = flow.commit(_at("plugins/flow", _package("flow", "1.3.0", "newest")))
    before = snapshot(sandbox)
    report = as_json(assert_ok(uze("outdated", "--json")))["packages"][0]
    assert (report["state"], report["current_commit"]) == ("outdated", new)
    assert snapshot(sandbox) == before  # outdated only reads
    plan = assert_ok(uze("update", "--dry-run"))
    assert snapshot(sandbox) == before
    assert "outdated" in plan.stdout
    moved = assert_ok(uze("update", "flow"))
    assert f"flow: 1.1.0 -> 1.3.0 ({old[1][:12]} -> {new[:12]})" in moved.stdout
    assert f'commit = "{new}"' in _lock(sandbox.project)
    skill = sandbox.project / ".claude" / "skills" / "flow" / "skills" / "review" / "SKILL.md"
    assert skill.read_text().endswith("newest\n")
    again = _lock(sandbox.project)
    assert "up to date" in assert_ok(uze("update")).stdout
    assert _lock(sandbox.project) == again


def test_outdated_on_an_unreachable_source_is_an_error_not_up_to_date(
        uze: Uze, sandbox: Sandbox, flow: Repo) -> None:
    assert_ok(uze("install", f"git+{flow.url}#subdirectory=plugins/flow", *HARNESS))
    shutil.rmtree(flow.bare)
    result = uze("outdated")
    assert result.returncode == 1 and "up to date" not in result.stdout
    assert "uze: error: no git repository at" in result.stderr


def test_a_dry_run_from_git_writes_nothing_anywhere(uze: Uze, sandbox: Sandbox, flow: Repo) -> None:
    before = snapshot(sandbox)
    result = assert_ok(uze("install", f"git+{flow.url}@v1#subdirectory=plugins/flow",
                           *HARNESS, "--dry-run"))
    assert "flow-review" in result.stdout
    assert snapshot(sandbox) == before


def test_sigkill_during_a_fetch_leaves_nothing_half_done(
        sandbox: Sandbox, flow: Repo, served: Path, uze: Uze) -> None:
    import signal
    import subprocess
    import sys

    before = snapshot(sandbox)
    stall = Stall()
    with smart_http(served, stall=stall) as http:
        source = f"git+{http}/acme/flow.git#subdirectory=plugins/flow"
        child = subprocess.Popen([sys.executable, "-m", "uze", "install", source, *HARNESS],
                                 cwd=sandbox.project, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, start_new_session=True)
        assert stall.reached.wait(timeout=60)
        os.killpg(child.pid, signal.SIGKILL)  # uze and the git it runs, mid-fetch
        child.wait(timeout=20)
        stall.release.set()
        after = snapshot(sandbox)
        assert (after["project"], after["home"]) == (before["project"], before["home"])
        assert not any(k.startswith(("store/", "receipts/")) for k in after["uze_home"])
        assert_ok(uze("install", source, *HARNESS))
    skill = sandbox.project / ".claude" / "skills" / "flow" / "skills" / "review" / "SKILL.md"
    assert skill.read_text().endswith("second\n")


def test_a_teammate_clone_with_the_delivered_files_committed_adopts_them(
        uze: Uze, sandbox: Sandbox, served: Path, teammate: Sandbox) -> None:
    repo = Repo(served / "acme" / "team.git")
    repo.commit({**_package("team", "1.0.0", "team skill"),
                 "AGENTS.md": "Always run the linter.\n",
                 "agents/reviewer.md":
                     "---\nname: reviewer\ndescription: Reviews.\n---\nReview.\n"})
    (sandbox.project / "AGENTS.md").write_text("# Our project\n")
    assert_ok(uze("install", f"git+{repo.url}", *HARNESS))
    committed = _commit_files(sandbox.project)
    assert "AGENTS.md" in committed
    assert any(k.startswith(".claude/skills/team/agents/") for k in committed)  # adr/0048
    for rel, data in committed.items():  # the clone: every committed file, no .uze/
        target = teammate.project / rel
        if data == "dir":
            target.mkdir(parents=True, exist_ok=True)
        else:
            assert isinstance(data, bytes)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data.rsplit(b"\0mode=", 1)[0])
    result = uze("install", "--frozen", cwd=teammate.project, env=_env(teammate))
    assert result.returncode == 0, result.stderr
    assert _commit_files(teammate.project) == committed
    status = as_json(assert_ok(uze("status", "--json", cwd=teammate.project, env=_env(teammate))))
    states = {p["state"] for p in status["packages"][0]["projections"]}
    assert states <= {"matched", "undelivered"} and "matched" in states
    assert_ok(uze("uninstall", "team", cwd=teammate.project, env=_env(teammate)))
    assert (teammate.project / "AGENTS.md").read_text() == "# Our project\n"
    assert not (teammate.project / ".claude" / "skills" / "team-review").exists()
