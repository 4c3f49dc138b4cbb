"""Growth of the everyday read-only commands (issue 32 item 2): `status --json`, `status`,
`status --check`, `list`, `list --json` and `doctor` on a project of 1, 20, 100 and 200 fleet
packages installed into all seven harnesses, each against `python -c pass`, with fitted orders;
and the first `status --json` after one more package's install and after its uninstall.

    python benchmarks/growth_status.py [--sizes 1,20,100,200] [--rounds N]
                                       [--uze-src DIR | --uze-ref REF] [--output FILE]

One sandbox (run.py's `Sandbox`: its own HOME, UZE_HOME, XDG_* and git project) receives the
fleet packages of run.py (3 skills of 4 files, an agent, AGENTS.md, 2 MCP servers, 2 hook
groups; `--harness all --trust`) one by one. At each size every command runs once unmeasured
(status then knows what it hashed, as a user's second status does; doctor's first run is timed
apart), then `--rounds` rounds, each running every command and `python -c pass` in turn, so
load drift hits all alike. Figures are medians of CPU time (user + sys of the child,
`os.wait4`) and wall time. The order of growth is the slope of log(CPU at N - CPU with nothing
installed) against log(N) over the sizes (1 = linear), and the cost per package is the
least-squares slope of CPU against N. Benchmarks never fail on a timing: the target (issue 32:
status and list within 10x of `python -c pass` at 200 packages, doctor within 10x after its
first run) is printed as met or not met. Nothing is written outside the sandbox.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import run as R  # benchmarks/run.py: sandboxes, fixtures, the measured `run`

COMMANDS: dict[str, tuple[str, ...]] = {
    "status --json": ("status", "--json"),
    "status": ("status",),
    "status --check": ("status", "--check"),
    "list": ("list",),
    "list --json": ("list", "--json"),
    "doctor": ("doctor",),
}
TARGETS = ("status --json", "status", "status --check", "list", "list --json", "doctor")
LIMIT = 10.0


AFTER_INSTALL = "status --json, first after an install"
AFTER_UNINSTALL = "status --json, first after an uninstall"


def _measure(sb: R.Sandbox, rounds: int, extra: Path | None = None) -> dict[str, Any]:
    """Every command of COMMANDS and `python -c pass`, round robin, after one unmeasured run
    each (doctor's first run is measured on its own: it may fill a cache). With `extra` (a
    package folder), each round also installs it, measures the first `status --json` after
    (every other package's caches as the status before left them), uninstalls it and
    measures the first `status --json` after that (ADR 0107)."""
    first_doctor = sb.uze("doctor")
    for argv in COMMANDS.values():
        sb.uze(*argv)
    names = ["python -c pass", *COMMANDS, *([AFTER_INSTALL, AFTER_UNINSTALL] if extra else [])]
    samples: dict[str, list[R.Sample]] = {name: [] for name in names}
    for _ in range(rounds):
        samples["python -c pass"].append(R.run(R.PY_PASS, cwd=sb.project, env=sb.env))
        for name, argv in COMMANDS.items():
            samples[name].append(sb.uze(*argv))
        if extra is not None:
            for name, change in ((AFTER_INSTALL, ("install", str(extra), "--harness", "all",
                                                  "--trust", "--json")),
                                 (AFTER_UNINSTALL, ("uninstall", extra.name, "--json"))):
                sb.uze(*change)
                time.sleep(0.2)  # past the racy window: the status may remember what it sees
                samples[name].append(sb.uze("status", "--json"))
    found = {name: R.summary(runs) for name, runs in samples.items()}
    found["doctor, first run"] = R.summary([first_doctor])
    return found


def _order(sizes: list[int], cpu: list[float], base: float) -> float | None:
    """Slope of log(cpu - base) against log(size): 1 is linear, 2 quadratic."""
    points = [(math.log(n), math.log(c - base)) for n, c in zip(sizes, cpu, strict=True)
              if c > base and n > 0]
    if len(points) < 2:
        return None
    mx = statistics.fmean(x for x, _ in points)
    my = statistics.fmean(y for _, y in points)
    den = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / den if den else None


def _per_package(sizes: list[int], cpu: list[float]) -> float | None:
    """Least-squares slope of CPU seconds against the number of packages."""
    if len(sizes) < 2:
        return None
    mx, my = statistics.fmean(sizes), statistics.fmean(cpu)
    den = sum((n - mx) ** 2 for n in sizes)
    return sum((n - mx) * (c - my) for n, c in zip(sizes, cpu, strict=True)) / den


def bench(sizes: list[int], rounds: int, work: Path) -> dict[str, Any]:
    """Install fleet packages one by one up to max(sizes); measure at 0 and at each size."""
    sb = R.Sandbox(work, "growth-status")
    packages = work / "packages"
    points: dict[str, Any] = {"0": _measure(sb, rounds)}
    R.log("growth-status: nothing installed measured")
    installed = 0
    extra = R.make_package(packages / "fleet-extra", "fleet-extra", R.FLEET_SHAPE, seed="extra")
    for size in sorted(sizes):
        while installed < size:
            name = f"fleet-{installed:03d}"
            fixture = R.make_package(packages / name, name, R.FLEET_SHAPE, seed=installed)
            sb.uze("install", str(fixture.path), "--harness", "all", "--trust", "--json")
            installed += 1
        time.sleep(0.2)  # past the racy window of the digest cache (ADR 0011)
        points[str(size)] = _measure(sb, rounds, extra.path)
        R.log(f"growth-status: {size} packages measured")
    return {"sizes": sorted(sizes), "rounds": rounds, "points": points,
            "fits": _fits(sorted(sizes), points)}


def _fits(sizes: list[int], points: dict[str, Any]) -> dict[str, Any]:
    fits = {}
    for name in ("status --json", "status", "status --check", "list", "list --json", "doctor"):
        cpu = [points[str(n)][name]["cpu_median"] for n in sizes]
        base = points["0"][name]["cpu_median"]
        fits[name] = {"order": _order(sizes, cpu, base), "per_package_ms":
                      None if (slope := _per_package(sizes, cpu)) is None else slope * 1000}
    return fits


def targets(res: dict[str, Any]) -> list[dict[str, Any]]:
    """Issue 32: each read-only command within LIMIT x `python -c pass` (CPU) at the largest
    size (doctor: after its first run)."""
    size = str(max(res["sizes"]))
    point = res["points"][size]
    base = point["python -c pass"]["cpu_median"]
    out = []
    for name in TARGETS:
        ratio = point[name]["cpu_median"] / base
        out.append({"target": f"{name} at {size} packages within {LIMIT:g}x of python -c pass "
                              "(CPU)", "met": ratio <= LIMIT, "value": f"{ratio:.2f}x"})
    return out


def render(res: dict[str, Any]) -> str:
    """The table of every size and command, the fits and the targets."""
    lines = [f"Growth of status, list and doctor: fleet packages into 7 harnesses "
             f"({res['meta']['commit']}, load {res['meta']['load_start']} -> "
             f"{res['meta']['load_end']}, {res['rounds']} rounds; median CPU and its ratio "
             "to python -c pass)"]
    names = ["python -c pass", *COMMANDS, "doctor, first run", AFTER_INSTALL, AFTER_UNINSTALL]
    lines.append(f"  {'packages':>8}  " + "  ".join(
        f"{n.replace(', first after an ', ' after '):>17}" for n in names))
    for size in ["0", *map(str, res["sizes"])]:
        point = res["points"][size]
        base = point["python -c pass"]["cpu_median"]
        cells = [f"{point[n]['cpu_median'] * 1000:5.0f} ms {point[n]['cpu_median'] / base:5.2f}x"
                 if n in point else "n/a" for n in names]
        lines.append(f"  {size:>8}  " + "  ".join(f"{c:>17}" for c in cells))
    lines.append("  fitted: " + "; ".join(
        f"{name} order {_num(fit['order'])}, {_num(fit['per_package_ms'])} ms per package"
        for name, fit in res["fits"].items()))
    lines += [f"  {'MET' if t['met'] else 'NOT MET':8} {t['target']}: {t['value']}"
              for t in res["targets"]]
    return "\n".join(lines)


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1,20,100,200", help="package counts (default: "
                        "%(default)s)")
    parser.add_argument("--rounds", type=int, default=5, help="measured rounds per size")
    parser.add_argument("--uze-src", type=Path, help="folder holding the uze package to measure")
    parser.add_argument("--uze-ref", help="measure this git commit of uze/ (git archive)")
    parser.add_argument("--output", type=Path, default=R.HERE / "growth_status.json",
                        help="results JSON (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.uze_ref:
        R.UZE_SRC = R.export_ref(args.uze_ref)
    elif args.uze_src:
        R.UZE_SRC = args.uze_src.resolve()
    sizes = sorted({int(n) for n in args.sizes.split(",")})
    meta = R._meta(R.FULL)
    work = Path(tempfile.mkdtemp(prefix="uze-growth-status-"))
    try:
        res = {"meta": meta, **bench(sizes, args.rounds, work)}
    finally:
        R.remove_tree(work)
    res["meta"]["load_end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    res["targets"] = targets(res)
    text = render(res)
    res["report"] = text.splitlines()
    args.output.write_text(json.dumps(res, indent=2, sort_keys=True, default=str) + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
