"""Transactions: rollback and crash recovery put every file back as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import Flushes, build_tree, tree_bytes
from uze import durability, fs
from uze.errors import DiskFull
from uze.transaction import Transaction, recover


def _change_everything(tx: Transaction, root: Path) -> None:
    tx.write(root / "AGENTS.md", b"changed\n")
    tx.write(root / "new" / "deep" / "file.md", b"created\n")
    tx.remove(root / "gone.md")
    tx.create_folder(root / ".claude" / "skills" / "p-s")
    tx.write_new(root / ".claude" / "skills" / "p-s" / "SKILL.md", b"skill\n")
    tx.remove_dir(root / "empty")


def _die_at_write(monkeypatch: pytest.MonkeyPatch, at: int | None) -> dict[str, int]:
    """Make `fs.atomic_write` raise KeyboardInterrupt (a kill) at its `at`-th call, journal
    backups included; the returned dict counts the calls."""
    calls = {"n": 0}
    real = fs.atomic_write

    def dies(path: Path, data: bytes, mode: int | None = None, *, durable: bool = True) -> None:
        calls["n"] += 1
        if calls["n"] == at:
            raise KeyboardInterrupt
        real(path, data, mode, durable=durable)

    monkeypatch.setattr(fs, "atomic_write", dies)
    return calls


@pytest.fixture
def world(tmp_path: Path) -> Path:
    root = build_tree(tmp_path / "w", {"AGENTS.md": "user\r\n", "gone.md": "bye"})
    (root / "gone.md").chmod(0o600)
    (root / "empty").mkdir()
    return root


def test_rollback_restores_every_byte_mode_and_folder(world: Path, tmp_path: Path) -> None:
    before = tree_bytes(world)
    tx = Transaction(tmp_path / "journal")
    _change_everything(tx, world)
    assert tree_bytes(world) != before
    tx.rollback()
    assert tree_bytes(world) == before
    assert not (tmp_path / "journal").exists() or not any((tmp_path / "journal").iterdir())


def test_commit_keeps_the_changes_and_forgets_the_journal(world: Path, tmp_path: Path) -> None:
    tx = Transaction(tmp_path / "journal")
    _change_everything(tx, world)
    tx.commit()
    assert (world / "AGENTS.md").read_bytes() == b"changed\n"
    assert not (tmp_path / "journal").exists()


def test_a_with_block_commits_when_it_ends(world: Path, tmp_path: Path) -> None:
    with Transaction(tmp_path / "journal") as tx:
        _change_everything(tx, world)
        assert (tmp_path / "journal").is_dir()  # journaled until the block ends
    assert (world / "AGENTS.md").read_bytes() == b"changed\n"
    assert not (world / "gone.md").exists()
    assert not (tmp_path / "journal").exists()


@pytest.mark.parametrize("error", [ValueError("boom"), KeyboardInterrupt()],
                         ids=["exception", "ctrl-c"])
def test_a_with_block_that_raises_rolls_back_and_lets_the_error_through(
    world: Path, tmp_path: Path, error: BaseException
) -> None:
    before = tree_bytes(world)
    with pytest.raises(type(error)), Transaction(tmp_path / "journal") as tx:
        _change_everything(tx, world)
        raise error
    assert tree_bytes(world) == before
    assert not (tmp_path / "journal").exists() or not any((tmp_path / "journal").iterdir())


def test_a_crash_mid_transaction_is_rolled_back_by_the_next_command(
    world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = tree_bytes(world)
    tx = Transaction(tmp_path / "journal")
    _die_at_write(monkeypatch, 4)  # backups count too: die in the middle of the work
    with pytest.raises(KeyboardInterrupt):
        _change_everything(tx, world)
    monkeypatch.undo()
    assert tree_bytes(world) != before  # the "process" died: nothing was undone yet
    assert recover(tmp_path / "journal") == 1
    assert tree_bytes(world) == before
    assert recover(tmp_path / "journal") == 0


def test_a_torn_last_journal_line_is_ignored(world: Path, tmp_path: Path) -> None:
    before = tree_bytes(world)
    tx = Transaction(tmp_path / "journal")
    tx.write(world / "AGENTS.md", b"changed\n")
    fs.append_durable(tx.folder / "ops.jsonl", b'{"op": "write", "pa')
    recover(tmp_path / "journal")
    assert tree_bytes(world) == before


def test_a_trashed_folder_comes_back_on_rollback_and_goes_on_commit(world: Path,
                                                                    tmp_path: Path) -> None:
    build_tree(world, {"skill/SKILL.md": "s", "skill/deep/x.bin": b"\x00\xff"})
    before = tree_bytes(world)
    tx = Transaction(tmp_path / "journal")
    tx.trash_folder(world / "skill")
    assert not (world / "skill").exists()
    tx.rollback()
    assert tree_bytes(world) == before
    tx = Transaction(tmp_path / "journal")
    tx.trash_folder(world / "skill")
    tx.commit()
    assert not (world / "skill").exists()
    assert not any("uze-trash" in p.name for p in world.iterdir())


def test_a_crash_after_the_commit_line_is_finished_not_undone(world: Path, tmp_path: Path) -> None:
    build_tree(world, {"skill/SKILL.md": "s"})
    tx = Transaction(tmp_path / "journal")
    tx.trash_folder(world / "skill")
    fs.append_durable(tx.folder / "ops.jsonl", b'{"op": "commit"}\n')  # then the process dies
    assert recover(tmp_path / "journal") == 1
    assert not (world / "skill").exists()
    assert not any("uze-trash" in p.name for p in world.iterdir())


def test_files_of_a_new_folder_are_flushed_once_at_commit_while_the_journal_exists(
    world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = tmp_path / "journal"
    flushes = Flushes(monkeypatch, lambda: journal.exists() and any(journal.iterdir()))
    tx = Transaction(journal)
    tx.create_folder(world / "skill")
    files = [world / "skill" / f"ref-{i:02d}.md" for i in range(40)]
    for path in files:
        tx.write_new(path, b"reference\n")
    fsyncs_for_forty_files = flushes.fsyncs
    stored = [tmp_path / "store" / "object"]
    fs.atomic_write(stored[0], b"blob", durable=False)
    tx.sync_at_commit(stored)
    assert flushes.barriers == []  # nothing is flushed before the commit
    tx.commit()
    # The journal lines are durable (a few fsyncs), but no file costs one of its own.
    assert fsyncs_for_forty_files < 5
    assert flushes.barriers == [(files + stored, True)]  # once, before the journal went
    assert not journal.exists()
    assert [p.read_bytes() for p in files] == [b"reference\n"] * 40


def test_a_rolled_back_transaction_flushes_nothing(
    world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flushes = Flushes(monkeypatch, lambda: None)
    before = tree_bytes(world)
    tx = Transaction(tmp_path / "journal")
    _change_everything(tx, world)
    tx.rollback()
    assert flushes.barriers == []
    assert tree_bytes(world) == before


def test_a_failed_barrier_at_commit_rolls_everything_back(
    world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = tree_bytes(world)
    tx = Transaction(tmp_path / "journal")
    _change_everything(tx, world)

    def full(paths: object) -> None:
        raise DiskFull(world / ".claude" / "skills" / "p-s" / "SKILL.md", "no space left on device")

    monkeypatch.setattr(durability, "barrier", full)
    with pytest.raises(DiskFull):
        tx.commit()
    assert tree_bytes(world) == before
    assert not (tmp_path / "journal").exists() or not any((tmp_path / "journal").iterdir())


def test_many_new_folders_are_journaled_with_one_fsync_and_rolled_back_whole(
    world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ADR 0052: create_folders writes every newtree line, fsyncs the journal once, then makes
    the folders; create_folder on one of them adds nothing; a rollback removes them all."""
    before = tree_bytes(world)
    journal = tmp_path / "journal"
    flushes = Flushes(monkeypatch, lambda: None)
    tx = Transaction(journal)
    tx.sweep_on_undo(tmp_path)  # an unsynced line first, as install writes
    folders = [world / ".agents" / "skills" / f"s-{i}" for i in range(20)]
    tx.create_folders(folders[:1])  # its parents: journaled and made on the way, as before
    before_fsyncs = flushes.fsyncs
    tx.create_folders(folders[1:])
    assert flushes.fsyncs - before_fsyncs == 1  # not one per folder
    lines = (journal / tx.folder.name / "ops.jsonl").read_text().splitlines()
    assert sum('"newtree"' in line for line in lines) == 20
    assert all(folder.is_dir() for folder in folders)
    count = len(lines)
    tx.create_folder(folders[5])  # made already: no second line, no error
    tx.write_new(folders[5] / "SKILL.md", b"skill\n")
    assert len((journal / tx.folder.name / "ops.jsonl").read_text().splitlines()) == count
    tx.rollback()
    assert tree_bytes(world) == before
    assert not (world / ".agents").exists()


