"""Committed edits (issue 30 item 5, adr/0064), with real git and two users.

Alice installs a package, edits a delivered file and commits it. Zoe clones: she has no
receipt, and the committed bytes are not the locked package's. `uze install` keeps them, adopts
the file as edited (status shows it drifted), names it, exits 0; `uze install --force` puts the
locked bytes back and names each file it overwrote. In a package that runs something, an edited
file is named as not covered by Zoe's consent and her receipt lists it until `--force`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, as_json, assert_ok
from tests.gitserve import Repo, git
from tests.helpers import build_tree

pytestmark = pytest.mark.e2e
CODEX = ("--harness", "codex")
SKILL = ".agents/skills/notes-tips/SKILL.md"


def _user(sandbox: Sandbox, name: str) -> dict[str, str]:
    home = sandbox.root / name / "home"
    home.mkdir(parents=True)
    return {**os.environ, "HOME": str(home), "UZE_HOME": str(sandbox.root / name / "uze"),
            "XDG_CONFIG_HOME": str(home / ".config")}


def _package(project: Path, *, runs: bool) -> None:
    files = {"plugins/notes/plugin.json": '{"name": "notes", "version": "1.0.0"}\n',
             "plugins/notes/skills/tips/SKILL.md":
                 "---\nname: tips\ndescription: Tips.\n---\nThe tips.\n"}
    if runs:
        files |= {"plugins/notes/mcp.json": json.dumps({"mcpServers": {"tool": {
                      "command": "python3", "args": ["${PLUGIN_ROOT}/server.py"]}}}),
                  "plugins/notes/server.py": "print('served')\n"}
    build_tree(project, files)


def _commit(project: Path, message: str) -> None:
    git("add", "-A", cwd=project)
    git("commit", "-q", "-m", message, cwd=project)


def _clone_with_edit(uze: Uze, sandbox: Sandbox, *, runs: bool,
                     edits: dict[str, tuple[str, str]],
                     harness: tuple[str, ...] = CODEX) -> tuple[Path, dict[str, str]]:
    """Alice's project with `edits` (file -> (old text, new text)) committed; Zoe's clone."""
    project = sandbox.project
    git("init", "-q", cwd=project)
    (project / ".gitignore").write_text(".uze/\n")
    _package(project, runs=runs)
    assert_ok(uze("install", "./plugins/notes", *harness, "--trust"))
    _commit(project, "notes")
    for rel, (old, new) in edits.items():
        text = (project / rel).read_text()
        assert old in text
        (project / rel).write_text(text.replace(old, new))
    _commit(project, "our own tips")
    clone = sandbox.root / "zoe-clone"
    git("clone", "-q", project, clone, cwd=sandbox.root)
    return clone, _user(sandbox, "zoe")


def _states(uze: Uze, clone: Path, zoe: dict[str, str]) -> dict[str, str]:
    found = as_json(uze("status", "--json", cwd=clone, env=zoe))
    (package,) = found["packages"]
    return {p["target"]: p["state"] for p in package["projections"]}


def _receipt(clone: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((clone / ".uze/receipts/notes.json").read_text())
    return data


def test_a_committed_edit_is_kept_adopted_and_named_and_force_puts_the_locked_bytes_back(
        uze: Uze, sandbox: Sandbox) -> None:
    clone, zoe = _clone_with_edit(uze, sandbox, runs=False,
                                  edits={SKILL: ("The tips.", "Our team's tips.")})
    committed = (clone / SKILL).read_bytes()
    assert b"Our team's tips." in committed

    done = uze("install", cwd=clone, env=zoe)
    assert done.returncode == 0, done.stderr
    assert f"\n  {SKILL}: a committed edit (not as the locked package has it); " \
        "kept and adopted as edited" in done.stdout  # the file, not the folder holding it
    assert f"  {SKILL.rsplit('/', 1)[0]}:" not in done.stdout
    assert (clone / SKILL).read_bytes() == committed
    assert _states(uze, clone, zoe) == {".agents/skills/notes-tips": "drifted"}
    assert "unconsented" not in _receipt(clone)
    assert git("status", "--porcelain", cwd=clone) == ""
    again = uze("install", cwd=clone, env=zoe)  # kept edits are the user's: nothing to do
    assert again.returncode == 0, again.stderr
    assert "notes 1.0.0: already installed" in again.stdout
    assert f"\n  {SKILL}: edited; kept\n" in again.stdout

    forced = uze("install", "--force", cwd=clone, env=zoe)
    assert forced.returncode == 0, forced.stderr
    assert f"\n  {SKILL}: drifted; replaced (--force)\n" in forced.stdout
    assert b"The tips." in (clone / SKILL).read_bytes()
    assert _states(uze, clone, zoe) == {".agents/skills/notes-tips": "matched"}
    assert git("status", "--porcelain", cwd=clone) == f"M {SKILL}"


def test_force_on_the_first_install_of_a_clone_names_each_file_it_overwrote(
        uze: Uze, sandbox: Sandbox) -> None:
    clone, zoe = _clone_with_edit(uze, sandbox, runs=False,
                                  edits={SKILL: ("The tips.", "Our team's tips.")})
    forced = uze("install", "--force", cwd=clone, env=zoe)
    assert forced.returncode == 0, forced.stderr
    assert f"\n  {SKILL}: a committed edit; overwritten with the locked bytes (--force)\n" \
        in forced.stdout  # each file it overwrote, not the folder
    assert b"The tips." in (clone / SKILL).read_bytes()
    assert _states(uze, clone, zoe) == {".agents/skills/notes-tips": "matched"}


@pytest.mark.parametrize("force", [False, True])
def test_the_first_install_of_a_clone_names_the_edited_file_inside_a_claude_plugin_folder(
        uze: Uze, sandbox: Sandbox, force: bool) -> None:
    skill = ".claude/skills/notes/skills/tips/SKILL.md"  # one part of the plugin folder
    clone, zoe = _clone_with_edit(uze, sandbox, runs=False, harness=("--harness", "claude_code"),
                                  edits={skill: ("The tips.", "Our team's tips.")})
    done = uze("install", *(["--force"] if force else []), cwd=clone, env=zoe)
    assert done.returncode == 0, done.stderr
    what = ("a committed edit; overwritten with the locked bytes (--force)" if force else
            "a committed edit (not as the locked package has it); kept and adopted as edited")
    assert f"\n  {skill}: {what}" in done.stdout
    assert ".claude/skills/notes:" not in done.stdout  # not the plugin folder
    assert ((clone / skill).read_text().endswith("The tips.\n")) == force
    states = _states(uze, clone, zoe)
    assert states[".claude/skills/notes/skills/tips"] == ("matched" if force else "drifted")


def test_an_edited_server_command_is_named_as_not_covered_by_this_users_consent(
        uze: Uze, sandbox: Sandbox) -> None:
    config = ".codex/config.toml"
    clone, zoe = _clone_with_edit(uze, sandbox, runs=True,
                                  edits={config: ('command = "python3"', 'command = "sh"')})
    refused = uze("install", cwd=clone, env=zoe)  # no terminal: Zoe has not accepted anything
    assert refused.returncode == 1
    assert "not installed without your consent" in refused.stderr
    done = uze("install", "--trust", cwd=clone, env=zoe)
    assert done.returncode == 0, done.stderr
    key = f"{config}#mcp_servers.tool"
    assert f"  {key}: a committed edit of a package that runs something: NOT covered by your " \
        "consent; kept" in done.stdout
    assert 'command = "sh"' in (clone / config).read_text()
    assert _states(uze, clone, zoe)[key] == "drifted"
    assert _receipt(clone)["unconsented"] == [key]
    again = uze("install", cwd=clone, env=zoe)
    assert f"  {key}: a committed edit of a package that runs something: NOT covered" \
        in again.stdout

    forced = uze("install", "--force", cwd=clone, env=zoe)
    assert forced.returncode == 0, forced.stderr
    assert f"  {key}: drifted; replaced (--force)" in forced.stdout
    assert 'command = "python3"' in (clone / config).read_text()
    assert "unconsented" not in _receipt(clone)
    assert _states(uze, clone, zoe)[key] == "matched"


def test_update_names_each_kept_edit_and_its_new_version_and_uninstall_reports_it(
        uze: Uze, sandbox: Sandbox) -> None:
    repo = Repo(sandbox.root / "served" / "notes.git")
    package = {"plugin.json": '{"name": "notes", "version": "1.0.0"}\n',
               "skills/tips/SKILL.md": "---\nname: tips\ndescription: Tips.\n---\nThe tips.\n"}
    repo.commit(package)
    assert_ok(uze("install", f"git+{repo.url}", *CODEX))
    skill = sandbox.project / SKILL
    skill.write_text(skill.read_text().replace("The tips.", "My own tips."))
    repo.commit({"plugin.json": '{"name": "notes", "version": "1.1.0"}\n',
                 "skills/tips/SKILL.md": "---\nname: tips\ndescription: Tips.\n---\nNew tips.\n"})

    done = uze("update")
    assert done.returncode == 0, done.stderr
    assert "notes: 1.0.0 -> 1.1.0" in done.stdout
    assert (f"  .agents/skills/notes-tips: your edit kept; the new version is in "
            f"{SKILL}.uze-new") in done.stdout
    assert "My own tips." in skill.read_text()
    assert "New tips." in (sandbox.project / f"{SKILL}.uze-new").read_text()

    removed = uze("uninstall", "notes")
    assert removed.returncode == 0, removed.stderr
    assert (f"kept {SKILL}.uze-new: the new version an update left beside your edit; kept (it "
            "is yours)\n") in removed.stdout
    assert (sandbox.project / f"{SKILL}.uze-new").exists()
