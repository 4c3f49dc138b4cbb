"""fs: atomic writes leave the old file intact and no temp file when anything fails."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from uze import durability, fs
from uze.errors import DiskFull, LockBusy, UzeError, WriteFailed


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder of its own: the sandbox fixture puts HOME and the project in folder."""
    path = tmp_path / "fs"
    path.mkdir()
    return path


def test_atomic_write_replaces_bytes_and_keeps_the_mode(folder: Path) -> None:
    target = folder / "f.sh"
    target.write_bytes(b"old")
    target.chmod(0o750)
    fs.atomic_write(target, b"new")
    assert target.read_bytes() == b"new"
    assert target.stat().st_mode & 0o777 == 0o750
    assert sorted(p.name for p in folder.iterdir()) == ["f.sh"]


@pytest.mark.parametrize("failing", ["replace", "fsync"])
def test_a_failed_write_keeps_the_old_file_and_leaves_no_temp_file(
    folder: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    target = folder / "AGENTS.md"
    target.write_bytes(b"user text\r\n")

    def boom(*_args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, failing, boom)
    with pytest.raises(OSError, match="disk full"):
        fs.atomic_write(target, b"replacement")
    monkeypatch.undo()
    assert target.read_bytes() == b"user text\r\n"
    assert [p.name for p in folder.iterdir()] == ["AGENTS.md"]


def test_atomic_write_refuses_to_write_through_a_symlink(folder: Path) -> None:
    real = folder / "real.md"
    real.write_bytes(b"mine")
    link = folder / "link.md"
    link.symlink_to(real)
    with pytest.raises(UzeError, match="symbolic link"):
        fs.atomic_write(link, b"theirs")
    assert real.read_bytes() == b"mine"


def test_a_held_lock_times_out_naming_the_holder(folder: Path) -> None:
    lock = folder / "locks" / "p.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom pathlib import Path\nfrom uze import fs\n"
         "with fs.file_lock(Path(sys.argv[1]), 5):\n print('held', flush=True)\n time.sleep(30)",
         str(lock)], stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(Path(fs.__file__).parents[1])})
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(LockBusy) as caught, fs.file_lock(lock, timeout=0.05):
            pass  # pragma: no cover - never reached: the lock is held
    finally:
        holder.kill()
        holder.wait()
    assert f"pid {holder.pid}" in caught.value.message
    assert "hint" not in caught.value.message and caught.value.hint


