"""Growth (issue 32): what the Nth install and uninstall cost in a project of N packages,
against the first, and the peak RSS of a 200-package project.

    python benchmarks/growth.py [--max N] [--sizes 1,20,100,200] [--rounds R]
                                [--profile N] [--uze-src DIR] [--quick]
    python benchmarks/growth.py --compare DIR,DIR [--sizes 1,200] [--rounds R] [--keep DIR]

Every package is run.py's fleet package (3 skills of 4 files, an agent, AGENTS.md, 2 MCP
servers and 2 hook groups, each named after the package), installed with `--harness all
--trust`: every shared file (hooks, MCP, settings) of the seven harnesses holds an entry of
every package. Every uze run is a real subprocess in a throw-away sandbox (run.py's `Sandbox`);
CPU time (user + sys) comes from `os.wait4` on the child, peak RSS from the `ru_maxrss` that
`/usr/bin/time` gets from `wait4` (run.py's `run`). Nothing is written outside the sandboxes
but benchmarks/growth-results.json and, with --profile, benchmarks/profiles/.

1. One by one: packages 1..max into one project, then out again max..1; every command timed
   once. Gives the whole curve and its fitted growth: `cpu = a + b * N` (least squares) and
   the order k of `cpu ~ N^k` (log-log slope between the first and last tenth): k near 0 is a
   cost that does not grow, near 1 a per-command cost linear in N (the whole series quadratic).
2. Interleaved: one project per size S (S - 1 packages, laid down by one `uze install` of a
   uze.toml and uze.lock that name them: the project install row); then `--rounds` rounds,
   each of which installs package S into every project and uninstalls it again, in turns, so
   load drift hits every size alike. Medians; the ratio of each size's median CPU to size 1's.
3. The project of `max` packages: `uze install` again (a re-install: files changed, by an
   (inode, mtime, size, mode) snapshot), `uze status --json`, and its peak RSS; the project
   install of (2) for the largest size; the uninstalls of (1) at the top.
4. `--profile N`: cProfile of the install of package N into the size-N project (after the
   rounds), its top functions printed and the .prof kept in benchmarks/profiles/.

`--compare A,B` (two or more uze source folders, e.g. `git archive` exports of two commits)
measures only the Nth install and the uninstall at N of (2), for each folder in turns: one
project per size is laid down one by one with the first folder, then each round installs
package S into every project and uninstalls it again with every folder (an uninstall gives
the project back byte for byte), so load drift hits both alike. Medians; per folder, the
ratio of each size's median CPU to size 1's. `--keep DIR` lays the projects down in DIR
(laying down 199 packages takes longer than a run may under load) and a later run with the
same DIR reuses them: each round gives a project back byte for byte.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import run as R  # benchmarks/run.py: sandboxes, fixtures, the measured `run`

RESULTS = R.HERE / "growth-results.json"
INSTALL = ("--harness", "all", "--trust", "--json")


def _fixtures(sb: R.Sandbox, count: int) -> list[R.Fixture]:
    """The fleet packages 1..count inside `sb`'s project (`packages/`, the same bytes in every
    sandbox): uze.toml may name only folders inside the project."""
    return [R.make_package(sb.project / "packages" / f"fleet-{i:03d}", f"fleet-{i:03d}",
                           R.FLEET_SHAPE, seed=i) for i in range(1, count + 1)]


def _install(sb: R.Sandbox, fixture: R.Fixture) -> R.Sample:
    return sb.uze("install", str(fixture.path), *INSTALL)


def fit(points: list[tuple[int, float]]) -> dict[str, float]:
    """Least-squares `a + b * n`, and the order k of `y ~ n^k` between the first and last
    tenth of the points (medians of each, so one slow run does not decide it)."""
    xs, ys = [float(n) for n, _ in points], [y for _, y in points]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mean_x) ** 2 for x in xs)
    b = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / sxx if sxx else 0.0
    a = mean_y - b * mean_x
    tenth = max(len(points) // 10, 1)
    low, high = points[:tenth], points[-tenth:]
    n0, n1 = statistics.median(n for n, _ in low), statistics.median(n for n, _ in high)
    y0, y1 = statistics.median(y for _, y in low), statistics.median(y for _, y in high)
    order = math.log(y1 / y0) / math.log(n1 / n0) if n1 > n0 and y0 > 0 and y1 > 0 else 0.0
    return {"a_ms": a * 1000, "b_ms_per_package": b * 1000, "order": order,
            "fitted_last_over_first": (a + b * xs[-1]) / (a + b * xs[0]) if a + b * xs[0] else 0}


def one_by_one(sb: R.Sandbox, fixtures: list[R.Fixture]) -> dict[str, Any]:
    """Install every fixture in order, then uninstall them in reverse; one sample each."""
    installs, uninstalls = [], []
    for n, fixture in enumerate(fixtures, start=1):
        installs.append(_install(sb, fixture))
        if n % 20 == 0:
            R.log(f"growth: {n} installed, last {installs[-1].cpu * 1000:.0f} ms CPU")
    top = _project_rows(sb)
    declared = ((sb.project / "uze.toml").read_text(), (sb.project / "uze.lock").read_text())
    for n in range(len(fixtures), 0, -1):
        uninstalls.append((n, sb.uze("uninstall", fixtures[n - 1].name, "--json")))
        if n % 20 == 0:
            R.log(f"growth: uninstalled down to {n - 1}")
    uninstalls.sort(key=lambda pair: pair[0])
    leftover = R.count_files(sb.project, skip=(".git", "packages"))
    return {
        "install_cpu_ms": [round(s.cpu * 1000, 1) for s in installs],
        "install_rss_mb": [round(s.rss_kb / 1024, 1) for s in installs],
        "uninstall_cpu_ms": [round(s.cpu * 1000, 1) for _, s in uninstalls],
        "uninstall_rss_mb": [round(s.rss_kb / 1024, 1) for _, s in uninstalls],
        "install_fit": fit([(n, s.cpu) for n, s in enumerate(installs, start=1)]),
        "uninstall_fit": fit([(n, s.cpu) for n, s in uninstalls]),
        "install_total_cpu_s": sum(s.cpu for s in installs),
        "uninstall_total_cpu_s": sum(s.cpu for _, s in uninstalls),
        "at_max": top, "files_left": leftover, "declared": declared,
    }


def _project_rows(sb: R.Sandbox) -> dict[str, Any]:
    """A re-install of the whole project (`uze install`, no source) and a status, at the top."""
    roots = (sb.project, sb.uze_home)
    before = R.snapshot(*roots)
    reinstall = sb.uze("install", "--trust", "--json")
    changed = R.changes(before, R.snapshot(*roots), *roots)
    status = sb.uze("status", "--json")
    return {"reinstall": _sample(reinstall), "reinstall_changes": changed,
            "status": _sample(status)}


def _sample(sample: R.Sample) -> dict[str, float]:
    return {"wall_ms": sample.wall * 1000, "cpu_ms": sample.cpu * 1000,
            "rss_mb": sample.rss_kb / 1024}


def _declare(sb: R.Sandbox, declared: tuple[str, str], names: set[str]) -> None:
    """Write the one-by-one project's uze.toml and uze.lock into `sb`, keeping only `names`."""
    toml = declared[0].splitlines(keepends=True)
    kept = [line for line in toml
            if " = " not in line or line.split(" = ", 1)[0].strip() in names]
    (sb.project / "uze.toml").write_text("".join(kept))
    head, *blocks = declared[1].split("\n[[package]]\n")
    picked = [b for b in blocks if b.split("\n", 1)[0].split('"')[1] in names]
    (sb.project / "uze.lock").write_text("\n[[package]]\n".join([head, *picked]))


