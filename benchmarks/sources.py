"""Benchmarks of issue 22: git sources and converging a lock.

    python benchmarks/sources.py [--runs N]

1. `uze install git+file://…` of a 400-file package (cold mirror, fresh sandbox) against
   `git clone --depth 1 file://…` + `uze install ./clone` (fresh sandbox): target within 1.5x.
2. `uze install` with no SOURCE on a project whose 20 locked packages are all present (writes
   nothing) against a plain `uze status`: target at most 2x.
3. A teammate's restore (`uze install`, cold $UZE_HOME) of a lock pinning 10 packages of one
   repository against `git clone --depth 1` of that repository + `uze install` of each package's
   folder from the clone: target within 2x (issue 30).

Every run is a real subprocess in a throw-away sandbox (own HOME, UZE_HOME, project); the two
sides are interleaved and the medians compared. Prints one JSON document.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@b"}


def _env(root: Path) -> dict[str, str]:
    env = {**os.environ, **GIT_ENV, "HOME": str(root / "home"), "UZE_HOME": str(root / "uze"),
           "XDG_CONFIG_HOME": str(root / "home" / ".config"), "PYTHONPATH": str(REPO)}
    for folder in ("home", "uze", "project/.git"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    return env


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> None:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{args}: {done.stderr}")


def _uze(*args: str) -> list[str]:
    return [sys.executable, "-m", "uze", *args]


def _package_repo(root: Path, name: str, files: int) -> Path:
    work = root / f"{name}-work"
    work.mkdir(parents=True)
    (work / "plugin.json").write_text(f'{{"name": "{name}", "version": "1.0.0"}}\n')
    (work / "skills" / "main").mkdir(parents=True)
    (work / "skills" / "main" / "SKILL.md").write_text("---\nname: main\ndescription: d\n---\nx\n")
    for i in range(files - 2):
        path = work / "skills" / "main" / "refs" / f"{i // 50}" / f"f{i}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"reference {i}\n" * 20)
    env = {**os.environ, **GIT_ENV}
    for args in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"],
                 ["git", "commit", "-q", "-m", "one"]):
        _run(args, work, env)
    bare = root / f"{name}.git"
    _run(["git", "clone", "-q", "--bare", str(work), str(bare)], root, env)
    return bare


def _files(root: Path) -> dict[str, bytes]:
    """Every regular file under `root` (project, HOME, UZE_HOME) with its bytes; the scope
    lock files (a lock is taken by every command, `status` too) aside."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.is_symlink() and "locks" not in p.relative_to(root).parts}


