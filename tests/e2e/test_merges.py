"""Merges of uze.toml and uze.lock (issue 30 item 7, adr/0063), with real git.

Two branches of one project each install a package; `git merge` writes real conflict markers
into uze.toml and uze.lock. `uze install` resolves them by taking both sides' packages, writes
clean files and moves no other pin. When both branches changed the same package, it is an error
naming the package and both pins, and nothing is written anywhere.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, as_json, assert_ok, snapshot
from tests.gitserve import IDENTITY, git
from tests.helpers import build_tree
from uze.sources.lockfile import parse_lock
from uze.sources.manifest import render_manifest

pytestmark = pytest.mark.e2e
CODEX = ("--harness", "codex")


def _package(project: Path, name: str, skills: dict[str, str]) -> None:
    files = {f"plugins/{name}/plugin.json": f'{{"name": "{name}", "version": "1.0.0"}}\n'}
    files |= {f"plugins/{name}/skills/{skill}/SKILL.md":
              f"---\nname: {skill}\ndescription: {text}\n---\n{text}\n"
              for skill, text in skills.items()}
    build_tree(project, files)


def _commit(project: Path, message: str) -> None:
    git("add", "-A", cwd=project)
    git("commit", "-q", "-m", message, cwd=project)


def _merge(project: Path, branch: str, style: str) -> subprocess.CompletedProcess[str]:
    """`git merge` as a user runs it (it fails on a conflict), with `merge.conflictStyle`."""
    return subprocess.run(["git", *IDENTITY, "-c", f"merge.conflictStyle={style}", "merge",
                           "-q", branch], cwd=project, capture_output=True, text=True,
                          check=False, timeout=60,
                          env={"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null",
                               "PATH": "/usr/bin:/bin"})


def _teammate(sandbox: Sandbox) -> dict[str, str]:
    home = sandbox.root / "mate" / "home"
    home.mkdir(parents=True)
    return {**os.environ, "HOME": str(home), "UZE_HOME": str(sandbox.root / "mate" / "uze"),
            "XDG_CONFIG_HOME": str(home / ".config")}


def _start(uze: Uze, project: Path) -> None:
    """A committed project that installed `base` from a folder; `.uze/` is machine-local."""
    git("init", "-q", cwd=project)
    (project / ".gitignore").write_text(".uze/\n")
    _package(project, "base", {"intro": "The base skill."})
    assert_ok(uze("install", "./plugins/base", *CODEX))
    _commit(project, "base")


def _resolved(uze: Uze, taken: list[str]) -> dict[str, Any]:
    """`uze install --json` after a conflicted merge: it succeeds and says it took `taken`
    from the sides of uze.toml and uze.lock alike."""
    done = uze("install", "--json")
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = as_json(done)
    assert report["merged"] == [{"file": name, "taken": taken}
                                for name in ("uze.toml", "uze.lock")]
    return report


@pytest.mark.parametrize("style", ["merge", "diff3", "zdiff3"])
def test_two_branches_adding_packages_merge_and_install_takes_both_moving_no_other_pin(
        uze: Uze, sandbox: Sandbox, style: str) -> None:
    project = sandbox.project
    _start(uze, project)
    base_block = parse_lock((project / "uze.lock").read_bytes(), "uze.lock")["base"]
    mate = _teammate(sandbox)  # a teammate adds zeta on a branch, in her own clone
    clone = sandbox.root / "clone"
    git("clone", "-q", project, clone, cwd=sandbox.root)
    assert_ok(uze("install", cwd=clone, env=mate))
    git("checkout", "-q", "-b", "feature", cwd=clone)
    _package(clone, "zeta", {"zed": "Feature's skill."})
    assert_ok(uze("install", "./plugins/zeta", *CODEX, cwd=clone, env=mate))
    _commit(clone, "zeta")
    git("push", "-q", "origin", "feature", cwd=clone)
    _package(project, "mid", {"middle": "Main's skill."})
    assert_ok(uze("install", "./plugins/mid", *CODEX))
    _commit(project, "mid")
    merged = _merge(project, "feature", style)
    assert merged.returncode == 1, merged.stdout + merged.stderr
    assert "CONFLICT (content): Merge conflict in uze.lock" in merged.stdout
    assert b"<<<<<<< HEAD\n" in (project / "uze.lock").read_bytes()
    refused = uze("uninstall", "base")  # a command that does not resolve names the markers
    assert refused.returncode == 1
    assert "has git conflict markers (an unfinished merge)" in refused.stderr
    assert "hint: run `uze install`" in refused.stderr

    before = snapshot(sandbox)
    frozen = uze("install", "--frozen")
    assert frozen.returncode == 1
    assert "uze: error: uze.toml and uze.lock: git conflict markers (--frozen changes nothing)" \
        in frozen.stderr
    assert snapshot(sandbox) == before
    dry = uze("install", "--dry-run")  # what a person reads; a dry run writes nothing
    assert_ok(dry)
    assert "uze.lock: merge conflict resolved (mid from HEAD, zeta from feature)" in dry.stdout
    assert snapshot(sandbox) == before

    report = _resolved(uze, ["mid from HEAD", "zeta from feature"])
    assert {p["name"]: p["action"] for p in report["packages"]} == {
        "base": "present", "mid": "present", "zeta": "installed"}
    assert (project / "uze.toml").read_bytes() == render_manifest(
        {n: f"./plugins/{n}" for n in ("base", "mid", "zeta")})
    lock = (project / "uze.lock").read_bytes()
    pins = parse_lock(lock, "uze.lock")
    assert sorted(pins) == ["base", "mid", "zeta"]
    assert pins["base"] == base_block  # no other pin moved
    assert b"<<<<<<<" not in lock and b">>>>>>>" not in lock
    git("add", "uze.toml", "uze.lock", cwd=project)
    assert git("diff", "--cached", "--name-only", cwd=project).split() == [
        ".agents/skills/zeta-zed/SKILL.md", "plugins/zeta/plugin.json",
        "plugins/zeta/skills/zed/SKILL.md", "uze.lock", "uze.toml"]
    assert git("diff", "--name-only", cwd=project) == ""  # nothing else changed
    again = uze("install", "--json")
    assert as_json(again)["merged"] == []
    assert (project / "uze.lock").read_bytes() == lock


@pytest.mark.parametrize("style", ["merge", "diff3"])
def test_both_branches_changing_one_package_is_an_error_naming_it_and_both_pins(
        uze: Uze, sandbox: Sandbox, style: str) -> None:
    project = sandbox.project
    _start(uze, project)
    git("checkout", "-q", "-b", "feature", cwd=project)
    _package(project, "base", {"intro": "The base skill.", "extra": "Feature's addition."})
    assert_ok(uze("install", "./plugins/base", *CODEX))
    _commit(project, "feature moves base")
    theirs = parse_lock((project / "uze.lock").read_bytes(), "uze.lock")["base"]
    git("checkout", "-q", "main", cwd=project)
    _package(project, "base", {"intro": "The base skill.", "other": "Main's addition."})
    assert_ok(uze("install", "./plugins/base", *CODEX))
    _commit(project, "main moves base")
    ours = parse_lock((project / "uze.lock").read_bytes(), "uze.lock")["base"]
    assert _merge(project, "feature", style).returncode == 1
    before = snapshot(sandbox)

    failed = uze("install")
    assert failed.returncode == 1
    assert "uze: error: uze.lock: both sides of the merge changed base; nothing was written" \
        in failed.stderr
    assert f"base: HEAD pins ./plugins/base (version 1.0.0, tree {ours.tree[:12]}), " \
        f"feature pins ./plugins/base (version 1.0.0, tree {theirs.tree[:12]})" in failed.stderr
    assert "hint: in uze.lock, keep one side's entry" in failed.stderr
    assert snapshot(sandbox) == before


def test_in_gits_default_style_a_package_one_branch_uninstalled_stays_uninstalled(
        uze: Uze, sandbox: Sandbox) -> None:
    """git's default conflict style writes no merge base: from the markers alone, `old` (which
    main uninstalled, and feature left alone beside its new package) is on one side only and
    would come back. uze reads git's index stages instead (adr/0073): the base says main
    removed it, so it stays removed, and feature's package is taken."""
    project = sandbox.project
    _start(uze, project)
    _package(project, "old", {"legacy": "The old skill."})
    assert_ok(uze("install", "./plugins/old", *CODEX))
    _commit(project, "old")
    pinned = parse_lock((project / "uze.lock").read_bytes(), "uze.lock")
    git("checkout", "-q", "-b", "feature", cwd=project)
    _package(project, "new", {"fresh": "Feature's skill."})  # sorts right before `old`
    assert_ok(uze("install", "./plugins/new", *CODEX))
    _commit(project, "new")
    git("checkout", "-q", "main", cwd=project)
    assert_ok(uze("install", cwd=project))  # main's own files back in place
    assert_ok(uze("uninstall", "old"))
    _commit(project, "no more old")
    assert "old" not in parse_lock((project / "uze.lock").read_bytes(), "uze.lock")
    merged = _merge(project, "feature", "merge")
    assert merged.returncode == 1, merged.stdout + merged.stderr
    lock_text = (project / "uze.lock").read_bytes()
    assert b"<<<<<<< HEAD\n" in lock_text and b"|||||||" not in lock_text  # no base in hunks

    _resolved(uze, ["new from feature", "old removed as HEAD has it"])
    assert (project / "uze.toml").read_bytes() == render_manifest(
        {n: f"./plugins/{n}" for n in ("base", "new")})
    pins = parse_lock((project / "uze.lock").read_bytes(), "uze.lock")
    assert sorted(pins) == ["base", "new"] and pins["base"] == pinned["base"]
    assert not (project / ".agents/skills/old-legacy").exists()
    assert (project / ".agents/skills/new-fresh/SKILL.md").is_file()