Boxes = dict[int, R.Sandbox]


def interleaved(work: Path, sizes: list[int], rounds: int, declared: tuple[str, str]
                ) -> tuple[dict[int, Any], Boxes, dict[int, list[R.Fixture]], dict[int, Any]]:
    """The Nth install and the uninstall at N, for every size in turns (see the docstring)."""
    boxes: dict[int, R.Sandbox] = {}
    built: dict[int, Any] = {}
    packages: dict[int, list[R.Fixture]] = {}
    for size in sizes:
        sb = boxes[size] = R.Sandbox(work, f"size-{size}")
        fixtures = packages[size] = _fixtures(sb, size)
        if size > 1:
            _declare(sb, declared, {f.name for f in fixtures[: size - 1]})
            try:
                built[size] = _sample(sb.uze("install", "--trust", "--json"))
            except R.RunFailed as failed:  # e.g. killed by run()'s 600 s timeout
                built[size] = {"failed": f"exit {failed.rc}: {failed.tail}"}
                R.log(f"growth: project of {size - 1} failed ({built[size]['failed']})")
                continue
            R.log(f"growth: project of {size - 1} laid down in "
                  f"{built[size]['cpu_ms']:.0f} ms CPU, {built[size]['rss_mb']:.1f} MB")
    found: dict[int, dict[str, list[R.Sample]]] = {s: {"install": [], "uninstall": []}
                                                   for s in sizes}
    sizes = [size for size in sizes if "failed" not in built.get(size, {})]
    for number in range(rounds + 1):  # round 0 warms the caches, unmeasured
        for size in sizes:
            fixture = packages[size][size - 1]
            ins = _install(boxes[size], fixture)
            out = boxes[size].uze("uninstall", fixture.name, "--json")
            if number:
                found[size]["install"].append(ins)
                found[size]["uninstall"].append(out)
        R.log(f"growth: round {number} of {rounds} done")
    base = {op: R.summary(found[sizes[0]][op]) for op in ("install", "uninstall")}
    rows = {}
    for size in sizes:
        row: dict[str, Any] = {}
        for op in ("install", "uninstall"):
            summary = R.summary(found[size][op])
            summary["cpu_ratio"] = R.ratio(summary, base[op], "cpu_median")
            summary["wall_ratio"] = R.ratio(summary, base[op])
            row[op] = summary
        rows[size] = row
    return rows, boxes, packages, built


