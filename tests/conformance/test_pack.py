"""The real validators accept what `uze pack` writes (issue 34 item 4, ADR 0091):
`claude plugin validate OUT` and `gemini extensions validate OUT` on the pinned binaries, for
the conformance package (skills, nested agents, a command, instructions, a stdio and an HTTP
MCP server); and Gemini CLI, given OUT as a linked extension, lists its context file, skills
and servers (`${extensionPath}` resolved)."""

from __future__ import annotations

import json

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


def test_gemini_loads_the_packed_extension_with_its_context_skills_and_servers(
        lab: Lab) -> None:
    require("gemini")
    out = lab.sandbox.root / "packed"
    lab.uze("pack", str(lab.package), "--out", str(out))
    link = lab.sandbox.home / ".gemini" / "extensions" / "every-kind"
    link.mkdir(parents=True)
    (link / ".gemini-extension-install.json").write_text(
        json.dumps({"source": str(out), "type": "link"}), encoding="utf-8")
    result = lab.run("gemini", "extensions", "list", "-o", "json")
    text = result.stdout + result.stderr
    start = text.index("\n[") + 1 if "\n[" in text else 0
    (listed,) = json.JSONDecoder().raw_decode(text, start)[0]
    assert (listed["name"], listed["isActive"]) == ("every-kind", True)
    assert listed["contextFiles"] == [str(out / "AGENTS.md")]
    assert sorted(skill["name"] for skill in listed["skills"]) == ["helper", "review", "ship"]
    assert sorted(listed["mcpServers"]) == ["docs", "search"]
    assert listed["mcpServers"]["docs"]["command"] == str(out / "scripts" / "server.sh")
    # Known gap (ADR 0091): Gemini CLI loads an extension's agents/ and refuses the portable
    # `harness:` block of an agent, so the packed agent does not load there (yet).
    assert listed["agents"] == []
    assert "Unrecognized key(s) in object: 'harness'" in text[:start]
