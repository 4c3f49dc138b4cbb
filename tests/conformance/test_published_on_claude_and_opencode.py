"""A Gemini CLI extension and a Codex plugin on the harnesses test_published_formats.py leaves
out (issue 31, "in every harness"), after `uze install` of the same fixtures: Claude Code
connects the extension's servers, and Claude Code and OpenCode list each skill exactly once. The
Codex plugin's stdio server starts in its `cwd`, which neither has a key for: its row says
`degraded` with that reason, and the real binaries show the loss is real (not connected)."""

from __future__ import annotations

import json

import pytest

from tests.conformance.lab import Lab
from tests.conformance.test_published_formats import _copy, _gemini_extension, _labels, _seen

pytestmark = pytest.mark.conformance


def test_a_gemini_extension_is_served_and_listed_once_by_claude_code(
    lab: Lab, mcp_url: str
) -> None:
    package = _gemini_extension(lab, mcp_url)
    done = lab.uze("install", str(package), "--harness", "claude_code", "--trust", "--json")
    document = json.loads(done.stdout)

    claude_mcp = _seen(lab, "claude_code", "mcp")
    assert {"gem-tools", "gem-remote"} <= claude_mcp.connected, claude_mcp.evidence
    skills = _seen(lab, "claude_code", "skill")
    (label,) = _labels(document, "claude_code", ("skill",))
    assert skills.counts[label] == 1, skills.evidence


def test_a_codex_plugin_on_claude_code_and_opencode_is_listed_once_and_its_cwd_loss_is_real(
    lab: Lab, mcp_url: str
) -> None:
    package = _copy(lab, "codex-plugin", "bin/cx_server.py", (".mcp.json", "cx-remote"), mcp_url)
    done = lab.uze("install", str(package), "--harness", "claude_code,opencode", "--trust",
                   "--json")
    document = json.loads(done.stdout)

    for harness in ("claude_code", "opencode"):
        (row,) = [p for p in document["projections"]
                  if (p["harness"], p["kind"], p["resource"]) == (harness, "mcp", "cx-local")]
        assert row["route"] == "degraded" and "no working-directory key: cwd" in row["reason"]
        served = _seen(lab, harness, "mcp")
        assert served.counts["cx-local"] == 1, (harness, served.evidence)  # listed, and
        assert "cx-local" not in served.connected, (harness, served.evidence)  # not started
        listed = _seen(lab, harness, "skill")
        (label,) = _labels(document, harness, ("skill",))
        assert listed.counts[label] == 1, (harness, listed.evidence)
