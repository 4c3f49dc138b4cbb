"""The release check (CAP-040, ADR 0086): the shipped evidence proves each harness version
scripts/install-harnesses.sh pins, every claimed cell; a pin moved past the evidence, or a
claimed cell with no record, is a gap naming the harness, the versions and the cell."""

from __future__ import annotations

import subprocess
import sys

from tests.helpers import REPO
from uze.doctor.compatibility import claims, release_gaps
from uze.doctor.evidence import EvidenceFile, shipped

SCRIPT = REPO / "scripts" / "check-evidence.py"


def _pinned() -> dict[str, str]:
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import importlib.util

        spec = importlib.util.spec_from_file_location("check_evidence", SCRIPT)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return dict(module.pinned())
    finally:
        sys.path.remove(str(SCRIPT.parent))


def test_the_shipped_evidence_proves_every_pinned_harness_version() -> None:
    pinned = _pinned()
    assert set(pinned) == {"claude_code", "codex", "gemini_cli", "opencode"}
    assert release_gaps(shipped(), pinned) == []
    result = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True,
                            timeout=60, check=False, cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert "evidence proves every pinned harness version" in result.stdout


def test_a_pin_newer_than_the_evidence_is_a_gap_naming_both_versions() -> None:
    pinned = _pinned() | {"codex": "0.172.0"}
    (gap,) = release_gaps(shipped(), pinned)
    assert gap == ("codex: the shipped evidence proves 0.171.0 version(s), the pinned version "
                   "is 0.172.0")


def test_a_claimed_cell_without_a_record_for_the_pinned_version_is_a_gap() -> None:
    evidence = shipped()
    pinned = _pinned()
    claimed = claims("opencode")[0]
    kept = tuple(r for r in evidence.records
                 if (r.harness, r.capability, r.scope) != ("opencode", claimed, "user"))
    gaps = release_gaps(EvidenceFile(records=kept, environments=evidence.environments), pinned)
    assert gaps == [f"opencode {pinned['opencode']}: no record of {claimed} in user scope"]
