"""Peak RSS (issue 32): a 1,000-skill package and a project of N packages, each installed,
re-installed (files changed: 0), shown by status and uninstalled, with the peak RSS of every
command (target: under 100 MB).

    python benchmarks/rss.py [--skills 1000] [--packages 200] [--uninstalls 10] [--timeout S]
                             [--only skills|project ...] [--uze-ref REF | --uze-src DIR]

Measures `--uze-ref` (a compiled `git archive` of uze/, run.py's `export_ref`), `--uze-src`
or, by default, this working tree's uze/. Every uze run is a real subprocess in a throw-away
sandbox (run.py's `Sandbox`: its own HOME,
UZE_HOME and git project). Peak RSS is `/usr/bin/time -f %M` around the child (run.py's `run`;
benchmarks/README.md says why not the child's own `ru_maxrss`), CPU time from `os.wait4`.

- skills: one package of `--skills` skills (a SKILL.md and one 1 KiB reference each, plus a
  plugin.json), `uze install FOLDER --harness all`; again (the re-install); `uze status --json`;
  `uze uninstall`.
- project: `--packages` copies of run.py's fleet package (3 skills of 4 files, an agent,
  AGENTS.md, 2 MCP servers, 2 hook groups, each named after the package) under `packages/`,
  declared in a uze.toml written by hand (no uze.lock), laid down by one `uze install --harness
  all --trust` with no source (the converge); then `uze install --trust` again (re-install);
  `uze status --json`; and the uninstall of the last `--uninstalls` packages one by one
  (`uze uninstall` takes one name: the first ones, with every other package still installed,
  are the largest), or of every package with `--uninstalls 0` (then: files left besides the
  hand-written uze.toml).

Re-install "files changed" compares an (inode, mtime, size, mode) snapshot of the project and
UZE_HOME before and after (run.py's `snapshot`). Writes benchmarks/rss-results.json; never
fails on a figure.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import run as R  # benchmarks/run.py: sandboxes, fixtures, the measured `run`

RESULTS = R.HERE / "rss-results.json"
LIMIT_MB = 100.0


def _row(sample: R.Sample, **extra: Any) -> dict[str, Any]:
    return {"wall_s": round(sample.wall, 2), "cpu_s": round(sample.cpu, 2),
            "rss_mb": round(sample.rss_kb / 1024, 1), **extra}


def _reinstall(sb: R.Sandbox, *args: str) -> dict[str, Any]:
    roots = (sb.project, sb.uze_home)
    before = R.snapshot(*roots)
    sample = sb.uze("install", *args)
    changed = R.changes(before, R.snapshot(*roots), *roots)
    return _row(sample, files_changed=changed["files_changed"], files=changed["files"])


def bench_skills(work: Path, skills: int) -> dict[str, Any]:
    """The package of `skills` skills: install, re-install, status, uninstall."""
    sb = R.Sandbox(work, "skills")
    shape = R.Shape(skills, 2, 1024)
    fixture = R.make_package(sb.root / "package", f"skills-{skills}", shape, seed="rss")
    R.log(f"rss: package of {skills} skills, {fixture.files} files; installing")
    rows = {"install": _row(sb.uze("install", str(fixture.path), "--harness", "all", "--json"))}
    rows["re-install"] = _reinstall(sb, str(fixture.path), "--harness", "all", "--json")
    rows["status --json"] = _row(sb.uze("status", "--json"))
    rows["uninstall"] = _row(sb.uze("uninstall", fixture.name, "--json"))
    rows["uninstall"]["files_left"] = R.count_files(sb.project)
    return {"files": fixture.files, "bytes": fixture.bytes, "rows": rows}


def project_fixture(sb: R.Sandbox, count: int) -> list[R.Fixture]:
    """`count` fleet packages under the project's packages/, and a uze.toml declaring them."""
    fixtures = [R.make_package(sb.project / "packages" / f"fleet-{i:03d}", f"fleet-{i:03d}",
                               R.FLEET_SHAPE, seed=i) for i in range(1, count + 1)]
    lines = "".join(f'{f.name} = "./packages/{f.name}"\n' for f in fixtures)
    (sb.project / "uze.toml").write_text(f"[packages]\n{lines}")
    return fixtures


