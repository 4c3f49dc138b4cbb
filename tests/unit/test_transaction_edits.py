"""A shared file's edits are held in memory and written once at commit (ADR 0104).

Every edit of one command to one shared file (MCP and hook configs, AGENTS.md) used to rewrite
the whole file with an fsync; now the journal keeps its bytes from before the first edit, later
edits start from the pending bytes, and commit writes the file once, covered by the barrier.
A kill at any write of such a transaction, the commit's included, is undone by recovery.
"""

from __future__ import annotations

import errno
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest

from tests.helpers import Flushes, build_tree, tree_bytes
from uze import fs
from uze.commands.install import install
from uze.commands.uninstall import uninstall
from uze.errors import DiskFull
from uze.paths import Paths
from uze.projections import snapshot
from uze.transaction import Transaction, pending, recover

PACKAGES = Path(__file__).resolve().parents[1] / "data" / "packages"


@pytest.fixture
def world(tmp_path: Path) -> Path:
    root = build_tree(tmp_path / "w", {"AGENTS.md": "user\r\n", "gone.md": "bye"})
    (root / "AGENTS.md").chmod(0o640)
    return root


def _count_writes(monkeypatch: pytest.MonkeyPatch, die_at: int | None = None) -> Counter[Path]:
    """Count `fs.atomic_write` and `fs.create_new` calls by path (journal backups included);
    raise KeyboardInterrupt (a kill) at the `die_at`-th call."""
    calls: Counter[Path] = Counter()
    real = fs.atomic_write

    def counted(path: Path, data: bytes, mode: int | None = None, *, durable: bool = True
                ) -> None:
        calls[path] += 1
        if calls.total() == die_at:
            raise KeyboardInterrupt
        real(path, data, mode, durable=durable)

    new = fs.create_new

    def created(path: Path, data: bytes, mode: int) -> None:
        calls[path] += 1
        if calls.total() == die_at:
            raise KeyboardInterrupt
        new(path, data, mode)

    monkeypatch.setattr(fs, "atomic_write", counted)
    monkeypatch.setattr(fs, "create_new", created)
    return calls


def _edit_twice_each(tx: Transaction, world: Path) -> None:
    for step in range(3):
        tx.edit(world / "AGENTS.md", f"edit {step}\n".encode())
        tx.edit(world / "cfg" / "new.json", f"{{{step}}}\n".encode())


