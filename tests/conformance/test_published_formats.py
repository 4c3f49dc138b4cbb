"""A Gemini CLI extension and a Codex plugin installed by uze, seen by the real binaries
(adr/0068): their MCP servers connected or listed (Codex keeps its own keys), their skills and
commands listed exactly once, and a Codex plugin's root hooks.json (which Codex does not load)
left out.

The fixtures are tests/data/packages/gemini-extension and codex-plugin, copied with the probe
MCP server (tests/conformance/mcp_probe.py) as their stdio server and the loopback HTTP server
as their remote one.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.contracts import Oracle
from tests.conformance.lab import Lab, model_run
from tests.conformance.model_server import model_server
from tests.conformance.oracles import REAL_HARNESSES
from tests.helpers import DATA
from uze.doctor import probes

pytestmark = pytest.mark.conformance
PROBE = Path(__file__).with_name("mcp_probe.py")


def _copy(lab: Lab, fixture: str, server: str, remote: tuple[str, str], url: str) -> Path:
    """The fixture copied out of the repository, its stdio server the probe and its remote
    server (`remote`: the manifest or MCP file, and the server's name) the loopback one."""
    dest = shutil.copytree(DATA / fixture, lab.sandbox.root / "published" / fixture)
    shutil.copy(PROBE, dest / server)
    relpath, name = remote
    document = json.loads((dest / relpath).read_text(encoding="utf-8"))
    entry = document["mcpServers"][name]
    entry["httpUrl" if "httpUrl" in entry else "url"] = url
    (dest / relpath).write_text(json.dumps(document), encoding="utf-8")
    return dest


def _gemini_extension(lab: Lab, url: str) -> Path:
    """The Gemini CLI extension fixture copied out (`_copy`), its stdio server started by its
    `serve.sh` with this interpreter."""
    package = _copy(lab, "gemini-extension", "server/server.py",
                    ("gemini-extension.json", "gem-remote"), url)
    (package / "server/serve.sh").write_text(
        f'#!/bin/sh\nexec "{sys.executable}" "$(dirname "$0")/server.py"\n', encoding="utf-8")
    return package


def _seen(lab: Lab, harness: str, kind: str) -> Any:
    oracle = REAL_HARNESSES[harness].entry(kind, "project")
    assert isinstance(oracle, Oracle)
    return oracle.read(lab)


def _labels(document: dict[str, Any], harness: str, kinds: tuple[str, ...]) -> list[str]:
    return sorted(p["label"] for p in document["projections"]
                  if p["harness"] == harness and p["kind"] in kinds and p["target"])


def test_a_gemini_extension_is_served_and_listed_once_by_gemini_codex_and_opencode(
    lab: Lab, mcp_url: str
) -> None:
    package = _gemini_extension(lab, mcp_url)
    done = lab.uze("install", str(package), "--harness", "gemini_cli,codex,opencode", "--trust",
                   "--json")
    document = json.loads(done.stdout)

    gemini_mcp = _seen(lab, "gemini_cli", "mcp")
    assert {"gem-tools", "gem-remote"} <= gemini_mcp.connected, gemini_mcp.evidence
    codex_mcp = _seen(lab, "codex", "mcp")
    assert codex_mcp.counts["gem-tools"] == codex_mcp.counts["gem-remote"] == 1
    opencode_mcp = _seen(lab, "opencode", "mcp")
    assert {"gem-tools", "gem-remote"} <= opencode_mcp.connected, opencode_mcp.evidence
    codex = _seen(lab, "codex", "skill")
    labels = _labels(document, "codex", ("skill", "command"))
    assert len(labels) == 4, labels  # explain and the three commands, as skills
    assert all(codex.counts[label] == 1 for label in labels), (labels, codex.evidence)
    gemini_skills = _seen(lab, "gemini_cli", "skill")
    assert +gemini_skills.counts == {"gem-tools-explain": 1}, gemini_skills.evidence
    gemini_commands = _seen(lab, "gemini_cli", "command")  # its own TOML commands
    labels = _labels(document, "gemini_cli", ("command",))
    assert gemini_commands.counts == {label: 1 for label in labels}, gemini_commands.evidence
    commands = _seen(lab, "opencode", "command")
    assert all(commands.counts[label] == 1
               for label in _labels(document, "opencode", ("command",))), commands.evidence


def test_a_codex_plugin_keeps_its_keys_for_codex_and_its_hooks_file_only(
    lab: Lab, mcp_url: str
) -> None:
    package = _copy(lab, "codex-plugin", "bin/cx_server.py", (".mcp.json", "cx-remote"), mcp_url)
    done = lab.uze("install", str(package), "--harness", "codex,gemini_cli", "--trust", "--json")
    document = json.loads(done.stdout)

    servers = {s["name"]: s for s in json.loads(lab.run("codex", "mcp", "list", "--json").stdout)}
    assert servers["cx-local"]["tool_timeout_sec"] == 900.0
    assert servers["cx-remote"]["transport"]["bearer_token_env_var"] == "CX_TOKEN"
    gemini_mcp = _seen(lab, "gemini_cli", "mcp")
    assert "cx-local" in gemini_mcp.connected, gemini_mcp.evidence  # cwd: the package copy
    for harness in ("gemini_cli", "codex"):
        listed = _seen(lab, harness, "skill")
        (label,) = _labels(document, harness, ("skill",))
        assert listed.counts[label] == 1, listed.evidence
    params: dict[str, object] = {"cwds": [str(lab.sandbox.project)]}
    (listed,) = lab.rpc("codex", probes.CODEX_APP_SERVER, [("hooks/list", params)])
    events, evidence = probes.codex_hooks(listed["data"][0])  # type: ignore[index]
    assert events == ["PostToolUse"], evidence  # not the root hooks.json's Stop


def test_gemini_cli_runs_the_commands_uze_writes_with_their_arguments(lab: Lab) -> None:
    """A Gemini extension's TOML command as written, and a Claude command translated, both
    sent to the scripted model by `gemini -p "/<label> ARGS"` with the arguments in place."""
    for source in ("gemini-extension", "claude-commands"):
        lab.uze("install", str(DATA / source), "--harness", "gemini_cli", "--trust")
    runs = {"/gem-tools-review parser.py": "Review parser.py for mistakes",
            "/claude-commands-review naming": "Review this change, focusing on naming."}
    for prompt, expanded in runs.items():
        with model_server() as model:
            args, env = model_run(lab, "gemini", model.url, prompt)
            lab.run("gemini", *args, env=env)
            sent = [json.dumps(request.body) for request in model.logged()]
        assert any(expanded in text for text in sent), (prompt, sent[:1])
        assert not any(prompt.split()[0] + " " in text for text in sent), prompt
