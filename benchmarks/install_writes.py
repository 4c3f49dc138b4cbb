"""What a two-harness install of the 17 real skills writes and waits for (issue 32 item 3):
creates, folders, renames, fsyncs and syncfs calls counted with strace, and the wall and CPU
time of fresh installs against the durable floor (`cp -r` to the 3 places uze writes, then
`sync -f`), round robin, each after an untimed `sync`.

    python benchmarks/install_writes.py [--rounds N] [--uze NAME=DIR ...] [--busy]
                                        [--harness claude_code,codex]

`--uze NAME=DIR` measures the uze package in DIR (e.g. a compiled `git archive` of a commit);
without any, the working tree. `--busy` makes the barrier take its per-file path (the one a
file system busy with other programs' writes gets, ADR 0046) by setting its limit of foreign
unwritten data to nothing. Needs `run.py --setup-real` (the skills in benchmarks/.cache) and,
for the counts, strace; nothing is written outside a temp folder.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import run as R  # benchmarks/run.py: sandboxes, the real skills, the measured `run`

BUSY = ("import sys; import uze.durability as d; d.SYNCFS_FOREIGN_LIMIT = -1; "
        "sys.argv[0] = 'uze'; from uze.__main__ import main; main()")
TRACED = ("openat,open,creat,mkdir,mkdirat,rename,renameat,renameat2,link,linkat,fsync,"
          "fdatasync,syncfs")


def _argv(busy: bool) -> list[str]:
    return [sys.executable, "-c", BUSY] if busy else [sys.executable, "-m", "uze"]


def _counts(log: Path) -> dict[str, int]:
    """Calls of each kind in an `strace -f -o` log (resumed halves not counted twice)."""
    found = {"creates": 0, "mkdir": 0, "rename": 0, "link": 0, "fsync": 0, "syncfs": 0}
    for line in log.read_text(errors="replace").splitlines():
        call = re.search(r"(?:^|\s)([a-z0-9_]+)\(", line)
        if call is None or "resumed>" in line:
            continue
        name = call[1]
        if name in ("openat", "open", "creat") and ("O_CREAT" in line or name == "creat") \
                and " = -1 " not in line:
            found["creates"] += 1
        elif name.startswith("mkdir") and " = -1 " not in line:
            found["mkdir"] += 1
        elif name.startswith("rename"):
            found["rename"] += 1
        elif name.startswith("link"):
            found["link"] += 1
        elif name in ("fsync", "fdatasync"):
            found["fsync"] += 1
        elif name == "syncfs":
            found["syncfs"] += 1
    return found


def _install(src: Path | None, fixture: R.Fixture, harness: str, work: Path, busy: bool,
             trace: Path | None = None) -> R.Sample:
    sb = R.Sandbox(work, "writes")
    env = dict(sb.env)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    cmd = [*_argv(busy), "install", str(fixture.path), "--harness", harness, "--trust", "--json"]
    if trace is not None:
        cmd = ["strace", "-f", "-qq", "-e", f"trace={TRACED}", "-o", str(trace), *cmd]
    try:
        os.sync()
        return R.run(cmd, cwd=sb.project, env=env)
    finally:
        sb.remove()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--uze", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--busy", action="store_true", help="force the per-file fsync barrier")
    parser.add_argument("--harness", default="claude_code,codex")
    args = parser.parse_args(argv)
    variants: dict[str, Path | None] = {"working tree": None} if not args.uze else {
        name: Path(path).resolve() for name, path in (v.split("=", 1) for v in args.uze)}
    work = Path(tempfile.mkdtemp(prefix="uze-writes-"))
    try:
        fixture = R.real_package(work)
        if fixture is None:
            raise SystemExit("the real skills are not set up: python benchmarks/run.py "
                             "--setup-real")
        counts = {}
        if shutil.which("strace"):
            for name, src in variants.items():
                log = work / f"strace-{len(counts)}.txt"
                _install(src, fixture, args.harness, work, args.busy, trace=log)
                counts[name] = _counts(log)
        samples: dict[str, list[R.Sample]] = {name: [] for name in [*variants, "floor"]}
        cp_work = Path(tempfile.mkdtemp(prefix="cp-", dir=work))
        for _ in range(args.rounds):
            for name, src in variants.items():
                samples[name].append(_install(src, fixture, args.harness, work, args.busy))
            os.sync()
            samples["floor"].append(R._cp_once(fixture, 3, cp_work, sync=True))
    finally:
        R.remove_tree(work)
    floor = statistics.median(s.wall for s in samples["floor"])
    floor_cpu = statistics.median(s.cpu for s in samples["floor"])
    print(f"install ({args.harness}) of the 17 real skills ({fixture.files} files), "
          f"{args.rounds} rounds{', busy barrier' if args.busy else ''}; load "
          + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    for name, runs in samples.items():
        wall = statistics.median(s.wall for s in runs)
        cpu = statistics.median(s.cpu for s in runs)
        user = statistics.median(s.user for s in runs)
        extra = "" if name == "floor" else (
            f"  {wall / floor:4.2f}x wall, {cpu / floor_cpu:4.2f}x cpu of the floor  "
            + " ".join(f"{k} {v}" for k, v in counts.get(name, {}).items()))
        print(f"  {name:28} {wall * 1000:7.0f} ms [{min(s.wall for s in runs) * 1000:.0f}-"
              f"{max(s.wall for s in runs) * 1000:.0f}]  cpu {cpu * 1000:5.0f} ms  "
              f"user {user * 1000:5.1f} ms{extra}")
    first, *others = variants
    for name in others:  # the same round's runs side by side: the load's drift cancels
        pairs = list(zip(samples[first], samples[name], strict=True))
        shifts = {what: statistics.median(getattr(b, what) - getattr(a, what) for a, b in pairs)
                  for what in ("wall", "cpu", "user")}
        print(f"  {name} - {first}, paired medians: "
              + ", ".join(f"{what} {shift * 1000:+.1f} ms" for what, shift in shifts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