def _timed(action: Callable[[], None]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def git_install(base: Path, runs: int) -> dict[str, object]:
    """Install from git against clone --depth 1 + install from the clone."""
    bare = _package_repo(base, "big", 400)
    url = bare.as_uri()
    ours, theirs = [], []
    for i in range(runs):
        a, b = base / f"a{i}", base / f"b{i}"
        env_a, env_b = _env(a), _env(b)
        ours.append(_timed(lambda a=a, env_a=env_a: _run(
            _uze("install", f"git+{url}", "--harness", "claude_code"), a / "project", env_a)))

        def clone_then_install(b: Path = b, env_b: dict[str, str] = env_b) -> None:
            _run(["git", "clone", "-q", "--depth", "1", url, str(b / "clone")], b, env_b)
            _run(_uze("install", str(b / "clone"), "--harness", "claude_code"),
                 b / "project", env_b)

        theirs.append(_timed(clone_then_install))
    ratio = statistics.median(ours) / statistics.median(theirs)
    return {"uze_git_s": statistics.median(ours), "clone_plus_folder_s": statistics.median(theirs),
            "ratio": round(ratio, 2), "target": 1.5, "met": ratio <= 1.5}


def converge_present(base: Path, runs: int) -> dict[str, object]:
    """`uze install` on 20 present locked packages against `uze status`."""
    root = base / "lock20"
    env = _env(root)
    project = root / "project"
    for i in range(20):
        bare = _package_repo(base, f"pkg{i}", 3)
        _run(_uze("install", f"git+{bare.as_uri()}", "--harness", "claude_code,codex"),
             project, env)
    _run(_uze("status"), project, env)  # warms the digest cache (ADR 0011), as any status does
    before = _files(root)
    ours, status = [], []
    for _ in range(runs):
        ours.append(_timed(lambda: _run(_uze("install"), project, env)))
        status.append(_timed(lambda: _run(_uze("status"), project, env)))
    after = _files(root)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    if changed:  # `uze install` of a lock whose packages are present writes nothing
        raise SystemExit(f"uze install changed {changed[:5]}")
    ratio = statistics.median(ours) / statistics.median(status)
    return {"uze_install_s": statistics.median(ours), "uze_status_s": statistics.median(status),
            "ratio": round(ratio, 2), "target": 2.0, "met": ratio <= 2.0}


def _monorepo(root: Path, count: int) -> Path:
    work = root / "mono-work"
    for i in range(count):
        skill = work / "plugins" / f"p{i}" / "skills" / f"s{i}"
        skill.mkdir(parents=True)
        (skill.parent.parent / "plugin.json").write_text(f'{{"name": "p{i}", "version": "1"}}\n')
        (skill / "SKILL.md").write_text(f"---\nname: s{i}\ndescription: d\n---\nbody {i}\n")
        for j in range(20):
            (skill / f"ref{j}.md").write_text(f"reference {i} {j}\n" * 20)
    env = {**os.environ, **GIT_ENV}
    for args in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"],
                 ["git", "commit", "-q", "-m", "one"]):
        _run(args, work, env)
    bare = root / "mono.git"
    _run(["git", "clone", "-q", "--bare", str(work), str(bare)], root, env)
    return bare


def restore_one_repository(base: Path, runs: int, count: int = 10) -> dict[str, object]:
    """A cold restore of `count` locked packages of one repository against clone + installs."""
    bare = _monorepo(base, count)
    url = bare.as_uri()
    lead = base / "lead"
    env = _env(lead)
    for i in range(count):
        _run(_uze("install", f"git+{url}#subdirectory=plugins/p{i}", "--harness",
                  "claude_code,codex"), lead / "project", env)
    ours, theirs = [], []
    for i in range(runs):
        a, b = base / f"a{i}", base / f"b{i}"
        env_a, env_b = _env(a), _env(b)
        for rel in ("uze.toml", "uze.lock"):
            (a / "project" / rel).write_bytes((lead / "project" / rel).read_bytes())
        ours.append(_timed(lambda a=a, env_a=env_a: _run(_uze("install"), a / "project", env_a)))

        def clone_then_install(b: Path = b, env_b: dict[str, str] = env_b) -> None:
            _run(["git", "clone", "-q", "--depth", "1", url, str(b / "clone")], b, env_b)
            for j in range(count):
                _run(_uze("install", str(b / "clone" / "plugins" / f"p{j}"), "--harness",
                          "claude_code,codex"), b / "project", env_b)

        theirs.append(_timed(clone_then_install))
    ratio = statistics.median(ours) / statistics.median(theirs)
    return {"uze_restore_s": statistics.median(ours), "clone_plus_folders_s":
            statistics.median(theirs), "ratio": round(ratio, 2), "target": 2.0, "met": ratio <= 2.0}


def main() -> None:
    """Run both benchmarks and print their figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="uze-bench-src-") as scratch:
        base = Path(scratch)
        found = {"git_install_400_files": git_install(base / "one", args.runs),
                 "install_20_present": converge_present(base / "two", args.runs),
                 "restore_10_of_one_repository": restore_one_repository(base / "three",
                                                                        args.runs)}
    sys.stdout.write(json.dumps(found, indent=2) + "\n")


if __name__ == "__main__":
    main()
