"""Invariant 1: with no user edits, install then uninstall restores project and HOME exactly."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import EVERY_KIND, HARNESSES, Uze, assert_ok, snapshot
from tests.helpers import build_tree

pytestmark = pytest.mark.e2e

USER_SKILL = "---\nname: other\ndescription: The user's own skill.\n---\nDo the user's thing.\n"

CASES = {
    "empty project": ("project", {}, {}),
    "AGENTS.md with CRLF lines and user text": (
        "project",
        {"AGENTS.md": b"# Team rules\r\n\r\nUse tabs, not spaces.\r\n"},
        {},
    ),
    "AGENTS.md with CRLF lines and no trailing newline": (
        "project",
        {"AGENTS.md": b"# Team rules\r\n\r\nUse tabs, not spaces."},
        {},
    ),
    "pre-existing CLAUDE.md": (
        "project",
        {"CLAUDE.md": b"# Claude\n\nAlways answer in English.\n"},
        {},
    ),
    "pre-existing user skill in .claude/skills": (
        "project",
        {".claude/skills/other/SKILL.md": USER_SKILL},
        {},
    ),
    "user scope, pre-existing harness files in home": (
        "user",
        {},
        {
            ".claude/CLAUDE.md": b"# Mine\r\nKeep it short.",
            ".codex/AGENTS.md": b"# Codex rules\n",
            ".agents/skills/other/SKILL.md": USER_SKILL,
        },
    ),
}


@pytest.mark.parametrize(("scope", "project_files", "home_files"), CASES.values(), ids=CASES.keys())
def test_install_then_uninstall_restores_project_and_home_byte_for_byte(
    sandbox: Sandbox,
    uze: Uze,
    scope: str,
    project_files: dict[str, bytes | str],
    home_files: dict[str, bytes | str],
) -> None:
    build_tree(sandbox.project, project_files)
    build_tree(sandbox.home, home_files)
    before = snapshot(sandbox)

    assert_ok(uze("install", EVERY_KIND, *HARNESSES, "--scope", scope))
    installed = snapshot(sandbox)
    changed = "home" if scope == "user" else "project"
    assert installed[changed] != before[changed]
    for rel, value in {
        **project_files,
        **home_files,
    }.items():  # merged files start as the user left them
        root = installed["project"] if rel in project_files else installed["home"]
        if not rel.endswith("SKILL.md"):
            data = value if isinstance(value, bytes) else value.encode()
            assert isinstance(root[rel], bytes) and root[rel].startswith(data)

    result = assert_ok(uze("uninstall", "every-kind", "--scope", scope))
    assert result.stdout.startswith("Uninstalled every-kind")
    after = snapshot(sandbox)
    assert after["project"] == before["project"]
    assert after["home"] == before["home"]


USER_FILES = {
    "AGENTS.md": b"# Team rules\r\n\r\nUse tabs.\r\n",
    "CLAUDE.md": b"# Claude\n\nBe kind.",
}
FIRST_IN_FIRST_OUT = ("every-kind", "other-kind")
LAST_IN_FIRST_OUT = ("other-kind", "every-kind")


@pytest.mark.parametrize(
    ("order", "start"),
    [
        pytest.param(FIRST_IN_FIRST_OUT, {}, id="empty project, first in first out"),
        pytest.param(LAST_IN_FIRST_OUT, {}, id="empty project, last in first out"),
        pytest.param(
            FIRST_IN_FIRST_OUT, USER_FILES, id="user AGENTS.md and CLAUDE.md, first in first out"
        ),
        pytest.param(
            LAST_IN_FIRST_OUT, USER_FILES, id="user AGENTS.md and CLAUDE.md, last in first out"
        ),
    ],
)
def test_two_packages_installed_then_uninstalled_in_either_order_restore_the_project(
    sandbox: Sandbox,
    uze: Uze,
    other_kind: Path,
    order: tuple[str, str],
    start: dict[str, bytes],
) -> None:
    build_tree(sandbox.project, start)
    before = snapshot(sandbox)

    assert_ok(uze("install", EVERY_KIND, *HARNESSES))
    assert_ok(uze("install", other_kind, *HARNESSES))
    both = snapshot(sandbox)["project"]
    assert ".claude/skills/every-kind/skills/review" in both  # each its own plugin (adr/0048)
    assert ".claude/skills/other-kind/skills/review" in both
    for name in order:
        assert_ok(uze("uninstall", name))

    after = snapshot(sandbox)
    assert after["project"] == before["project"]
    assert after["home"] == before["home"]
