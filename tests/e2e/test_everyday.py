"""Issue 23, everyday use: the status a person reads at a glance, clean pipes, conventional
help, shell completion, colour switches. Every case runs the real `uze` in a subprocess."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import EVERY_KIND, THE_SEVEN, Uze, assert_ok, copy_package
from tests.e2e.test_status import validate_status
from tests.helpers import REPO, SEVEN, build_tree, run_uze
from uze.harnesses import REGISTRY
from uze.ui.progress_view import DELAY

pytestmark = pytest.mark.e2e

HEADERS = tuple(REGISTRY[h].column or h for h in SEVEN)  # claude, codex, ..., deepseek


def _rows(text: str) -> dict[str, list[str]]:
    """package -> [version, mark per harness column] from the glance table (project scope);
    the source column, shown when the terminal has room for it, is checked to name the package's
    folder and left out."""
    lines = text.splitlines()
    header = lines[0].split()
    sourced = header[-1:] == ["source"]
    assert header[: len(header) - sourced] == ["package", "version", *HEADERS], lines[0]
    rows = {}
    for line in lines[1:]:
        if not line.strip() or line.lstrip()[0].isdigit():  # the footer: "N projections ..."
            break
        name, *cells = line.split()
        assert len(cells) == 1 + len(HEADERS) + sourced, line
        if sourced:
            source = cells.pop()
            assert source.endswith(name) or "…" in source, line
        rows[name] = cells
    return rows


def _twenty_packages(sandbox: Sandbox, uze: Uze) -> None:
    """19 renamed copies of every-kind (skills, agents, MCP, hooks) and one MCP-only package
    (DeepSeek Harness takes no MCP server: an unsupported cell), all in every harness."""
    sources = [copy_package(EVERY_KIND, sandbox.root / "packages" / f"pkg-{i:02}", f"pkg-{i:02}")
               for i in range(1, 20)]
    sources.append(build_tree(sandbox.root / "packages" / "only-mcp", {
        "plugin.json": '{"name": "only-mcp", "version": "2.0.0"}\n',
        "mcp.json": '{"mcpServers": {"lookup": {"url": "https://lookup.example.com/mcp", '
                    '"type": "http"}}}\n',
    }))
    for source in sources:
        assert_ok(uze("install", source, *THE_SEVEN, "--trust", "--json"))


def test_status_at_a_glance_for_twenty_packages_then_pipes(sandbox: Sandbox, uze: Uze) -> None:
    _twenty_packages(sandbox, uze)
    (sandbox.project / ".claude/skills/pkg-03/skills/review/SKILL.md").write_text("my edit\n")
    document = json.loads(assert_ok(uze("status", "--json")).stdout)
    validate_status(document, sandbox.project)  # the document keeps its shape

    glance = assert_ok(uze("status")).stdout
    lines = glance.splitlines()
    assert len(lines) <= 60, glance
    rows = _rows(glance)
    assert sorted(rows) == sorted([f"pkg-{i:02}" for i in range(1, 20)] + ["only-mcp"])
    # every-kind is delivered degraded somewhere in each harness; DeepSeek gets no MCP server
    assert rows["only-mcp"][0] == "2.0.0"
    assert rows["only-mcp"][1 + HEADERS.index("deepseek")] == "-"
    assert rows["only-mcp"][1 + HEADERS.index("claude")] == "✓"
    # the edited skill is in Claude Code's plugin folder for pkg-03 (adr/0048): that skill
    # alone reads as drifted (adr/0065); OpenCode has its own copy
    assert rows["pkg-03"][1 + HEADERS.index("claude")] == "✓!"
    assert rows["pkg-03"][1 + HEADERS.index("opencode")] == "~"
    assert rows["pkg-04"][1 + HEADERS.index("claude")] == "✓"
    # Codex hooks: delivered, but Codex runs them only once trusted
    assert rows["pkg-04"][1 + HEADERS.index("codex")].endswith("?")
    matched = sum(p["state"] == "matched" for package in document["packages"]
                  for p in package["projections"])
    assert f"{matched} projections in place; 1 drifted in pkg-03 (skill review);" in glance
    # one line per artifact or part, its edited files, and a fix that names no folder (issue 30)
    assert "  pkg-03: drifted skill review in claude_code" in lines
    assert "    .claude/skills/pkg-03/skills/review/SKILL.md (edited)" in lines
    assert ("    fix: `uze install --force` puts the locked bytes back (the edits are lost); "
            "`uze uninstall pkg-03` keeps the edited copies") in lines
    assert ("  38 Codex hooks wait for trust (pkg-01, pkg-02, pkg-03 and 16 more); Codex skips "
            "them until trusted") in lines
    assert f"fix: run `codex` in {sandbox.project}, open /hooks and trust them" in glance

    # on an 80-column terminal too: nothing wider, nothing longer, every row whole
    narrow = assert_ok(uze("--color", "never", "status",
                           env={**os.environ, "FORCE_COLOR": "1", "COLUMNS": "80"})).stdout
    assert len(narrow.splitlines()) <= 60 and max(map(len, narrow.splitlines())) <= 80, narrow
    assert _rows(narrow) == rows

    # `uze status NAME` keeps the full table, one row per projection
    full = assert_ok(uze("status", "pkg-03")).stdout
    assert "drifted" in full and ".claude/skills/pkg-03" in full
    assert "pkg-04" not in full

    # once Codex holds a trust record for the hook file, nothing waits
    codex = sandbox.home / ".codex"
    codex.mkdir()
    key = f"{sandbox.project / '.codex/hooks.json'}:pre_tool_use:0:0"
    (codex / "config.toml").write_text(f'[hooks.state."{key}"]\ntrusted_hash = "sha256:ab"\n')
    trusted = assert_ok(uze("status")).stdout
    assert "wait for trust" not in trusted
    assert not _rows(trusted)["pkg-04"][1 + HEADERS.index("codex")].endswith("?")

    # a reader that stops early is not an error: exit 0, nothing on stderr
    for line in ("status --json | head -1", "status | head -1", "status pkg-03 | true",
                 "status --json | true"):
        done = subprocess.run(["bash", "-o", "pipefail", "-c", f"{sys.executable} -m uze {line}"],
                              cwd=sandbox.project, capture_output=True, text=True, timeout=120,
                              check=False)
        assert (done.returncode, done.stderr) == (0, ""), line


def test_help_shows_values_as_click_users_expect(uze: Uze) -> None:
    top = assert_ok(uze("--help")).stdout
    commands = re.findall(r"^│ (\w+)\s{2,}", top.split("Commands")[1], re.MULTILINE)
    assert {"install", "uninstall", "status", "check", "list", "doctor", "store"} <= set(commands)
    assert "--color" in top and "[auto|always|never]" in top
    for command in commands:
        text = assert_ok(uze(command, "--help")).stdout
        assert re.search(r"<(bool|str|path|int)>", text) is None, (command, text)
    install = assert_ok(uze("install", "--help")).stdout
    assert "Usage: uze install [OPTIONS] [SOURCE]" in install  # none: uze.toml + uze.lock
    assert re.search(r"--project\s+PATH", install) and re.search(r"--scope\s+TEXT", install)
    assert re.search(r"--dry-run\s+Print the plan", install)
    assert "Usage: uze status [OPTIONS] [NAME]" in assert_ok(uze("status", "--help")).stdout


def test_completion_installs_into_a_temporary_home_and_completes(sandbox: Sandbox) -> None:
    env = {**os.environ, "SHELL": "/bin/bash"}
    done = subprocess.run(["bash", "-c", f"{sys.executable} -m uze --install-completion; true"],
                          cwd=sandbox.project, env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert "bash completion installed" in done.stdout, (done.stdout, done.stderr)
    bashrc = (sandbox.home / ".bashrc").read_text()
    script = next((sandbox.home / ".bash_completions").glob("uze*"))
    assert str(script.name) in bashrc or str(script) in bashrc
    assert "_UZE_COMPLETE" in script.read_text()
    completed = run_uze(cwd=sandbox.project, env={
        **os.environ, "_UZE_COMPLETE": "complete_bash", "COMP_WORDS": "uze sta",
        "COMP_CWORD": "1"})
    assert completed.returncode == 0 and completed.stdout.split() == ["status"], completed


@pytest.mark.parametrize("path", ["fast", "full"])
def test_color_switch_and_no_color(sandbox: Sandbox, uze: Uze, path: str) -> None:
    assert_ok(uze("install", EVERY_KIND, "--harness", "claude_code", "--trust"))
    (sandbox.project / ".claude/skills/every-kind/skills/review/SKILL.md").write_text("edit\n")
    colour = re.compile(r"\x1b\[[0-9;]*3[0-7]m|\x1b\[[0-9;]*9[0-7]m")

    def run(*args: str, **env: str) -> str:
        argv = ["-m", "uze"] if path == "fast" else [
            "-c", "import sys; sys.argv[0] = 'uze'; from uze.cli import full_main; full_main()"]
        clean = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
        done = subprocess.run([sys.executable, *argv, *args], cwd=sandbox.project,
                              env={**clean, **env, "PYTHONPATH": str(REPO)}, capture_output=True,
                              text=True, timeout=120, check=False)
        assert (done.returncode, done.stderr) == (0, ""), done
        return done.stdout

    assert not colour.search(run("status"))  # piped: plain
    assert colour.search(run("--color", "always", "status"))
    assert colour.search(run("--color=always", "status", "every-kind", NO_COLOR="1"))
    assert not colour.search(run("status", FORCE_COLOR="1", NO_COLOR="1"))
    assert colour.search(run("status", FORCE_COLOR="1"))
    assert not colour.search(run("--color", "never", "status", FORCE_COLOR="1"))


def test_a_bad_color_is_a_usage_error_with_a_hint(uze: Uze) -> None:
    done = uze("--color", "sometimes", "status")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[-1].startswith("hint: ")
    assert "'sometimes' is not one of auto, always, never" in done.stderr


def _on_terminal(args: tuple[str, ...], cwd: Path) -> tuple[int, str, str]:
    """Run uze with stdin and stderr on a pseudo-terminal, stdout on a pipe: (exit code, what
    the terminal showed, stdout)."""
    import pty

    master, slave = pty.openpty()
    child = subprocess.Popen([sys.executable, "-m", "uze", *args], cwd=cwd, stdin=slave,
                             stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every writer closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    assert child.stdout is not None
    out = child.stdout.read().decode()
    return child.wait(timeout=120), shown.decode(errors="replace"), out


def test_long_work_shows_progress_on_a_terminal_only(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Install and uninstall of a 600-file package draw their steps on a terminal once the
    delay has passed (0 here, so the test does not depend on this machine's speed); nothing of
    it with --json or off a terminal."""
    monkeypatch.setenv("UZE_PROGRESS_DELAY", "0")
    files = {f"skills/bulk/f{i:04}.txt": f"line {i}\n" * 40 for i in range(600)}
    big = build_tree(sandbox.root / "big", {
        "plugin.json": '{"name": "big", "version": "1.0.0"}\n',
        "skills/bulk/SKILL.md": "---\nname: bulk\ndescription: many files\n---\nbody\n",
        **files})
    install = ("install", str(big), *THE_SEVEN)

    code, shown, out = _on_terminal(install, sandbox.project)
    assert code == 0 and out.startswith("Installed big 1.0.0")
    assert re.search(r"writing big for 7 harnesses|making \d+ writes durable \(sync\)", shown)
    assert "Installed" not in shown  # the view is on stdout; the terminal had the progress

    code, shown, out = _on_terminal(("uninstall", "big", "--json"), sandbox.project)
    assert (code, shown) == (0, "") and json.loads(out)["name"] == "big"
    code, shown, out = _on_terminal((*install, "--json"), sandbox.project)
    assert (code, shown) == (0, "") and json.loads(out)["package"]["name"] == "big"

    off = run_uze("uninstall", "big", cwd=sandbox.project)
    assert (off.returncode, off.stderr) == (0, "") and off.stdout.startswith("Uninstalled big")
    off = run_uze(*install, cwd=sandbox.project)
    assert (off.returncode, off.stderr) == (0, "") and off.stdout.startswith("Installed big")

    code, shown, out = _on_terminal(("uninstall", "big"), sandbox.project)
    assert code == 0 and out.startswith("Uninstalled big")
    assert re.search(r"removing big|making \d+ changes durable \(sync\)", shown)


@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_work_shorter_than_the_delay_draws_nothing_on_a_terminal(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """Nothing is drawn before the delay: with a delay longer than any test run, an install and
    an uninstall on a terminal show nothing there, and a nonsense delay falls back to DELAY."""
    args = ("install", str(EVERY_KIND), "--harness", "claude_code", "--trust")
    if command == "uninstall":
        assert run_uze(*args, cwd=sandbox.project).returncode == 0
        args = ("uninstall", "every-kind")
    monkeypatch.setenv("UZE_PROGRESS_DELAY", "600")
    code, shown, out = _on_terminal(args, sandbox.project)
    assert code == 0 and out.split()[0] in ("Installed", "Uninstalled") and shown == ""


def test_the_progress_delay_setting_takes_only_a_sane_number_of_seconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from uze.ui.progress_view import _delay

    for value, delay in (("0", 0.0), ("2.5", 2.5), ("abc", DELAY), ("nan", DELAY),
                         ("-1", DELAY), ("1e9", DELAY)):
        monkeypatch.setenv("UZE_PROGRESS_DELAY", value)
        assert _delay() == delay, value
