"""Hostile input, second round (issue 28 item 2): what runs is what the question showed.

On a terminal, install lists what the package runs with digests and asks. An attacker who can
write the package folder swaps a script while the question waits: the yes accepts the digest
that was shown, so the swapped bytes are asked for again, never installed under the first
answer; what is finally stored, delivered and recorded is what the accepted question showed.
The real `uze` runs on a pseudo-terminal in the sandbox's temporary HOME and project.
"""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.helpers import build_tree, run_uze, tree_bytes
from uze.projections.digest import content_digest

pytestmark = pytest.mark.e2e
CLAUDE = ("--harness", "claude_code")


def _trees(sandbox: Sandbox) -> tuple[object, object, object]:
    return tree_bytes(sandbox.project), tree_bytes(sandbox.home), tree_bytes(sandbox.uze_home)


def _digest(text: str) -> str:
    return f"blake3:{content_digest(text.encode())[:16]}"


Answer = Callable[[int], str]


def _on_terminal(args: list[str], cwd: Path, answer: Answer,
                 env: dict[str, str] | None = None) -> tuple[int, str, int]:
    """Run uze on a pseudo-terminal; at the n-th question call answer(n) and type what it
    returns. Returns the exit code, the screen and the number of questions asked."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "uze", *args], cwd=cwd, env=env,
                               stdin=follower, stdout=follower, stderr=follower, close_fds=True)
    os.close(follower)
    seen, asked, deadline = b"", 0, time.monotonic() + 90
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                seen += os.read(leader, 4096)
            except OSError:
                break
        if seen.count(b"[y/N]") > asked:
            asked += 1
            os.write(leader, answer(asked).encode() + b"\n")
        if process.poll() is not None and not ready:
            break
    os.close(leader)
    return process.wait(timeout=30), seen.decode(errors="replace"), asked


SERVER = {"mcpServers": {"docs": {"command": "${PLUGIN_ROOT}/server.sh"}}}
GOOD, SWAPPED = "#!/bin/sh\nexec echo good\n", "#!/bin/sh\ntouch /tmp/uze-pwned\n"


def test_a_script_swapped_while_the_question_waits_is_asked_for_again_never_installed(
        sandbox: Sandbox) -> None:
    pkg = build_tree(sandbox.root / "pkg", {
        "plugin.json": json.dumps({"name": "swap", "version": "1.0.0"}),
        "mcp.json": json.dumps(SERVER), "server.sh": GOOD})
    before = _trees(sandbox)

    def swap_then_accept(question: int) -> str:
        if question == 1:  # the user reads the list (GOOD's digest); the attacker swaps
            (pkg / "server.sh").write_text(SWAPPED)
            return "y"
        return "n"  # asked again, showing the swapped digest: the user declines

    code, screen, asked = _on_terminal(["install", str(pkg), *CLAUDE], sandbox.project,
                                       swap_then_accept)
    assert asked == 2, screen
    first, second = screen.split("[y/N]")[:2]
    assert f"server.sh {_digest(GOOD)}" in first
    assert f"server.sh {_digest(SWAPPED)}" in second and "changed" in second
    assert code == 1 and "declined" in screen
    assert _trees(sandbox) == before


def test_what_is_accepted_at_the_question_is_what_is_stored_delivered_and_recorded(
        sandbox: Sandbox) -> None:
    pkg = build_tree(sandbox.root / "pkg", {
        "plugin.json": json.dumps({"name": "swap", "version": "1.0.0"}),
        "mcp.json": json.dumps(SERVER), "server.sh": GOOD})

    def swap_then_accept_again(question: int) -> str:
        if question == 1:
            (pkg / "server.sh").write_text(SWAPPED)
        return "y"

    code, screen, asked = _on_terminal(["install", str(pkg), *CLAUDE], sandbox.project,
                                       swap_then_accept_again)
    assert code == 0 and asked == 2, screen
    copy = sandbox.project / ".uze" / "packages" / "swap" / "server.sh"
    assert copy.read_text() == SWAPPED  # the bytes the second, accepted question showed
    consent = next((sandbox.uze_home / "consent").rglob("*.json"))
    assert _digest(SWAPPED) in consent.read_text()


def test_one_yes_accepts_one_package_a_converge_shows_every_package_it_installs(
        sandbox: Sandbox) -> None:
    """A teammate's `uze install` installs each declared package: a yes to the first one's
    list must not let the next one run unseen."""
    for name in ("first", "second"):
        build_tree(sandbox.project / "pkgs" / name, {
            "plugin.json": json.dumps({"name": name, "version": "1.0.0"}),
            "mcp.json": json.dumps({"mcpServers": {f"{name}-srv": {
                "command": "${PLUGIN_ROOT}/server.sh"}}}),
            "server.sh": f"#!/bin/sh\nexec echo {name}\n"})
        done = run_uze("install", f"./pkgs/{name}", *CLAUDE, "--trust", cwd=sandbox.project)
        assert done.returncode == 0, done.stderr
    for entry in sandbox.project.iterdir():  # a fresh clone: the pair and the packages
        if entry.name not in (".git", "pkgs", "uze.toml", "uze.lock"):
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    home = sandbox.root / "teammate"
    env = {**os.environ, "HOME": str(home), "UZE_HOME": str(home / "uze"),
           "XDG_CONFIG_HOME": str(home / ".config")}
    code, screen, _asked = _on_terminal(["install"], sandbox.project, lambda _n: "y", env)
    assert code == 0, screen
    for name in ("first", "second"):
        assert f"mcp {name}-srv: ${{PLUGIN_ROOT}}/server.sh" in screen, screen
