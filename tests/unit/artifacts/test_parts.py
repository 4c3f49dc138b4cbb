"""A plugin folder owned part by part (adr/0065): which artifact a row's target names, the
state of each part, and what removing an edited folder keeps."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.helpers import build_tree
from uze.artifacts import parts
from uze.paths import Paths
from uze.projections.tree import digests_of
from uze.state.context import ScopeContext, open_scope
from uze.state.receipts import TreeArtifact
from uze.transaction import Transaction

FILES = {
    ".claude-plugin/plugin.json": b'{"name": "kit"}\n',
    "skills/alpha/SKILL.md": b"alpha\n",
    "skills/alpha/notes.md": b"notes\n",
    "skills/beta/SKILL.md": b"beta\n",
    "commands/a/tidy.md": b"tidy\n",
    "README.md": b"readme\n",
}
PARTS = ("skills/alpha", "skills/beta", "commands/a/tidy.md", "")


@pytest.mark.parametrize(("target", "found"), [
    (".claude/skills/kit", (".claude/skills/kit", "")),
    (".claude/skills/kit/skills/alpha", (".claude/skills/kit/skills", "alpha")),  # deepest
    (".claude/skills/kit/commands/a/tidy.md", (".claude/skills/kit", "commands/a/tidy.md")),
    (".claude/skills/kitten/skills/alpha", None),  # a name that starts alike is not inside
    ("AGENTS.md#kit", None),
])
def test_owner_is_the_key_itself_or_the_deepest_folder_above_the_target(
    target: str, found: tuple[str, str] | None
) -> None:
    keys = {".claude/skills/kit", ".claude/skills/kit/skills", "AGENTS.md#other"}
    assert parts.owner(target, keys) == found


def _installed(sandbox: Sandbox) -> tuple[ScopeContext, TreeArtifact, Path]:
    ctx = open_scope(Paths.from_env(), "project", None, sandbox.project)
    folder = build_tree(sandbox.project / ".claude/skills/kit",
                        FILES)
    return ctx, TreeArtifact(target=".claude/skills/kit", files=digests_of(FILES),
                             harnesses=["claude_code"]), folder


def test_an_edit_to_one_skill_drifts_that_part_alone(sandbox: Sandbox) -> None:
    ctx, record, folder = _installed(sandbox)
    (folder / "skills/alpha/notes.md").write_bytes(b"mine\n")
    (folder / "extra.md").write_bytes(b"added outside every part\n")
    (folder / "commands/a/tidy.md").unlink()

    assert parts.states(ctx, record, PARTS) == {
        "skills/alpha": "drifted", "skills/beta": "matched", "commands/a/tidy.md": "missing",
        "": "matched"}


def test_a_file_added_inside_a_skill_drifts_that_skill(sandbox: Sandbox) -> None:
    ctx, record, folder = _installed(sandbox)
    (folder / "skills/beta/more.md").write_bytes(b"mine\n")
    assert parts.states(ctx, record, PARTS)["skills/beta"] == "drifted"
    assert parts.states(ctx, record, PARTS)["skills/alpha"] == "matched"


def test_an_edited_manifest_drifts_every_part(sandbox: Sandbox) -> None:
    ctx, record, folder = _installed(sandbox)
    (folder / parts.MANIFEST).write_bytes(b'{"name": "other"}\n')
    assert set(parts.states(ctx, record, PARTS).values()) == {"drifted"}


def test_the_whole_folder_gone_is_missing_for_every_part(sandbox: Sandbox) -> None:
    ctx, record, folder = _installed(sandbox)
    for path in sorted(folder.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    folder.rmdir()
    assert set(parts.states(ctx, record, PARTS).values()) == {"missing"}


def test_trim_removes_every_unedited_file_and_keeps_edits_and_the_users_files(
    sandbox: Sandbox,
) -> None:
    ctx, record, folder = _installed(sandbox)
    (folder / "skills/alpha/notes.md").write_bytes(b"mine\n")
    (folder / "skills/beta/more.md").write_bytes(b"added\n")

    with Transaction(ctx.journal_root, ctx.roots.check_write) as tx:
        kept = parts.trim(tx, ctx, record)

    assert kept == {"skills/alpha/notes.md": parts.EDITED, "skills/beta/more.md": parts.ADDED}
    left = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))
    assert left == ["skills", "skills/alpha", "skills/alpha/notes.md", "skills/beta",
                    "skills/beta/more.md"]
    assert (folder / "skills/alpha/notes.md").read_bytes() == b"mine\n"
    assert "Claude Code no longer loads it" in parts.trim_detail(kept)
    assert "still loads" in parts.trim_detail({parts.MANIFEST: parts.EDITED})
