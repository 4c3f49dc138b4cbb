"""Invariant 3: user edits survive uninstall byte for byte and are reported; --force drops them."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import (
    EVERY_KIND,
    HARNESSES,
    Uze,
    as_json,
    assert_ok,
    keep_only,
    snapshot,
)
from tests.helpers import tree_bytes

pytestmark = pytest.mark.e2e

KEPT_DETAIL = "changed since install; kept (uze uninstall --force removes it)"


def _edit_region(project: Path) -> None:
    path = project / "AGENTS.md"
    path.write_bytes(path.read_bytes().replace(b"Prefer small", b"Prefer tiny"))


def _edit_skill_file(project: Path) -> None:
    path = project / ".claude/skills/every-kind/skills/review/references/guide.md"
    path.write_bytes(path.read_bytes() + b"3. Is the changelog updated?\n")


def _add_file_to_skill(project: Path) -> None:
    (project / ".agents/skills/every-kind-ship/my-notes.txt").write_bytes(b"mine\x00\xff\n")


EDITS: dict[str, tuple[Callable[[Path], None], str, str]] = {
    "edit inside the AGENTS.md region": (_edit_region, "AGENTS.md#every-kind", "AGENTS.md"),
    "edit to a file of a skill": (  # in Claude Code's plugin folder, kept alone (adr/0065)
        _edit_skill_file,
        ".claude/skills/every-kind/skills/review/references/guide.md",
        ".claude/skills/every-kind/skills/review/references/guide.md",
    ),
    "file added inside a skill folder": (
        _add_file_to_skill,
        ".agents/skills/every-kind-ship",
        ".agents/skills/every-kind-ship",
    ),
}


@pytest.mark.parametrize(("edit", "key", "kept_path"), EDITS.values(), ids=EDITS.keys())
def test_uninstall_keeps_an_edited_artifact_byte_for_byte_and_reports_it(
    sandbox: Sandbox, uze: Uze, edit: Callable[[Path], None], key: str, kept_path: str
) -> None:
    before = snapshot(sandbox)
    assert_ok(uze("install", EVERY_KIND, *HARNESSES))
    edit(sandbox.project)
    edited = snapshot(sandbox)

    result = assert_ok(uze("uninstall", "every-kind"))

    assert f"kept {key}: {KEPT_DETAIL}" in result.stdout
    assert f"Removed {key}" not in result.stdout
    assert "now belongs to you" in result.stdout
    after = snapshot(sandbox)
    assert after["project"] == keep_only(edited["project"], [kept_path], before["project"])
    assert after["home"] == before["home"]
    assert not (sandbox.project / ".uze" / "receipts" / "every-kind.json").exists()


def test_uninstall_json_lists_every_kept_artifact_under_kept(sandbox: Sandbox, uze: Uze) -> None:
    before = snapshot(sandbox)
    assert_ok(uze("install", EVERY_KIND, *HARNESSES))
    for edit, _key, _path in EDITS.values():
        edit(sandbox.project)
    edited = snapshot(sandbox)

    document = as_json(assert_ok(uze("uninstall", "every-kind", "--json")))

    assert (
        document["schema"] == 1
        and document["name"] == "every-kind"
        and document["dry_run"] is False
    )
    kept = {entry["target"]: entry for entry in document["kept"]}
    assert set(kept) == {key for _edit, key, _path in EDITS.values()}
    assert all(
        entry["action"] == "kept" and entry["detail"] == KEPT_DETAIL for entry in kept.values()
    )
    removed = {a["target"] for a in document["actions"] if a["action"] == "remove"}
    assert "CLAUDE.md#every-kind" in removed and ".agents/skills/every-kind-review" in removed
    assert not removed & set(kept)
    paths = [path for _edit, _key, path in EDITS.values()]
    assert snapshot(sandbox)["project"] == keep_only(edited["project"], paths, before["project"])


def test_uninstall_with_force_removes_an_edited_skill(sandbox: Sandbox, uze: Uze) -> None:
    before = snapshot(sandbox)
    assert_ok(uze("install", EVERY_KIND, *HARNESSES))
    _edit_skill_file(sandbox.project)
    _add_file_to_skill(sandbox.project)

    result = assert_ok(uze("uninstall", "every-kind", "--force"))

    assert "Removed .claude/skills/every-kind" in result.stdout
    assert "Removed .agents/skills/every-kind-ship" in result.stdout
    assert "kept" not in result.stdout
    after = snapshot(sandbox)
    assert after["project"] == before["project"]
    assert after["home"] == before["home"]


def test_uninstall_with_force_never_follows_a_symlink_that_replaced_a_skill_folder(
    sandbox: Sandbox, uze: Uze
) -> None:
    assert_ok(uze("install", EVERY_KIND, *HARNESSES))
    mine = sandbox.root / "my-skills" / "review"
    mine.mkdir(parents=True)
    (mine / "SKILL.md").write_bytes(b"---\nname: review\n---\nMy own review skill.\n")
    skill = sandbox.project / ".claude/skills/every-kind"  # Claude Code's plugin folder
    shutil.rmtree(skill)
    skill.symlink_to(mine, target_is_directory=True)
    edited, mine_before = snapshot(sandbox), tree_bytes(mine.parent)

    result = assert_ok(uze("uninstall", "every-kind", "--force", "--json"))

    assert [entry["target"] for entry in as_json(result)["kept"]] == [".claude/skills/every-kind"]
    assert tree_bytes(mine.parent) == mine_before
    after = snapshot(sandbox)
    assert after["project"] == keep_only(
        edited["project"], [".claude/skills/every-kind"], {}
    )


AROUND = {
    "AGENTS.md created by uze": (None, b"before\n", b"after\n", b"before\nafter\n"),
    "user AGENTS.md with CRLF lines and no trailing newline": (
        b"# Mine\r\nBe brief.",
        b"before\r\n",
        b"after\r\n",
        b"before\r\n# Mine\r\nBe brief.after\r\n",
    ),
    "user AGENTS.md with LF lines": (
        b"# Mine\n",
        b"before\n",
        b"after\n",
        b"before\n# Mine\nafter\n",
    ),
}


@pytest.mark.parametrize(
    ("existing", "prepend", "append", "expected"), AROUND.values(), ids=AROUND.keys()
)
def test_uninstall_removes_the_region_and_keeps_user_text_around_it_exactly(
    sandbox: Sandbox,
    uze: Uze,
    existing: bytes | None,
    prepend: bytes,
    append: bytes,
    expected: bytes,
) -> None:
    agents = sandbox.project / "AGENTS.md"
    if existing is not None:
        agents.write_bytes(existing)
    assert_ok(uze("install", EVERY_KIND, "--harness", "codex", "--trust"))
    installed = agents.read_bytes()
    assert installed.count(b"<!-- uze:begin every-kind -->") == 1
    agents.write_bytes(prepend + installed + append)

    result = assert_ok(uze("uninstall", "every-kind", "--json"))

    assert as_json(result)["kept"] == []
    assert agents.read_bytes() == expected


def test_converting_delivered_files_to_crlf_is_not_an_edit(sandbox: Sandbox, uze: Uze) -> None:
    before = snapshot(sandbox)
    assert_ok(uze("install", EVERY_KIND, *HARNESSES))
    for rel in ("AGENTS.md", "CLAUDE.md", ".claude/skills/every-kind/skills/review/SKILL.md"):
        path = sandbox.project / rel
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))

    result = assert_ok(uze("uninstall", "every-kind", "--json"))

    assert as_json(result)["kept"] == []
    assert snapshot(sandbox)["project"] == before["project"]
