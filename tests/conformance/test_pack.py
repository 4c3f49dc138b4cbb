"""The real validators accept what `uze pack` writes (issue 34 item 4, ADR 0091):
`claude plugin validate OUT` and `gemini extensions validate OUT` on the pinned binaries, for
the conformance package (skills, nested agents, a command, instructions, a stdio and an HTTP
MCP server)."""

from __future__ import annotations

import pytest

from tests.conformance.lab import Lab, require

pytestmark = pytest.mark.conformance


def test_claude_and_gemini_validators_accept_the_packed_folder(lab: Lab) -> None:
    require("claude")
    require("gemini")
    out = lab.sandbox.root / "packed"
    packed = lab.uze("pack", str(lab.package), "--out", str(out))
    assert "packed every-kind" in packed.stdout
    claude = lab.run("claude", "plugin", "validate", str(out))
    assert "Validation passed" in claude.stdout + claude.stderr
    assert "error" not in (claude.stdout + claude.stderr).lower().replace("0 errors", "")
    gemini = lab.run("gemini", "extensions", "validate", str(out))
    assert "successfully validated" in gemini.stdout + gemini.stderr
