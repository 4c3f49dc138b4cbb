"""Fixtures of the real-harness conformance suite (marker `conformance`).

Each test gets the autouse `sandbox` (temporary HOME and project), user state a real user would
have (project trusted for Codex, project MCP approved for Claude), a loopback MCP server and a
fresh copy of the package under test. Binaries: scripts/install-harnesses.sh.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

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