def test_reading_gits_stages_runs_nothing_the_projects_git_config_names(
        uze: Uze, sandbox: Sandbox) -> None:
    """uze asks the project's git for the stages of a conflicted file (adr/0073); a command the
    project's .git/config names (an fsmonitor hook, which `git status` runs) never runs."""
    project = sandbox.project
    _start(uze, project)
    git("checkout", "-q", "-b", "feature", cwd=project)
    _package(project, "zeta", {"zed": "Feature's skill."})
    assert_ok(uze("install", "./plugins/zeta", *CODEX))
    _commit(project, "zeta")
    git("checkout", "-q", "main", cwd=project)
    _package(project, "mid", {"middle": "Main's skill."})
    assert_ok(uze("install", "./plugins/mid", *CODEX))
    _commit(project, "mid")
    assert _merge(project, "feature", "merge").returncode == 1
    ran = sandbox.root / "ran"
    hook = sandbox.root / "hook.sh"
    hook.write_text(f"#!/bin/sh\necho \"$@\" >> {ran}\n")
    hook.chmod(0o755)
    for key in ("core.fsmonitor", "core.pager", "core.sshCommand", "core.editor"):
        git("config", key, hook, cwd=project)
    git("config", "filter.evil.process", hook, cwd=project)
    (project / ".gitattributes").write_text("* filter=evil\n")
    subprocess.run(["git", "status"], cwd=project, capture_output=True, check=False,
                   timeout=60)  # the hooks are live: git runs them here (and fails on them)
    assert ran.is_file()
    ran.unlink()

    _resolved(uze, ["mid from HEAD", "zeta from feature"])
    assert not ran.exists()
