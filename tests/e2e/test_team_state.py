"""Machine-local state stays out of git (issue 30 item 8, adr/0061): uze writes `.uze/.gitignore`
(`*`) when it creates `.uze/`, touches no other `.gitignore`, and takes it away with the last
package so install + uninstall leaves the project as it was."""

from __future__ import annotations

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, as_json, assert_ok
from tests.gitserve import git
from tests.helpers import DATA, build_tree, tree_bytes

pytestmark = pytest.mark.e2e
MINIMAL = str(DATA / "minimal")


def test_uze_keeps_its_own_folder_out_of_git_and_leaves_the_users_gitignore(
        uze: Uze, sandbox: Sandbox) -> None:
    project = sandbox.project
    (project / ".git").rmdir()
    git("init", "-q", ".", cwd=project)
    build_tree(project, {".gitignore": "node_modules/\n"})
    before = tree_bytes(project)
    assert_ok(uze("install", MINIMAL, "--harness", "claude_code"))
    assert (project / ".uze" / ".gitignore").read_bytes() == b"*\n"
    assert (project / ".gitignore").read_bytes() == b"node_modules/\n"
    untracked = git("status", "--porcelain", "--untracked-files=all", cwd=project).splitlines()
    assert untracked and not [line for line in untracked if ".uze/" in line], untracked
    assert "?? uze.toml" in untracked and "?? uze.lock" in untracked
    assert_ok(uze("uninstall", "minimal"))
    assert tree_bytes(project) == before


def test_a_uze_folder_the_user_made_gets_no_gitignore(uze: Uze, sandbox: Sandbox) -> None:
    project = sandbox.project
    build_tree(project, {".uze/notes.txt": "mine\n"})
    before = tree_bytes(project)
    assert_ok(uze("install", MINIMAL, "--harness", "claude_code"))
    assert not (project / ".uze" / ".gitignore").exists()
    assert_ok(uze("uninstall", "minimal"))
    assert tree_bytes(project) == before


def test_a_lock_naming_a_harness_this_uze_does_not_know_installs_the_rest(
        uze: Uze, sandbox: Sandbox) -> None:
    """Issue 30 item 9: a harness id is an opaque string; one this version does not know (a
    newer uze's) is skipped with a note naming it, and kept in the lock."""
    project = sandbox.project
    build_tree(project, {
        "plugins/flow/plugin.json": '{"name": "flow", "version": "1.0.0"}\n',
        "plugins/flow/skills/one/SKILL.md": "---\nname: one\ndescription: One.\n---\nflow\n",
        "plugins/later/plugin.json": '{"name": "later", "version": "1.0.0"}\n',
        "plugins/later/skills/one/SKILL.md": "---\nname: one\ndescription: One.\n---\nlater\n"})
    for name in ("flow", "later"):
        assert_ok(uze("install", f"./plugins/{name}", "--harness", "claude_code"))
    lock = project / "uze.lock"
    text = lock.read_text()
    flow, later = text.split("[[package]]")[1:]
    lock.write_text(text.replace(flow, flow.replace('["claude_code"]', '["claude_code", "zed_ai"]'))
                    .replace(later, later.replace('["claude_code"]', '["zed_ai"]')))
    written = lock.read_bytes()
    for name in ("flow", "later"):
        assert_ok(uze("uninstall", name))
    lock.write_bytes(written)
    build_tree(project, {"uze.toml": '[packages]\nflow = "./plugins/flow"\n'
                                     'later = "./plugins/later"\n'})

    done = uze("install")
    assert done.returncode == 0, done.stderr
    assert "uze.lock pins flow, later for harness zed_ai, which this uze does not know" \
        in done.stderr
    assert (project / ".claude/skills/flow/skills/one/SKILL.md").is_file()
    assert not (project / ".claude/skills/later").exists()
    assert lock.read_bytes() == written
    assert_ok(uze("status", "--check"))
    listed = as_json(assert_ok(uze("status", "--json")))["declared"]
    assert {d["name"]: d["state"] for d in listed} == {"flow": "installed",
                                                       "later": "unknown harness"}
    again = uze("install", "--frozen")
    assert again.returncode == 0 and "zed_ai" in again.stderr
    assert lock.read_bytes() == written
