#!/usr/bin/env python3
"""Merge a conformance run into uze/data/evidence.json and regenerate docs/compatibility.md.

Usage: python scripts/update-evidence.py [RUN_FILE]   (default: the newest .cache/evidence run)
       python scripts/update-evidence.py --docs-only  (regenerate the docs from the evidence)
       python scripts/update-evidence.py --environments  (record the facts of each environment
           digest this machine reproduces, e.g. for records made before the facts were kept)

A run file is written by every conformance session (tests/conformance/evidence.py); running
the suite with UZE_RECORD_EVIDENCE=1 does this merge at the end of the session. ADR 0009.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.conformance.evidence import (  # noqa: E402 - after the path of the repository
    COMPATIBILITY_DOC,
    EVIDENCE_FILE,
    RUNS_DIR,
    known_environments,
    publish,
)
from uze.doctor.compatibility import markdown, with_audit  # noqa: E402
from uze.doctor.evidence import load, merge, save  # noqa: E402


def main(args: list[str]) -> int:
    if args == ["--environments"]:
        evidence = load(EVIDENCE_FILE)
        found = known_environments(list(evidence.records))
        save(EVIDENCE_FILE, merge(evidence, (), found))
        args = ["--docs-only"]
        print(f"environments recorded: {sorted(found)}")
    if args == ["--docs-only"]:
        current = COMPATIBILITY_DOC.read_text(encoding="utf-8")
        COMPATIBILITY_DOC.write_text(with_audit(markdown(load(EVIDENCE_FILE)), current),
                                     encoding="utf-8")
        print(f"wrote {COMPATIBILITY_DOC}")
        return 0
    runs = [Path(a) for a in args] or sorted(RUNS_DIR.glob("run-*.jsonl"))[-1:]
    if not runs or not runs[0].is_file():
        print(f"error: no run file (looked in {RUNS_DIR})", file=sys.stderr)
        print("hint: run `python -m pytest tests/conformance` first", file=sys.stderr)
        return 1
    for run in runs:
        print(f"merged {publish(run)} records from {run}")
    print(f"wrote {EVIDENCE_FILE} and {COMPATIBILITY_DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