def profile(sb: R.Sandbox, fixture: R.Fixture, size: int) -> str:
    """cProfile (CPU time) of one install of `fixture` into `sb` (then uninstalled again)."""
    R.PROFILES.mkdir(exist_ok=True)
    out = R.PROFILES / f"growth-install-{size}.prof"
    code = ("import cProfile, runpy, sys, time; sys.argv = ['uze'] + sys.argv[2:]; "
            "p = cProfile.Profile(time.process_time); p.enable()\n"
            "try: runpy.run_module('uze', run_name='__main__')\n"
            "except SystemExit: pass\n"
            f"p.disable(); p.dump_stats({str(out)!r})")
    subprocess.run([sys.executable, "-c", code, "x", "install", str(fixture.path), *INSTALL],
                   cwd=sb.project, env=sb.env, check=False, stdout=subprocess.DEVNULL)
    sb.uze("uninstall", fixture.name, "--json")
    text = io.StringIO()
    stats = pstats.Stats(str(out), stream=text)
    stats.sort_stats("cumulative").print_stats(35)
    return text.getvalue()


def _kept(keep: Path, size: int) -> tuple[R.Sandbox, R.Fixture] | None:
    """The sandbox of `size` a run with `--keep` laid down under `keep` (its `laid-down` mark
    written once all S - 1 packages were in), with its package S; None if there is none."""
    marks = sorted(keep.glob(f"size-{size}-*/laid-down"))
    if not marks:
        return None
    sb = R.Sandbox.__new__(R.Sandbox)  # the one laid down: its paths are in its receipts
    sb.root = marks[0].parent
    sb.home, sb.uze_home, sb.project = sb.root / "home", sb.root / "uze-home", sb.root / "project"
    sb.env = R.sandbox_env(sb.home, sb.uze_home)
    name = f"fleet-{size:03d}"
    return sb, R.make_package(sb.project / "packages" / name, name, R.FLEET_SHAPE, seed=size)


