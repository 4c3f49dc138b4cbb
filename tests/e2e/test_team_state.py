"""Machine-local state stays out of git (issue 30 item 8, adr/0061): uze writes `.uze/.gitignore`
(`*`) when it creates `.uze/`, touches no other `.gitignore`, and takes it away with the last
package so install + uninstall leaves the project as it was."""

from __future__ import annotations

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, assert_ok
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
