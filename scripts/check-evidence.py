#!/usr/bin/env python3
"""Release check: the shipped evidence (uze/data/evidence.json) proves the harness versions
`scripts/install-harnesses.sh` pins, every claimed cell of them (CAP-040, ADR 0086).

Usage: python scripts/check-evidence.py    exit 0 when it does; 1 naming each gap, with the fix.
tests/unit/doctor/test_release_evidence.py runs the same check in CI.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.conformance.lab import read_pins  # noqa: E402 - after the path of the repository
from uze.doctor.compatibility import release_gaps  # noqa: E402
from uze.doctor.evidence import shipped  # noqa: E402
from uze.harnesses import REGISTRY  # noqa: E402


def pinned() -> dict[str, str]:
    """harness id -> the version the install script pins, for each pinned binary."""
    pins = read_pins()
    return {h.id: pins[h.binary].version for h in REGISTRY.values() if h.binary in pins}


def main() -> int:
    gaps = release_gaps(shipped(), pinned())
    for gap in gaps:
        print(f"error: {gap}", file=sys.stderr)
    if gaps:
        print("hint: install the pinned harnesses (bash scripts/install-harnesses.sh), then run "
              "UZE_RECORD_EVIDENCE=1 python -m pytest tests/conformance", file=sys.stderr)
        return 1
    print(f"evidence proves every pinned harness version: {pinned()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