def compare(work: Path, trees: list[Path], sizes: list[int], rounds: int,
            keep: Path | None = None) -> dict[str, Any]:
    """The Nth install and the uninstall at N with each of `trees`, in turns (see the
    docstring); projects laid down one by one with the first tree (in `keep`, and reused from
    there by the next run, when given)."""
    boxes: dict[int, tuple[R.Sandbox, R.Fixture]] = {}
    R.UZE_SRC = trees[0]
    for size in sizes:
        found_box = _kept(keep, size) if keep is not None else None
        if found_box is not None:
            boxes[size] = found_box
            continue
        sb = R.Sandbox(keep or work, f"size-{size}")
        fixtures = _fixtures(sb, size)
        for n, fixture in enumerate(fixtures[:-1], start=1):
            _install(sb, fixture)
            if n % 50 == 0:
                R.log(f"growth: project of {size - 1}: {n} installed")
        (sb.root / "laid-down").write_text(f"{size - 1} packages\n")
        boxes[size] = (sb, fixtures[-1])
    found: dict[tuple[str, int, str], list[R.Sample]] = {}
    for number in range(rounds + 1):  # round 0 warms the caches, unmeasured
        for tree in trees:
            for size, (sb, fixture) in boxes.items():
                env = {**sb.env, "PYTHONPATH": str(tree)}
                for op, args in (("install", ("install", str(fixture.path), *INSTALL)),
                                 ("uninstall", ("uninstall", fixture.name, "--json"))):
                    sample = R.run([*R.UZE, *args], cwd=sb.project, env=env)
                    if number:
                        found.setdefault((str(tree), size, op), []).append(sample)
        R.log(f"growth: compare round {number} of {rounds} done")
    rows: dict[str, Any] = {}
    for tree in trees:
        for op in ("install", "uninstall"):
            base = statistics.median(s.cpu for s in found[(str(tree), sizes[0], op)])
            rows[f"{tree} {op}"] = {
                size: {"cpu_median_ms": statistics.median(
                           s.cpu for s in found[(str(tree), size, op)]) * 1000,
                       "cpu_ratio": statistics.median(
                           s.cpu for s in found[(str(tree), size, op)]) / base}
                for size in sizes}
    return rows


def compare_report(rows: dict[str, Any], rounds: int, load: str) -> str:
    lines = [f"uze growth --compare: {rounds} rounds, {os.cpu_count()} CPUs, load {load}",
             "median CPU of the Nth install / the uninstall at N; ratio to N = 1"]
    for label, by_size in rows.items():
        cells = [f"N = {size}: {row['cpu_median_ms']:5.0f} ms {row['cpu_ratio']:5.2f}x"
                 for size, row in by_size.items()]
        lines.append(f"  {label}  " + "   ".join(cells))
    return "\n".join(lines)