def test_new_folders_are_made_only_after_their_journal_lines_are_on_disk(
    world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    order: list[str] = []
    real_append, real_make_dir = fs.append_durable, fs.make_dir

    def append(path: Path, data: bytes, *, durable: bool = True) -> None:
        order.append(f"append durable={durable}")
        real_append(path, data, durable=durable)

    def make_dir(path: Path, *, parents: bool = False) -> None:
        order.append(f"mkdir {path.name}")
        real_make_dir(path, parents=parents)

    monkeypatch.setattr(fs, "append_durable", append)
    monkeypatch.setattr(fs, "make_dir", make_dir)
    (world / "skills").mkdir()
    tx = Transaction(tmp_path / "journal")
    tx.create_folders([world / "skills" / "a", world / "skills" / "b", world / "skills" / "c"])
    assert order == ["append durable=False", "append durable=False", "append durable=True",
                     "mkdir a", "mkdir b", "mkdir c"]
    tx.rollback()
    assert not any((world / "skills").iterdir())


@pytest.mark.parametrize("dies_at", [None, 1, 2, 3, 4, 5])
def test_a_file_written_again_is_backed_up_once_and_comes_back_as_before(
    world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dies_at: int | None
) -> None:
    """ADR 0099: each edit of a shared config file rewrites it; only its first write in a
    transaction journals the bytes it held, and a rollback, or the recovery after a crash at
    any write, gives those back (a file that was not there goes again)."""
    before = tree_bytes(world)
    tx = Transaction(tmp_path / "journal")
    writes = _die_at_write(monkeypatch, dies_at)
    try:
        for step in range(3):
            tx.write(world / "AGENTS.md", f"edit {step}\n".encode())
            tx.write(world / "new.json", f"{{{step}}}\n".encode())
    except KeyboardInterrupt:
        monkeypatch.undo()
        recover(tmp_path / "journal")  # (killed in the first backup: no journal line yet)
        assert tree_bytes(world) == before
        return
    monkeypatch.undo()
    assert writes["n"] == 1 + 6  # one backup (AGENTS.md; new.json was not there), six writes
    assert (world / "AGENTS.md").read_bytes() == b"edit 2\n"
    tx.rollback()
    assert tree_bytes(world) == before
