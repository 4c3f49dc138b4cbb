"""Evidence of a conformance run: the `evidence` fixture and the run file it appends to.

Each contract records its outcome per harness, capability and scope:
`evidence.record("codex", "skill.discovery", "project", "passed")`, or wraps the contract in
`with evidence.check(...)`, which records `passed`, or `failed` with the assertion text when it
raises (a skip records nothing). Records carry the real binary's version (`--version`) and the
digest of the environment that matters (uze.doctor.evidence). One pytest session appends them to
`.cache/evidence/run-<UTC time>-<pid>.jsonl`; with UZE_RECORD_EVIDENCE=1 the session end merges
that run into uze/data/evidence.json and regenerates docs/compatibility.md (ADR 0009).
"""

from __future__ import annotations

import functools
import os
import platform
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from tests.conformance import lab
from tests.conformance.oracles import REAL_HARNESSES
from tests.helpers import REPO
from uze import __version__
from uze.doctor.evidence import (
    Record,
    Result,
    environment_digest,
    load,
    make_record,
    merge,
    save,
)
from uze.vocabulary import Scope

RUNS_DIR = Path(os.environ.get("UZE_EVIDENCE_RUNS", REPO / ".cache" / "evidence"))


@functools.cache
def node_version() -> str:
    """`node --version`, or why there is none."""
    try:
        out = subprocess.run(
            [str(Path(lab.NODE_DIR) / "node"), "--version"],
            capture_output=True, text=True, timeout=lab.TIMEOUT, check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"<{exc}>"
    return out.stdout.strip() or f"<exit {out.returncode}>"


def harness_version(harness: str) -> str:
    """What the harness's pinned binary reports with `--version` (cached per binary)."""
    binary = REAL_HARNESSES[harness].binary
    return lab._reported_version(lab.BIN_DIR / binary)


def environment_facts(version: str) -> dict[str, str]:
    """The facts a result may depend on; their digest goes in each record."""
    return {
        "os": f"{platform.system()} {platform.release()} {platform.machine()}",
        "python": platform.python_version(),
        "node": node_version(),
        "harness_version": version,
        "uze": __version__,
    }


@dataclass
class EvidenceRun:
    """The records of one pytest session, appended to its run file as they are made."""

    path: Path
    records: list[Record] = field(default_factory=list)

    def record(
        self, harness: str, capability: str, scope: str, result: str, detail: str = ""
    ) -> Record:
        """Record one outcome (result: passed|failed|denied|unverified). Raises ValueError
        for an unknown harness, capability, scope or result."""
        if harness not in REAL_HARNESSES:
            raise ValueError(f"{harness!r} has no real binary here: {sorted(REAL_HARNESSES)}")
        if scope not in ("project", "user"):
            raise ValueError(f"scope must be project or user, not {scope!r}")
        version = harness_version(harness)
        entry = make_record(
            harness=harness, harness_version=version, capability=capability,
            scope=_scope(scope), result=_result(result), detail=detail[:2000],
            environment=environment_digest(environment_facts(version)), uze_version=__version__,
            permission=lab.PERMISSIONS[harness],
        )
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(msgspec.json.encode(entry).decode() + "\n")
        self.records.append(entry)
        return entry

    @contextmanager
    def check(self, harness: str, capability: str, scope: str) -> Iterator[None]:
        """Record `passed` when the block ends normally, `failed` when it raises an error.

        `pytest.fail` (a BaseException) counts as failed; a skip records nothing.
        """
        try:
            yield
        except (Exception, pytest.fail.Exception) as exc:
            self.record(harness, capability, scope, "failed", f"{type(exc).__name__}: {exc}")
            raise
        self.record(harness, capability, scope, "passed")


def _scope(value: str) -> Scope:
    return "user" if value == "user" else "project"


def _result(value: str) -> Result:
    results: dict[str, Result] = {
        "passed": "passed", "failed": "failed", "denied": "denied", "unverified": "unverified"
    }
    if value not in results:
        raise ValueError(f"result must be one of {sorted(results)}, not {value!r}")
    return results[value]


def new_run() -> EvidenceRun:
    """A run whose file is named after the UTC start time and this process."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return EvidenceRun(RUNS_DIR / f"run-{stamp}-{os.getpid()}.jsonl")


def read_run(path: Path) -> list[Record]:
    """The records of a run file (a torn last line, from a killed run, is ignored)."""
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            records.append(msgspec.json.decode(line, type=Record))
        except ValueError:
            continue
    return records


EVIDENCE_FILE = REPO / "uze" / "data" / "evidence.json"
COMPATIBILITY_DOC = REPO / "docs" / "compatibility.md"


def known_environments(records: list[Record]) -> dict[str, dict[str, str]]:
    """The facts of each environment digest the records name that this machine reproduces
    (the digest of its facts now is the one recorded), by digest."""
    found = {}
    for version in sorted({r.harness_version for r in records}):
        facts = environment_facts(version)
        digest = environment_digest(facts)
        if any(r.environment == digest for r in records):
            found[digest] = facts
    return found


def publish(run_file: Path) -> int:
    """Merge a run file into uze/data/evidence.json and regenerate docs/compatibility.md.

    Returns how many records of the run were merged.
    """
    from uze.doctor.compatibility import (  # the generator the docs test compares against
        markdown,
        with_audit,
    )

    records = read_run(run_file)
    merged = merge(load(EVIDENCE_FILE), records, known_environments(records))
    save(EVIDENCE_FILE, merged)
    COMPATIBILITY_DOC.parent.mkdir(parents=True, exist_ok=True)
    current = COMPATIBILITY_DOC.read_text(encoding="utf-8") if COMPATIBILITY_DOC.is_file() else ""
    COMPATIBILITY_DOC.write_text(with_audit(markdown(merged), current), encoding="utf-8")
    return len(records)
