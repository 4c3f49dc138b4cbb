"""Fixtures of the real-harness conformance suite (marker `conformance`).

Each test gets the autouse `sandbox` (temporary HOME and project), user state a real user would
have (project trusted for Codex, project MCP approved for Claude), a loopback MCP server and a
fresh copy of the package under test. Binaries: scripts/install-harnesses.sh.

`evidence` records each contract's outcome in this session's run file (tests/conformance/
evidence.py); with UZE_RECORD_EVIDENCE=1 the session end merges the run into the shipped
evidence and regenerates docs/compatibility.md.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.conformance.evidence import EvidenceRun, new_run, publish
from tests.conformance.lab import PACKAGE, Lab, build_package, prepare_user_state
from tests.conformance.mcp_probe import http_server
from tests.conftest import Sandbox


@pytest.fixture
def mcp_url() -> Iterator[str]:
    """A streamable-HTTP MCP server on 127.0.0.1 for this test only."""
    with http_server() as url:
        yield url


@pytest.fixture
def lab(sandbox: Sandbox, mcp_url: str) -> Lab:
    """The sandbox prepared for real harnesses, with the package under test built outside it."""
    prepare_user_state(sandbox)
    return Lab(sandbox, build_package(sandbox.root / "packages" / PACKAGE, mcp_url))


_RUN: list[EvidenceRun] = []  # the session's run, created on first use


@pytest.fixture
def evidence() -> EvidenceRun:
    """This session's evidence run: `evidence.record(harness, capability, scope, result)`."""
    if not _RUN:
        _RUN.append(new_run())
    return _RUN[0]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """With UZE_RECORD_EVIDENCE=1, merge this run into uze/data/evidence.json and the docs."""
    if not _RUN or os.environ.get("UZE_RECORD_EVIDENCE") != "1":
        return
    publish(_RUN[0].path)
