"""`uze doctor --json` with the four real harnesses on PATH: the first run (every harness asked
`--version`) and the second (versions from the cache, ADR 0085), interleaved round robin with
`python -c pass`; median wall and CPU (user + sys of the child, `os.wait4`).

    UZE_HARNESS_CACHE=/work/.harness-cache python benchmarks/doctor.py [--rounds N]

The binaries come from $UZE_HARNESS_CACHE/bin (default .cache/harnesses/bin, filled by
scripts/install-harnesses.sh). Each run is in run.py's `Sandbox` (its own HOME, UZE_HOME, XDG_*
and git project); the cold run deletes the version cache first. Target (issue 33): the second
doctor within 10x of `python -c pass`. Nothing is written outside the sandbox.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import run as R  # benchmarks/run.py: sandboxes and the measured `run`

ROWS = ("python -c pass", "doctor, first run", "doctor, second run")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args(argv)
    bin_dir = Path(os.environ.get("UZE_HARNESS_CACHE", R.REPO / ".cache" / "harnesses")) / "bin"
    found = sorted(p.name for p in bin_dir.glob("*")) if bin_dir.is_dir() else []
    if not found:
        sys.exit(f"no harness binaries in {bin_dir}: run scripts/install-harnesses.sh")
    with tempfile.TemporaryDirectory(prefix="uze-bench-doctor-") as work:
        sb = R.Sandbox(Path(work), "doctor")
        node = shutil.which("node") or "/usr/bin/node"
        env = dict(sb.env, PYTHONPATH=str(R.REPO),
                   PATH=os.pathsep.join([str(bin_dir), str(Path(node).parent), "/usr/bin:/bin"]))
        cache = sb.uze_home / "cache" / "harness-versions.json"
        doctor = [sys.executable, "-m", "uze", "doctor", "--json"]
        R.run(doctor, cwd=sb.project, env=env)  # warm the bytecode and the OS caches
        samples: dict[str, list[R.Sample]] = {row: [] for row in ROWS}
        for _ in range(args.rounds):
            samples[ROWS[0]].append(R.run([sys.executable, "-c", "pass"], cwd=sb.project,
                                          env=env))
            cache.unlink(missing_ok=True)
            samples[ROWS[1]].append(R.run(doctor, cwd=sb.project, env=env))
            samples[ROWS[2]].append(R.run(doctor, cwd=sb.project, env=env))
        sb.remove()
    base = statistics.median(s.wall for s in samples[ROWS[0]])
    base_cpu = statistics.median(s.cpu for s in samples[ROWS[0]])
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"uze doctor --json, {args.rounds} rounds, harnesses on PATH: {', '.join(found)}; "
          f"load {load}")
    for row in ROWS:
        wall = statistics.median(s.wall for s in samples[row])
        cpu = statistics.median(s.cpu for s in samples[row])
        print(f"  {row:<22} {wall * 1000:7.0f} ms wall  {cpu * 1000:6.0f} ms cpu  "
              f"{wall / base:5.2f}x wall, {cpu / base_cpu:5.2f}x cpu of python -c pass")


if __name__ == "__main__":
    main()