def bench_project(work: Path, count: int, uninstalls: int, timeout: float) -> dict[str, Any]:
    """The project of `count` packages: converge, re-install, status, uninstalls."""
    sb = R.Sandbox(work, "project")
    fixtures = project_fixture(sb, count)
    R.log(f"rss: project of {count} packages; installing (uze install, no source)")
    rows: dict[str, Any] = {}
    try:
        rows["install"] = _row(R.run([*R.UZE, "install", "--harness", "all", "--trust", "--json"],
                                     cwd=sb.project, env=sb.env, timeout=timeout))
    except R.RunFailed as failed:  # e.g. killed at --timeout
        return {"packages": count, "failed": f"install: exit {failed.rc}: {failed.tail}"}
    R.log(f"rss: installed in {rows['install']['wall_s']} s; re-install, status")
    rows["re-install"] = _reinstall(sb, "--trust", "--json")
    rows["status --json"] = _row(sb.uze("status", "--json"))
    last = fixtures if uninstalls <= 0 else fixtures[-uninstalls:]
    samples = [sb.uze("uninstall", f.name, "--json") for f in reversed(last)]
    peak = max(samples, key=lambda s: s.rss_kb)
    rows["uninstall"] = _row(peak, each=len(samples),
                             cpu_median_s=round(sorted(s.cpu for s in samples)[len(samples) // 2],
                                                2))
    if len(last) == count:
        # uze.toml is the fixture's (written by hand): the uninstalls leave it, emptied.
        rows["uninstall"]["files_left"] = R.count_files(sb.project,
                                                        skip=(".git", "packages", "uze.toml"))
    return {"packages": count, "rows": rows}


def report(res: dict[str, Any]) -> str:
    lines = [f"uze peak RSS (limit {LIMIT_MB:.0f} MB), uze from {res['uze']}: "
             f"{os.cpu_count()} CPUs, load "
             f"{res['load_before']} -> {res['load_after']}, {res['seconds']:.0f} s"]
    for key, title in (("skills", "Package of {skills} skills ({files} files), --harness all"),
                       ("project", "Project of {packages} fleet packages, --harness all --trust")):
        part = res.get(key)
        if part is None:
            continue
        lines.append(title.format(skills=res["skills_n"], **part))
        if "failed" in part:
            lines.append(f"  {part['failed']}")
            continue
        for name, row in part["rows"].items():
            more = ""
            if "files_changed" in row:
                more += f"  {row['files_changed']} files changed"
            if "each" in row:
                more += f"  peak of {row['each']} uninstalls (median CPU {row['cpu_median_s']} s)"
            if "files_left" in row:
                more += f"  files left {row['files_left']}"
            verdict = "met" if row["rss_mb"] < LIMIT_MB else "NOT met"
            lines.append(f"  {name:15} {row['wall_s']:8.1f} s wall {row['cpu_s']:7.2f} s CPU "
                         f"{row['rss_mb']:7.1f} MB  {verdict}{more}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--packages", type=int, default=200)
    parser.add_argument("--uninstalls", type=int, default=10,
                        help="uninstall the last N packages one by one (0: every package)")
    parser.add_argument("--timeout", type=float, default=1800.0,
                        help="seconds the project install may take before it is killed")
    parser.add_argument("--only", nargs="+", choices=("skills", "project"),
                        default=["skills", "project"])
    parser.add_argument("--uze-src", type=Path, help="folder holding the uze package to measure")
    parser.add_argument("--uze-ref", help="measure this git commit of uze/ (git archive)")
    args = parser.parse_args()
    R.UZE_SRC = (R.export_ref(args.uze_ref) if args.uze_ref
                 else (args.uze_src or R.REPO).resolve())
    start, load = time.perf_counter(), os.getloadavg()
    res: dict[str, Any] = {"skills_n": args.skills, "uze": str(R.UZE_SRC)}
    work = Path(tempfile.mkdtemp(prefix="uze-rss-"))
    try:
        if "skills" in args.only:
            res["skills"] = bench_skills(work, args.skills)
        if "project" in args.only:
            res["project"] = bench_project(work, args.packages, args.uninstalls, args.timeout)
    finally:
        R.remove_tree(work)
    res.update(load_before=" ".join(f"{x:.2f}" for x in load),
               load_after=" ".join(f"{x:.2f}" for x in os.getloadavg()),
               seconds=time.perf_counter() - start)
    res["report"] = report(res)
    RESULTS.write_text(json.dumps(res, indent=1) + "\n")
    print(res["report"])


if __name__ == "__main__":
    main()