def test_edits_are_read_back_before_the_commit_writes_each_file_once(
    world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = tree_bytes(world)
    journal = tmp_path / "journal"
    writes = _count_writes(monkeypatch)
    flushes = Flushes(monkeypatch, lambda: b"".join(p.read_bytes() for p in journal.glob("*/ops*")))
    with Transaction(journal) as tx:
        _edit_twice_each(tx, world)
        # Nothing of the edits on disk yet; the new file's folder is made (and journaled).
        assert tree_bytes(world) == {**before, "cfg": "dir"}
        assert pending(world / "AGENTS.md") == b"edit 2\n"
        assert snapshot.read(world / "cfg" / "new.json") == b"{2}\n"
        assert snapshot.shape(world / "cfg" / "new.json") == "file"
        assert snapshot.exists(world / "cfg" / "new.json")
        assert snapshot.is_file(world / "cfg" / "new.json")
        assert tx.writes == 6  # each edit counts: receipts order adds by it
        assert sum(writes.values()) == 0  # not even a backup: the commit journals them
        assert not list(journal.glob("*/b*"))
        fsyncs = flushes.fsyncs
    assert pending(world / "AGENTS.md") is None  # no transaction open
    assert (world / "AGENTS.md").read_bytes() == b"edit 2\n"
    assert (world / "AGENTS.md").stat().st_mode & 0o777 == 0o640  # its mode kept
    assert (world / "cfg" / "new.json").read_bytes() == b"{2}\n"
    assert writes[world / "AGENTS.md"] == writes[world / "cfg" / "new.json"] == 1
    # The backup of AGENTS.md (new.json was not there) made durable by a barrier, then the two
    # journal lines by one fsync, before either file is written; then the edits' barrier.
    assert [len(files) for files, _ in flushes.barriers] == [1, 2]
    (backup,), ops = flushes.barriers[0]
    assert backup.parent.parent == journal and backup.name == "b1"
    assert b"AGENTS.md" not in ops, "a line is durable only once its backup is"
    assert flushes.fsyncs == fsyncs + 1
    flushed, ops = flushes.barriers[1]
    assert {world / "AGENTS.md", world / "cfg" / "new.json"} <= set(flushed)
    assert b'"backup": "b1"' in ops and b"new.json" in ops, \
        "the barrier must run while the journal can still roll back"
    assert not journal.exists() or not any(journal.iterdir())


def test_a_rolled_back_transaction_writes_none_of_its_edits(world: Path, tmp_path: Path) -> None:
    before = tree_bytes(world)
    with pytest.raises(RuntimeError), Transaction(tmp_path / "journal") as tx:
        _edit_twice_each(tx, world)
        raise RuntimeError("a later step failed")
    assert tree_bytes(world) == before


@pytest.mark.parametrize("die_at", range(1, 6))
def test_a_kill_at_any_write_of_a_commit_with_edits_is_undone_by_recovery(
    world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, die_at: int
) -> None:
    """Writes: the backup of gone.md, gone.md, at commit the backup of AGENTS.md and the two
    edited files; a kill leaves the journal behind (no rollback runs in a killed process)."""
    before = tree_bytes(world)
    monkeypatch.setattr(Transaction, "rollback", lambda self: None)
    _count_writes(monkeypatch, die_at)
    tx = Transaction(tmp_path / "journal")
    try:
        with tx:
            _edit_twice_each(tx, world)
            tx.write(world / "gone.md", b"rewritten\n")
    except KeyboardInterrupt:
        monkeypatch.undo()
        recover(tmp_path / "journal")
        assert tree_bytes(world) == before
        return
    monkeypatch.undo()
    assert (world / "AGENTS.md").read_bytes() == b"edit 2\n"


def test_a_full_disk_while_the_commit_writes_the_edits_rolls_everything_back(
    world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = tree_bytes(world)
    real = fs.atomic_write

    def full(path: Path, data: bytes, mode: int | None = None, *, durable: bool = True) -> None:
        if path.name == "new.json":
            raise DiskFull(path, "no space left on device")
        real(path, data, mode, durable=durable)

    monkeypatch.setattr(fs, "atomic_write", full)
    with pytest.raises(DiskFull), Transaction(tmp_path / "journal") as tx:
        _edit_twice_each(tx, world)
    monkeypatch.undo()
    assert tree_bytes(world) == before
    assert not (tmp_path / "journal").exists() or not any((tmp_path / "journal").iterdir())


def test_a_removal_or_a_plain_write_replaces_the_pending_edits(
    world: Path, tmp_path: Path
) -> None:
    before = tree_bytes(world)
    with Transaction(tmp_path / "journal") as tx:
        _edit_twice_each(tx, world)
        tx.remove(world / "cfg" / "new.json")
        tx.write(world / "AGENTS.md", b"written\n")
        assert pending(world / "AGENTS.md") is None
        assert not snapshot.exists(world / "cfg" / "new.json")
    assert (world / "AGENTS.md").read_bytes() == b"written\n"
    assert not (world / "cfg" / "new.json").exists()
    with pytest.raises(RuntimeError), Transaction(tmp_path / "journal") as tx:
        tx.edit(world / "AGENTS.md", b"again\n")
        tx.remove(world / "AGENTS.md")
        raise RuntimeError("undo")
    assert (world / "AGENTS.md").read_bytes() == b"written\n"
    del before


def _installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
               ) -> tuple[Counter[Path], Counter[Path], Path]:
    """Install then uninstall the every-kind package for every harness; the writes of each
    (journal files left out), and the project."""
    source = tmp_path / "pkg"
    shutil.copytree(PACKAGES / "every-kind", source)
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    paths = Paths(home=tmp_path / "h", uze_home=tmp_path / "uze-home", env={})
    counts = []
    for run in ("install", "uninstall"):
        with monkeypatch.context() as patch:
            writes = _count_writes(patch)
            if run == "install":
                install(paths, source, project=project, harness="all", cwd=project, trust=True)
            else:
                uninstall(paths, "every-kind", project=project, cwd=project)
        counts.append(Counter({p: n for p, n in writes.items()
                               if "journal" not in p.relative_to(tmp_path).parts}))
    return counts[0], counts[1], project


def test_an_install_and_an_uninstall_write_each_shared_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed, removed, project = _installed(tmp_path, monkeypatch)
    shared = {project / ".mcp.json", project / "AGENTS.md", project / ".codex" / "config.toml"}
    assert shared <= set(installed), sorted(installed)
    assert max(installed.values()) == 1, installed.most_common(3)
    assert removed and max(removed.values()) == 1, removed.most_common(3)
    assert not (project / ".mcp.json").exists()  # uze made it; the last entry took it


def test_what_waits_for_the_commit_runs_only_once_it_stands(world: Path, tmp_path: Path) -> None:
    """`on_commit` calls run after a commit (whatever they raise is ignored), never after a
    rollback."""
    calls: list[str] = []

    def boom() -> None:
        calls.append("boom")
        raise OSError("a cache that cannot be written")

    with Transaction(tmp_path / "journal") as tx:
        tx.edit(world / "AGENTS.md", b"new\n")
        tx.on_commit(boom)
        tx.on_commit(lambda: calls.append("kept"))
        assert calls == []
    assert calls == ["boom", "kept"]
    assert (world / "AGENTS.md").read_bytes() == b"new\n"
    with pytest.raises(KeyboardInterrupt), Transaction(tmp_path / "journal") as tx:
        tx.edit(world / "AGENTS.md", b"newer\n")
        tx.on_commit(lambda: calls.append("rolled back"))
        raise KeyboardInterrupt
    assert calls == ["boom", "kept"]
    assert (world / "AGENTS.md").read_bytes() == b"new\n"


@pytest.mark.parametrize("linked", [True, False])
def test_an_edited_file_is_journaled_by_a_hard_link_or_else_by_a_copy(
    world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, linked: bool
) -> None:
    """The backup of an edited file is a hard link to it (the commit replaces the file by a
    rename, so its bytes stay) or, where the file system refuses one, a copy; either way a kill
    once the edit is written is undone from it (ADR 0115)."""
    agents = world / "AGENTS.md"
    inode = agents.stat().st_ino
    if not linked:
        def refused(*_args: object, **_kwargs: object) -> None:
            raise OSError(errno.EXDEV, "Invalid cross-device link")

        monkeypatch.setattr(os, "link", refused)
    journal = tmp_path / "journal"
    flushes = Flushes(monkeypatch, lambda: [(p.stat().st_ino, p.read_bytes())
                                            for p in sorted(journal.glob("*/b*"))])
    monkeypatch.setattr(Transaction, "rollback", lambda self: None)
    real = fs.atomic_write

    def killed(path: Path, data: bytes, mode: int | None = None, *, durable: bool = True) -> None:
        if path == agents:
            raise KeyboardInterrupt
        real(path, data, mode, durable=durable)

    monkeypatch.setattr(fs, "atomic_write", killed)
    with pytest.raises(KeyboardInterrupt), Transaction(journal) as tx:
        tx.edit(agents, b"new\n")
    ((backup_inode, backup_bytes),) = flushes.barriers[0][1]
    assert backup_bytes == b"user\r\n"
    assert (backup_inode == inode) is linked
    real(agents, b"written\n")  # as the commit writes it, by a rename, then the kill
    monkeypatch.undo()
    recover(journal)
    assert agents.read_bytes() == b"user\r\n"
    assert agents.stat().st_mode & 0o777 == 0o640
