"""Everyday sharp edges (issue 30 item 11, adr/0066): `uze` alone prints its help once; a typo
in a package name or harness id gets the closest name; `claude` and `gemini` stand for their
harnesses; outside a project uze says which folder it uses and never takes the home folder
unless `--project` names it; Ctrl-C says whether anything was written and exits 130."""

from __future__ import annotations

import os
import pty
import select
import signal
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import EVERY_KIND, HARNESSES, Uze, as_json, assert_ok, snapshot
from tests.helpers import DATA

pytestmark = pytest.mark.e2e


def test_uze_alone_prints_its_help_once(uze: Uze) -> None:
    result = uze()
    assert result.returncode == 2
    assert result.stdout.count("Usage: uze") == 1, result.stdout
    assert "install" in result.stdout and result.stderr == ""
    group = uze("marketplace")
    assert group.stdout.count("Usage: uze marketplace") == 1, group.stdout


@pytest.mark.parametrize(("alias", "harness"), [("claude", "claude_code"),
                                                ("gemini", "gemini_cli")])
def test_the_name_of_a_harness_binary_stands_for_its_id(
    uze: Uze, alias: str, harness: str
) -> None:
    document = as_json(assert_ok(uze("install", EVERY_KIND, "--harness", f"codex,{alias}",
                                     "--trust", "--json")))
    assert sorted(document["harnesses"]) == sorted([harness, "codex"])
    status = as_json(assert_ok(uze("status", "every-kind", "--json")))
    assert {p["harness"] for p in status["packages"][0]["projections"]} == {harness, "codex"}


def test_a_mistyped_harness_id_gets_the_closest_one_and_nothing_is_written(
    sandbox: Sandbox, uze: Uze
) -> None:
    before = snapshot(sandbox)
    result = uze("install", EVERY_KIND, "--harness", "claude_cod,codex", "--trust")
    assert result.returncode == 2
    assert result.stderr.splitlines()[0] == "uze: error: unknown harness 'claude_cod'"
    assert result.stderr.splitlines()[1].startswith("hint: did you mean 'claude_code'? ")
    assert snapshot(sandbox) == before


@pytest.mark.parametrize("command", [("uninstall", "every-knd"), ("status", "every-knd")])
def test_a_mistyped_package_name_gets_the_installed_one(
    sandbox: Sandbox, uze: Uze, command: tuple[str, ...]
) -> None:
    assert_ok(uze("install", EVERY_KIND, *HARNESSES))
    before = snapshot(sandbox)
    result = uze(*command)
    assert result.returncode == 1
    assert "uze: error: package 'every-knd' is not installed" in result.stderr
    assert "hint: did you mean 'every-kind'? run `uze list`" in result.stderr
    assert snapshot(sandbox) == before


def test_outside_a_project_uze_names_the_folder_it_uses(sandbox: Sandbox, uze: Uze) -> None:
    plain = sandbox.root / "plain"
    plain.mkdir()
    result = uze("install", DATA / "minimal", "--harness", "codex", "--json", cwd=plain)
    assert result.returncode == 0, result.stderr
    assert result.stderr == (f"note: no .git or .uze/ in {plain} or above it: using {plain} as "
                             "the project (--project DIR names another)\n")
    assert as_json(result)["project"] == str(plain)
    assert (plain / ".uze" / "receipts" / "minimal.json").is_file()
    again = uze("uninstall", "minimal", cwd=plain)  # .uze/ marks it now: no note
    assert again.returncode == 0 and "note:" not in again.stderr


def test_the_home_folder_is_a_project_only_when_project_names_it(
    sandbox: Sandbox, uze: Uze
) -> None:
    before = snapshot(sandbox)
    refused = uze("install", DATA / "minimal", "--harness", "codex", cwd=sandbox.home)
    assert refused.returncode == 1
    assert refused.stderr.startswith(f"uze: error: {sandbox.home} is your home folder: uze does "
                                     "not use it as a project unless --project names it")
    assert f"--project {sandbox.home}" in refused.stderr.splitlines()[-1]
    assert snapshot(sandbox) == before
    inside = sandbox.home / "notes"  # a folder of a home that is a git repository
    (sandbox.home / ".git").mkdir()
    inside.mkdir()
    assert uze("install", DATA / "minimal", "--harness", "codex", cwd=inside).returncode == 1
    named = uze("install", DATA / "minimal", "--harness", "codex", "--project", sandbox.home,
                cwd=inside)
    assert named.returncode == 0, named.stderr
    assert (sandbox.home / ".uze" / "receipts" / "minimal.json").is_file()
    # that project's skill root is the user scope's own (~/.agents/skills): give it back first
    assert uze("uninstall", "minimal", "--project", sandbox.home, cwd=inside).returncode == 0
    user = uze("install", DATA / "minimal", "--harness", "codex", "--scope", "user", cwd=inside)
    assert user.returncode == 0, user.stderr


def _reading(pid: int) -> None:
    """Wait (up to 10 s) until `pid` waits in read(2) on its stdin, as a person's keystroke
    finds it. A Ctrl-C typed the moment the question appears, before `input()` has entered
    read(2), would only set Python's signal flag, and read(2) would then wait for a line no
    one types. Elsewhere than Linux, /proc is not there: a short pause instead."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            call = Path(f"/proc/{pid}/syscall").read_text().split()
        except OSError:
            time.sleep(0.2)
            return
        if call[:2] == ["0", "0x0"]:  # read(0, ...)
            return
        time.sleep(0.01)


def _at_a_terminal(args: list[str], cwd: Path, answer: bytes, wait_for: bytes) -> tuple[int, str]:
    """Run uze in a pseudo-terminal; once `wait_for` is shown, type `answer`. Returns the exit
    code and everything shown."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: uze at a terminal, in the project
        # As a person's shell starts it: Ctrl-C interrupts. A test run started in the
        # background of a non-interactive shell (`cmd &`) inherits SIGINT ignored, and exec
        # keeps an ignored signal ignored: uze would never see the Ctrl-C.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.chdir(cwd)
        os.execvpe(sys.executable, [sys.executable, "-m", "uze", *args], dict(os.environ))
    shown, typed, deadline = b"", False, time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        shown += chunk
        if not typed and wait_for in shown:
            _reading(pid)
            os.write(fd, answer)
            typed = True
    else:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), shown.decode(errors="replace")


def test_ctrl_c_at_the_consent_question_says_nothing_was_written_and_exits_130(
    sandbox: Sandbox,
) -> None:
    before = snapshot(sandbox)
    code, shown = _at_a_terminal(["install", str(EVERY_KIND), "--harness", "claude_code"],
                                 sandbox.project, b"\x03", b"let it run these?")
    assert code == 130, shown
    assert "uze: interrupted (Ctrl-C): nothing was written" in " ".join(shown.split()), shown
    assert "Traceback" not in shown and "internal error" not in shown
    after = snapshot(sandbox)
    assert after["project"] == before["project"]
    assert after["home"] == before["home"]