def report(res: dict[str, Any]) -> str:
    lines = [f"uze growth: {res['max']} fleet packages x 7 harnesses, {res['rounds']} rounds, "
             f"{os.cpu_count()} CPUs, load {res['load_before']} -> {res['load_after']}, "
             f"{res['seconds']:.0f} s"]
    lines.append("Interleaved (median CPU / median wall; ratio of CPU to size 1)")
    for size, row in res["sizes"].items():
        cells = []
        for op in ("install", "uninstall"):
            s = row[op]
            cells.append(f"{op} Nth {s['cpu_median'] * 1000:5.0f} / {s['median'] * 1000:5.0f} ms"
                         f"  {R._x(s['cpu_ratio'])}  rss {s['rss_max_mb']:5.1f} MB")
        lines.append(f"  N = {size:4}  " + "   ".join(cells))
    one = res["one_by_one"]
    for op in ("install", "uninstall"):
        f = one[f"{op}_fit"]
        lines.append(f"One by one, {op}: cpu = {f['a_ms']:.0f} ms + {f['b_ms_per_package']:.2f} ms"
                     f" x N; order k = {f['order']:.2f}; fitted N={res['max']} / N=1: "
                     f"{f['fitted_last_over_first']:.2f}x; all {res['max']}: "
                     f"{one[f'{op}_total_cpu_s']:.1f} s CPU, peak RSS "
                     f"{max(one[f'{op}_rss_mb']):.1f} MB")
    top = one["at_max"]
    lines.append(f"Projects of N - 1 packages laid down by one `uze install` (no source) of their "
                 f"uze.toml and uze.lock (peak RSS; limit 100 MB at {res['max']})")
    for size, big in res["project_installs"].items():
        lines.append(f"  {int(size) - 1:4} packages  " + (big["failed"] if "failed" in big else
                     f"{big['cpu_ms']:7.0f} ms CPU  {big['rss_mb']:5.1f} MB"))
    lines.append(f"Project of {res['max']} packages, installed one by one (peak RSS)")
    again, changed = top["reinstall"], top["reinstall_changes"]["files_changed"]
    lines.append(f"  re-install (uze install, no source)  {again['cpu_ms']:6.0f} ms CPU  "
                 f"{again['rss_mb']:5.1f} MB  {changed} files changed")
    lines.append(f"  status --json  {top['status']['cpu_ms']:6.0f} ms CPU  "
                 f"{top['status']['rss_mb']:5.1f} MB")
    lines.append(f"  uninstall, largest peak of the {res['max']}  "
                 f"{max(one['uninstall_rss_mb']):5.1f} MB; files left {one['files_left']}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max", type=int, default=200)
    parser.add_argument("--sizes", default="1,20,100,200")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", type=int, default=0, metavar="N")
    parser.add_argument("--uze-src", type=Path)
    parser.add_argument("--quick", action="store_true", help="--max 20 --sizes 1,10,20 --rounds 2")
    parser.add_argument("--compare", metavar="DIR,DIR", help="uze source folders, in turns")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="--compare: lay the projects down in DIR and reuse them next time")
    args = parser.parse_args()
    if args.compare:
        trees = [Path(tree).resolve() for tree in args.compare.split(",")]
        sizes = sorted(int(s) for s in args.sizes.split(","))
        work, load = Path(tempfile.mkdtemp(prefix="uze-growth-")), os.getloadavg()
        try:
            rows = compare(work, trees, sizes, args.rounds, args.keep)
        finally:
            R.remove_tree(work)
        after = os.getloadavg()
        print(compare_report(rows, args.rounds, " ".join(f"{x:.2f}" for x in load) + " -> "
                             + " ".join(f"{x:.2f}" for x in after)))
        return
    if args.quick:
        args.max, args.sizes, args.rounds = 20, "1,10,20", 2
    if args.uze_src:
        R.UZE_SRC = args.uze_src.resolve()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    if sizes[0] != 1 or sizes[-1] > args.max:
        raise SystemExit("--sizes must start at 1 and stay within --max")
    start, load = time.perf_counter(), os.getloadavg()
    work = Path(tempfile.mkdtemp(prefix="uze-growth-"))
    try:
        source = R.Sandbox(work, "one-by-one")
        one = one_by_one(source, _fixtures(source, args.max))
        RESULTS.write_text(json.dumps({"one_by_one": one}, indent=1, default=str) + "\n")
        rows, boxes, packages, built = interleaved(work, sizes, args.rounds,
                                            one.pop("declared"))
        text = profile(boxes[args.profile], packages[args.profile][-1], args.profile) \
            if args.profile in boxes else ""
    finally:
        R.remove_tree(work)
    res = {"max": args.max, "rounds": args.rounds, "one_by_one": one, "sizes": rows,
           "project_installs": built,
           "load_before": " ".join(f"{x:.2f}" for x in load),
           "load_after": " ".join(f"{x:.2f}" for x in os.getloadavg()),
           "seconds": time.perf_counter() - start, "profile": text}
    RESULTS.write_text(json.dumps(res, indent=1, default=str) + "\n")
    print(report(res))
    if text:
        print(text)


if __name__ == "__main__":
    main()
