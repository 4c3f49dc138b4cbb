"""Plugin settings on the real binaries (adr/0078): a Claude plugin's `userConfig` and a Gemini
CLI extension's `settings`, installed by uze, reach each harness's MCP server, the sensitive
token by a variable the harness expands where it runs, never by value in any file.

The fixtures' servers (tests/data/packages/plugin-settings and gemini-settings) start only when
every setting arrived (the token and label in their environment, the region as an argument):
"connected" in a harness's own MCP listing is the oracle, and the same listing without the
token in the harness's environment shows the oracle can fail. Codex connects no server offline;
`codex mcp list --json` shows what it will pass (the variable by name, the label by value).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.contracts import Oracle
from tests.conformance.lab import Lab
from tests.conformance.oracles import REAL_HARNESSES
from tests.helpers import DATA

pytestmark = pytest.mark.conformance
PROBE = Path(__file__).with_name("mcp_probe.py")
TOKEN = "tok-3f9a1c-never-written"  # what the user keeps in the harness's environment
SERVED = ("claude_code", "gemini_cli", "opencode")  # connect stdio servers offline
# The gate compares the token's digest, so the token itself is in no file of the test either.
TOKEN_GATE = ('[ "$(printf %s "$SETTINGS_TOKEN" | sha256sum | cut -c1-64)" = '
              f'"{hashlib.sha256(TOKEN.encode()).hexdigest()}" ]')


def _copy(lab: Lab, fixture: str, folder: str, gate: str) -> Path:
    """The fixture outside the repository, its server the probe behind the fixture's gate."""
    dest = shutil.copytree(DATA / fixture, lab.sandbox.root / "published" / fixture)
    shutil.copy(PROBE, dest / folder / "server.py")
    (dest / folder / "serve.sh").write_text(
        f'#!/bin/sh\n{gate} || exit 3\nexec "{sys.executable}" "$(dirname "$0")/server.py"\n',
        encoding="utf-8")
    return dest


def _connected(lab: Lab, harness: str) -> set[str]:
    oracle = REAL_HARNESSES[harness].entry("mcp", "project")
    assert isinstance(oracle, Oracle)
    seen: Any = oracle.read(lab)
    return set(seen.connected)


def _files_holding(root: Path, needle: bytes) -> list[str]:
    return [str(p.relative_to(root)) for p in root.rglob("*")
            if p.is_file() and not p.is_symlink() and needle in p.read_bytes()]


def test_a_claude_plugins_settings_reach_every_harness_and_the_token_no_file(
    lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = _copy(lab, "plugin-settings", "bin", '[ "$1" = --region ] && [ "$2" = north ] && '
                    f'{TOKEN_GATE} && [ "$SETTINGS_LABEL" = laptop ]')
    installed = lab.uze("install", str(package), "--harness", "claude_code,gemini_cli,opencode,"
                        "codex", "--set", "region=north", "--set", "label=laptop", "--trust",
                        "--json")
    document = json.loads(installed.stdout)

    for harness in SERVED:  # the token is not in the harness's environment: no server
        assert "settings-probe" not in _connected(lab, harness), harness
    monkeypatch.setenv("SETTINGS_TOKEN", TOKEN)
    for harness in SERVED:
        assert "settings-probe" in _connected(lab, harness), harness
    servers = {s["name"]: s for s in json.loads(lab.run("codex", "mcp", "list", "--json").stdout)}
    transport = servers["settings-probe"]["transport"]
    assert transport["env_vars"] == ["SETTINGS_TOKEN"]
    assert transport["env"] == {"SETTINGS_LABEL": "laptop"}
    assert transport["args"] == ["--region", "north"]
    assert _files_holding(lab.sandbox.root, TOKEN.encode()) == []
    assert TOKEN not in installed.stdout + installed.stderr
    routes = {p["harness"]: p["route"] for p in document["projections"] if p["kind"] == "mcp"}
    assert routes == dict.fromkeys(("claude_code", "gemini_cli", "opencode", "codex"), "adapted")


def test_a_gemini_extensions_settings_reach_every_harness_as_gemini_gives_them(
    lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = _copy(lab, "gemini-settings", "server",
                    f'{TOKEN_GATE} && [ "$SETTINGS_LABEL" = desk ]')
    lab.uze("install", str(package), "--harness", "claude_code,gemini_cli,opencode,codex",
            "--set", "SETTINGS_LABEL=desk", "--trust")

    monkeypatch.setenv("SETTINGS_TOKEN", TOKEN)
    for harness in SERVED:
        assert "gem-settings" in _connected(lab, harness), harness
    servers = {s["name"]: s for s in json.loads(lab.run("codex", "mcp", "list", "--json").stdout)}
    assert servers["gem-settings"]["transport"]["env_vars"] == ["SETTINGS_TOKEN"]
    assert _files_holding(lab.sandbox.root, TOKEN.encode()) == []
