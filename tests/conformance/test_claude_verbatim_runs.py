"""What Claude Code runs from a plugin uze delivers whole was listed for consent (issue 28 item 1).

A Claude-native plugin reaches Claude Code byte for byte (adr/0041), so the keys of its
manifest that uze does not project itself still act there (adr/0055). The plugin here declares
an MCP server inline in `.claude-plugin/plugin.json`, an LSP server (`lspServers`), a monitor
(`monitors`) and an executable under `bin/`. What must show, with the real binary:

* without `--trust`, `uze install` refuses and its list names each of them, with the digest of
  the script it starts; nothing is written;
* once accepted, Claude Code starts the inline server (`claude mcp list` connects it and its
  script leaves a mark) and loads the LSP server (its debug log counts it from the plugin):
  each thing it runs was on the list the user accepted.

The monitor cannot be shown running offline: claude 2.1.197 arms plugin monitors only in an
interactive session and only while the server-side flag `tengu_amber_sentinel` is on (default
off; read from the binary's plugin-monitor loader), so no `-p` run starts one. uze lists it for
consent all the same (the first assertion), so it is covered whenever Claude Code runs it.

The package is written here (no copy of a published plugin).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conformance.lab import Lab, prepare_user_state, require
from tests.conftest import Sandbox
from tests.helpers import run_uze, tree_bytes
from uze.doctor import probes
from uze.projections.digest import content_digest

pytestmark = pytest.mark.conformance
NAME = "quiet-kit"


def _script(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)
    return f"blake3:{content_digest(text.encode())[:16]}"


def build_plugin(dest: Path, marks: Path) -> dict[str, str]:
    """The plugin; returns the digest prefix of each script it starts, by its package path."""
    (dest / "skills" / "notes").mkdir(parents=True)
    (dest / "skills" / "notes" / "SKILL.md").write_text(
        "---\nname: notes\ndescription: Take notes (uze verbatim probe)\n---\nTake notes.\n",
        encoding="utf-8")
    (dest / "bin").mkdir()
    (dest / "bin" / "mcp_probe.py").write_bytes(
        Path(__file__).with_name("mcp_probe.py").read_bytes())
    digests = {
        "bin/server.sh": _script(dest / "bin" / "server.sh", (
            f'#!/bin/sh\ntouch "{marks}/server"\n'
            f'exec "{sys.executable}" "$(dirname "$0")/mcp_probe.py"\n')),
        "bin/lsp.sh": _script(dest / "bin" / "lsp.sh", f'#!/bin/sh\ntouch "{marks}/lsp"\n'),
        "bin/watch.sh": _script(dest / "bin" / "watch.sh",
                                f'#!/bin/sh\ntouch "{marks}/monitor"\n'),
    }
    manifest = {
        "name": NAME, "version": "1.0.0", "description": "Declares what uze does not project.",
        "mcpServers": {"inline": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/server.sh"}},
        "lspServers": {"zz": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/lsp.sh",
                              "extensionToLanguage": {".zz": "zz"}}},
        "monitors": [{"name": "watch", "command": "${CLAUDE_PLUGIN_ROOT}/bin/watch.sh",
                      "description": "Watches (uze verbatim probe)"}],
    }
    (dest / ".claude-plugin").mkdir()
    (dest / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest), encoding="utf-8")
    return digests


def _debug_log(sandbox: Sandbox) -> str:
    logs = sorted((sandbox.home / ".claude" / "debug").glob("*.txt"))
    return "\n".join(path.read_text(encoding="utf-8", errors="replace") for path in logs)


def test_what_claude_code_runs_from_a_whole_plugin_was_on_the_consent_list(
        sandbox: Sandbox) -> None:
    require("claude")
    prepare_user_state(sandbox)
    marks = sandbox.root / "marks"
    marks.mkdir()
    lab = Lab(sandbox, sandbox.root / "packages" / NAME)
    digests = build_plugin(lab.package, marks)
    args = ("install", str(lab.package), "--harness", "claude_code", "--scope", "user")

    before = tree_bytes(sandbox.home)
    refused = run_uze(*args, cwd=sandbox.project)
    assert refused.returncode == 1 and "It will run:" in refused.stderr, refused.stderr
    listed = refused.stderr
    assert f"mcp inline: ${{CLAUDE_PLUGIN_ROOT}}/bin/server.sh; bin/server.sh " \
           f"{digests['bin/server.sh']}" in listed, listed
    assert f"lsp zz: ${{CLAUDE_PLUGIN_ROOT}}/bin/lsp.sh; bin/lsp.sh {digests['bin/lsp.sh']}" \
        in listed, listed
    assert f"monitor watch: ${{CLAUDE_PLUGIN_ROOT}}/bin/watch.sh; bin/watch.sh " \
           f"{digests['bin/watch.sh']}" in listed, listed
    assert "bin bin/lsp.sh: on the PATH of Claude Code's Bash tool" in listed, listed
    assert tree_bytes(sandbox.home) == before

    lab.uze(*args, "--trust")
    seen = probes.claude_mcp(lab.run("claude", *probes.CLAUDE_MCP).stdout)
    server = f"plugin:{NAME}:inline"
    assert server in seen.connected, seen
    assert (marks / "server").exists(), "Claude Code connected a server whose script never ran"

    lab.run("claude", "--debug", *probes.CLAUDE_CONTEXT)
    log = _debug_log(sandbox)
    assert f"Loaded 1 LSP server(s) from plugin: {NAME}" in log, log[-3000:]