def test_asking_for_a_lock_this_process_holds_fails_at_once_instead_of_waiting(
        folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lock = folder / "locks" / "p.lock"

    def no_wait(_seconds: float) -> None:
        raise AssertionError("file_lock waited for a lock its own process holds")

    with fs.file_lock(lock, timeout=30):
        monkeypatch.setattr(fs.time, "sleep", no_wait)
        with pytest.raises(RuntimeError, match="already holds"), fs.file_lock(lock, timeout=30):
            pass  # pragma: no cover - never reached
    with fs.file_lock(lock, timeout=0):  # released: free again
        pass


def test_a_link_planted_at_a_lock_file_is_refused_not_followed(folder: Path) -> None:
    target = folder / "elsewhere"
    lock = folder / "p.lock"
    lock.symlink_to(target)
    with pytest.raises(WriteFailed, match=r"p\.lock"), fs.file_lock(lock, timeout=1):
        pass  # pragma: no cover - never reached: the link is refused
    assert not target.exists() and lock.is_symlink()


def test_remove_temp_files_removes_only_leftovers(folder: Path) -> None:
    (folder / f".a.md{fs.TEMP_MARK}x1").write_bytes(b"")
    (folder / "a.md").write_bytes(b"keep")
    fs.remove_temp_files(folder)
    assert [p.name for p in folder.iterdir()] == ["a.md"]


def test_a_barrier_fsyncs_each_file_and_each_folder_once(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = [folder / "a" / "one", folder / "b" / "two", folder / "b" / "three"]
    for path in paths:
        fs.atomic_write(path, b"bytes", durable=False)
    (folder / "b" / "three").unlink()  # removed again before the commit: nothing to flush
    flushed: list[tuple[int, int]] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        st = os.fstat(fd)
        flushed.append((st.st_dev, st.st_ino))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    # a busy system: no syncfs
    monkeypatch.setattr(durability, "_foreign_dirty", lambda own: 1 << 40)
    durability.barrier(paths)
    expected = [folder / "a" / "one", folder / "b" / "two", folder / "a", folder / "b"]
    assert sorted(flushed) == sorted((p.stat().st_dev, p.stat().st_ino) for p in expected)


def test_a_barrier_that_fails_for_a_full_disk_raises_disk_full(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    fs.atomic_write(folder / "f", b"x", durable=False)
    monkeypatch.setattr(os, "fsync", full)
    monkeypatch.setattr(durability, "_foreign_dirty", lambda own: 1 << 40)
    with pytest.raises(DiskFull, match="no space left on device"):
        durability.barrier([folder / "f"])


def test_a_barrier_on_a_quiet_system_syncs_each_file_system_once_and_fsyncs_nothing(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ADR 0046: with little unwritten data besides the files, one syncfs per file system."""
    paths = [folder / "a" / "one", folder / "b" / "two"]
    for path in paths:
        fs.atomic_write(path, b"bytes" * 20_000, durable=False)
    seen: list[int] = []
    synced: list[int] = []

    def syncfs(fd: int) -> int:
        synced.append(os.fstat(fd).st_dev)
        return 0

    # Unwritten on the system: over the limit counted as all foreign, within it without the
    # files' own share (most of it theirs).
    unwritten = durability.foreign_limit(3) + 1

    def dirty(own: int) -> int:
        seen.append(own)
        return max(unwritten - own, 0)

    monkeypatch.setattr(durability, "_syncfs_call", lambda: syncfs)
    monkeypatch.setattr(durability, "_foreign_dirty", dirty)
    monkeypatch.setattr(os, "fsync", lambda fd: pytest.fail("fsync on a quiet system"))
    durability.barrier([*paths, folder / "gone"])  # a file removed meanwhile is skipped
    # The files' own blocks and metadata are not counted as someone else's (ADR 0052).
    blocks = sum(max(p.lstat().st_blocks * 512, 100_000) for p in paths)
    assert seen == [0, blocks + 2 * durability._FILE_METADATA + 2 * durability._FOLDER_METADATA]
    assert blocks >= 200_000
    assert synced == [folder.stat().st_dev]


def test_a_barrier_with_little_unwritten_data_at_all_syncs_without_a_stat_per_file(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32: within the limit even counting every unwritten byte as someone else's, the
    files are not stat'ed one by one: each folder names its file system, once; a folder gone
    (its files removed since) names none."""
    paths = [folder / "a" / "one", folder / "a" / "two", folder / "b" / "three"]
    for path in paths:
        fs.atomic_write(path, b"bytes", durable=False)
    synced: list[int] = []
    monkeypatch.setattr(durability, "_syncfs_call",
                        lambda: lambda fd: synced.append(os.fstat(fd).st_dev) or 0)
    monkeypatch.setattr(durability, "_foreign_dirty",
                        lambda own: durability.foreign_limit(4) if own == 0 else pytest.fail())
    monkeypatch.setattr(durability, "_stat_all", lambda files: pytest.fail("a stat per file"))
    monkeypatch.setattr(os, "fsync", lambda fd: pytest.fail("fsync on a quiet system"))
    durability.barrier([*paths, folder / "gone" / "four"])
    assert synced == [folder.stat().st_dev]


def test_a_barrier_waits_for_no_more_than_a_little_foreign_unwritten_data(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ADR 0014/0046: past the limit, the files are fsynced one by one instead of syncfs."""
    fs.atomic_write(folder / "f", b"x", durable=False)
    flushed: list[int] = []
    monkeypatch.setattr(durability, "_syncfs_call",
                        lambda: lambda fd: pytest.fail("syncfs when busy"))
    monkeypatch.setattr(durability, "_foreign_dirty",
                        lambda own: durability.foreign_limit(1) + 1)
    monkeypatch.setattr(os, "fsync", lambda fd: flushed.append(fd))
    durability.barrier([folder / "f"])
    assert len(flushed) == 2  # the file and its folder


def test_a_syncfs_that_fails_for_a_full_disk_raises_disk_full(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ctypes

    def full(fd: int) -> int:
        ctypes.set_errno(errno.ENOSPC)
        return -1

    fs.atomic_write(folder / "f", b"x", durable=False)
    monkeypatch.setattr(durability, "_syncfs_call", lambda: full)
    monkeypatch.setattr(durability, "_foreign_dirty", lambda own: 0)
    with pytest.raises(DiskFull, match="no space left on device"):
        durability.barrier([folder / "f"])


def test_the_foreign_data_a_barrier_may_wait_for_grows_with_the_fsyncs_it_spares(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ADR 0106: 200 files may wait for 16 MiB + 200 x 128 KiB of other programs' data with
    one syncfs (about what their 200 fsyncs would take), not a byte more."""
    paths = [folder / str(index % 7) / f"f{index}" for index in range(200)]
    for path in paths:
        fs.atomic_write(path, b"x", durable=False)
    limit = 16 * 1024 * 1024 + 200 * 128 * 1024
    assert durability.foreign_limit(200) == limit
    calls: list[str] = []
    monkeypatch.setattr(durability, "_syncfs_call", lambda: lambda fd: calls.append("syncfs") or 0)
    monkeypatch.setattr(os, "fsync", lambda fd: calls.append("fsync"))
    for foreign, way in ((limit, "syncfs"), (limit + 1, "fsync")):
        calls.clear()
        monkeypatch.setattr(durability, "_foreign_dirty", lambda own, foreign=foreign: foreign)
        durability.barrier(paths)
        assert set(calls) == {way}
        assert len(calls) == (1 if way == "syncfs" else 200 + 7)  # each file and folder


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="syncfs is Linux's")
def test_foreign_dirty_reads_the_system_and_the_real_syncfs_succeeds(folder: Path) -> None:
    assert durability._foreign_dirty(0) >= durability._foreign_dirty(1 << 40) == 0
    fs.atomic_write(folder / "f", b"x", durable=False)
    call = durability._syncfs_call()
    assert call is not None
    durability._sync_file_systems(call, {folder.stat().st_dev: folder})



def test_atomic_write_makes_missing_folders_and_sets_the_mode_it_is_given(folder: Path) -> None:
    target = folder / "a" / "b" / "blob"

    fs.atomic_write(target, b"x" * 70_000, mode=0o444, durable=False)

    assert target.read_bytes() == b"x" * 70_000
    assert target.stat().st_mode & 0o777 == 0o444
    assert sorted(p.name for p in target.parent.iterdir()) == ["blob"]  # no temp file left


def test_put_writes_everything_when_each_write_takes_part_of_it(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = folder / "trickle"
    real_write = os.write
    calls: list[int] = []

    def trickle(fd: int, data: bytes | memoryview) -> int:  # a signal, a filling disk
        calls.append(len(data))
        return real_write(fd, bytes(data[:3]))

    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        with monkeypatch.context() as patch:
            patch.setattr(os, "write", trickle)
            fs._put(fd, b"0123456789")
    finally:
        os.close(fd)
    assert target.read_bytes() == b"0123456789"
    assert calls == [10, 7, 4, 1]


def test_put_raises_rather_than_spin_when_a_write_takes_nothing(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = folder / "stuck"
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        with monkeypatch.context() as patch:
            patch.setattr(os, "write", lambda fd, data: 0)
            with pytest.raises(OSError, match="took no bytes"):
                fs._put(fd, b"x")
    finally:
        os.close(fd)
    assert target.read_bytes() == b""


def test_create_new_makes_subfolders_sets_the_exact_mode_and_never_replaces(
    folder: Path,
) -> None:
    """ADR 0046: a file of a new folder is created under its own name, no temp file."""
    target = folder / "skill" / "scripts" / "run.sh"
    old_mask = os.umask(0o077)
    try:
        fs.create_new(target, b"#!/bin/sh\n", 0o755)
    finally:
        os.umask(old_mask)
    assert target.read_bytes() == b"#!/bin/sh\n"
    assert target.stat().st_mode & 0o777 == 0o755
    assert [p.name for p in target.parent.iterdir()] == ["run.sh"]
    with pytest.raises(WriteFailed):
        fs.create_new(target, b"other", 0o644)
    assert target.read_bytes() == b"#!/bin/sh\n"
    link = folder / "skill" / "link"
    link.symlink_to(folder / "elsewhere")
    with pytest.raises(WriteFailed):
        fs.create_new(link, b"x", 0o644)
    assert not (folder / "elsewhere").exists()


def test_an_atomic_write_skips_a_temp_name_a_killed_writer_left(folder: Path) -> None:
    target = folder / "f"
    fs.atomic_write(target, b"one", durable=False)
    number = next(fs._temp_names) + 1  # the name the next write will try first
    stale = folder / f".f{fs.TEMP_MARK}{os.getpid()}-{number}"
    stale.write_bytes(b"left by a killed writer")
    fs.atomic_write(target, b"three")
    fs.write_absent(folder / "g", b"two", 0o444)
    assert (target.read_bytes(), (folder / "g").read_bytes()) == (b"three", b"two")
    assert (folder / "g").stat().st_mode & 0o777 == 0o444
    assert stale.read_bytes() == b"left by a killed writer"


@pytest.mark.parametrize("count", [3, 200])  # one by one, and from the pool of threads
def test_remove_tree_removes_every_file_and_folder_and_follows_no_link(
    folder: Path, count: int
) -> None:
    outside = folder / "outside"
    (outside / "keep").mkdir(parents=True)
    (outside / "keep" / "file").write_bytes(b"not uze's")
    tree = folder / "tree"
    for i in range(count):
        path = tree / f"d{i % 7}" / f"sub{i % 3}" / f"f{i}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x")
    (tree / "empty" / "deeper").mkdir(parents=True)
    (tree / "d0" / "to-folder").symlink_to(outside / "keep")
    (tree / "d1" / "dangling").symlink_to(folder / "nowhere")
    fs.remove_tree(tree)
    assert not tree.exists()
    assert (outside / "keep" / "file").read_bytes() == b"not uze's"
