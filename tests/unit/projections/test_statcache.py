"""statcache: unchanged files are not read again; any edit, a racy one or a damaged cache
re-reads."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from uze.projections import file, statcache, tree
from uze.projections.digest import content_digest
from uze.projections.statcache import DigestCache, stat_key

SECOND = 1_000_000_000


@pytest.fixture(autouse=True)
def from_the_first_look(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache file is read at a command's first lookup here (see the few-files test)."""
    monkeypatch.setattr(statcache, "_BYTES_PER_LOOKUP", 1 << 40)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every file the cache reads, in order."""
    seen: list[Path] = []
    real = statcache.read_file

    def counting(path: str) -> bytes:
        seen.append(Path(path))
        return real(path)

    monkeypatch.setattr(statcache, "read_file", counting)
    return seen


@pytest.fixture
def work(tmp_path: Path) -> tuple[Path, Path]:
    """A delivered file and the cache file (in a folder of their own)."""
    root = tmp_path / "sc"
    root.mkdir()
    target = root / "skill" / "SKILL.md"
    target.parent.mkdir()
    target.write_bytes(b"Do the thing.\n")
    return target, root / "cache" / "digests.json"


def _later(path: Path, seconds: float = 1.0) -> int:
    """A command that starts `seconds` after the file's last change (its ctime)."""
    return path.lstat().st_ctime_ns + int(seconds * SECOND)


def _digest(cache: DigestCache, path: Path) -> str:
    return cache.digest(path, path.lstat())


def test_a_settled_file_is_read_once_then_known_by_its_stat(work: tuple[Path, Path],
                                                            reads: list[Path]) -> None:
    target, cache_path = work
    first = DigestCache(cache_path, started_ns=_later(target))
    assert _digest(first, target) == content_digest(b"Do the thing.\n")
    first.save(merge=False)

    second = DigestCache(cache_path, started_ns=_later(target, 5))
    assert _digest(second, target) == content_digest(b"Do the thing.\n")
    assert reads == [target]  # the second command did not open it
    assert tree.inspect(target.parent, {"SKILL.md": content_digest(b"Do the thing.\n")},
                        second) == "matched"
    assert reads == [target]


def test_an_edit_that_keeps_size_and_forces_mtime_back_is_read_and_seen(
    work: tuple[Path, Path], reads: list[Path]
) -> None:
    target, cache_path = work
    first = DigestCache(cache_path, started_ns=_later(target))
    _digest(first, target)
    first.save(merge=False)
    before = target.stat()

    target.write_bytes(b"Do the thong.\n")  # same size
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the old mtime
    assert (target.stat().st_size, target.stat().st_mtime_ns) == (before.st_size,
                                                                  before.st_mtime_ns)

    second = DigestCache(cache_path, started_ns=_later(target))
    assert _digest(second, target) == content_digest(b"Do the thong.\n")  # ctime moved: re-read
    assert file.inspect(target, content_digest(b"Do the thing.\n"), second) == "drifted"
    assert reads == [target, target]


def test_a_file_changed_just_before_the_command_started_is_never_remembered(
    work: tuple[Path, Path], reads: list[Path]
) -> None:
    target, cache_path = work
    racy = DigestCache(cache_path, started_ns=target.lstat().st_ctime_ns + 1)  # the same tick
    _digest(racy, target)
    racy.save(merge=False)
    assert not cache_path.exists()  # nothing settled: nothing to write

    again = DigestCache(cache_path, started_ns=_later(target))
    _digest(again, target)
    assert reads == [target, target]


def test_whole_second_timestamps_need_two_seconds_to_settle() -> None:
    whole = SimpleNamespace(st_mtime_ns=10 * SECOND, st_ctime_ns=10 * SECOND)  # FAT, HFS+, ext3
    assert not DigestCache(None, started_ns=11 * SECOND)._settled(whole)  # type: ignore[arg-type]
    assert DigestCache(None, started_ns=12 * SECOND + 1)._settled(whole)  # type: ignore[arg-type]
    fine = SimpleNamespace(st_mtime_ns=10 * SECOND + 1, st_ctime_ns=10 * SECOND + 1)
    assert not DigestCache(None, started_ns=10 * SECOND + 50_000_000)._settled(fine)  # type: ignore[arg-type]
    assert DigestCache(None, started_ns=10 * SECOND + 100_000_002)._settled(fine)  # type: ignore[arg-type]


@pytest.mark.parametrize("damage", ["flip", "truncate", "garbage", "newer", "older", "empty"])
def test_a_damaged_cache_only_costs_a_re_read(
    work: tuple[Path, Path], reads: list[Path], damage: str
) -> None:
    target, cache_path = work
    first = DigestCache(cache_path, started_ns=_later(target))
    _digest(first, target)
    first.save(merge=False)
    data = cache_path.read_bytes()
    wrong = content_digest(b"something else")
    damaged = {
        "flip": data.replace(content_digest(b"Do the thing.\n").encode(), wrong.encode()),
        "truncate": data[: len(data) // 2],
        "garbage": b"\x00\xff not a cache",
        "newer": (statcache.blake3(b'{"schema":3,"entries":{}}').hexdigest().encode()
                  + b'\n{"schema":3,"entries":{}}\n'),
        "older": (statcache.blake3(b'{"entries":{},"schema":1}').hexdigest().encode()
                  + b'\n{"entries":{},"schema":1}\n'),  # before folders and matched keys
        "empty": b"",
    }[damage]
    cache_path.write_bytes(damaged)

    second = DigestCache(cache_path, started_ns=_later(target))
    assert _digest(second, target) == content_digest(b"Do the thing.\n")
    assert reads == [target, target]


def test_saving_an_unchanged_cache_writes_nothing_and_a_failed_save_is_ignored(
    work: tuple[Path, Path], tmp_path: Path
) -> None:
    target, cache_path = work
    first = DigestCache(cache_path, started_ns=_later(target))
    _digest(first, target)
    first.save(merge=False)
    written = cache_path.stat()

    second = DigestCache(cache_path, started_ns=_later(target, 2))
    _digest(second, target)
    second.save(merge=False)
    assert (cache_path.stat().st_ino, cache_path.stat().st_mtime_ns) == (written.st_ino,
                                                                         written.st_mtime_ns)

    blocked = tmp_path / "sc" / "not-a-folder"
    blocked.write_bytes(b"")
    third = DigestCache(blocked / "digests.json", started_ns=_later(target))
    _digest(third, target)
    third.save(merge=False)  # cannot create the folder: the command goes on
    assert sorted(p.name for p in cache_path.parent.iterdir()) == ["digests.json"]  # no temp left


def test_save_keeps_only_what_was_seen_unless_merging(work: tuple[Path, Path]) -> None:
    target, cache_path = work
    other = target.with_name("other.md")
    other.write_bytes(b"x")
    both = DigestCache(cache_path, started_ns=_later(other))
    _digest(both, target)
    _digest(both, other)
    both.save(merge=False)

    only_target = DigestCache(cache_path, started_ns=_later(other))
    _digest(only_target, target)
    only_target.save(merge=True)
    assert str(other) in statcache._load(cache_path).entries
    only_target.save(merge=False)
    assert set(statcache._load(cache_path).entries) == {str(target)}


def test_kept_paths_survive_a_save_and_a_cache_nothing_asked_of_is_not_rewritten(
        work: tuple[Path, Path]) -> None:
    """ADR 0101: what a status trusted as a whole (a package's verdict) keeps its entries;
    a status that asked the cache nothing and learnt nothing leaves the file alone."""
    target, cache_path = work
    other = target.with_name("other.md")
    other.write_bytes(b"x")
    both = DigestCache(cache_path, started_ns=_later(other))
    _digest(both, target)
    _digest(both, other)
    both.save(merge=False)

    kept = DigestCache(cache_path, started_ns=_later(other))
    _digest(kept, target)
    kept.keep([str(other)])
    kept.save(merge=False)
    assert set(statcache._load(cache_path).entries) == {str(target), str(other)}

    before = cache_path.stat()
    DigestCache(cache_path).save(merge=False)  # never looked up: nothing learnt, not written
    assert stat_key(cache_path.stat()) == stat_key(before)


def test_deps_record_every_path_looked_at_with_the_stat_used(work: tuple[Path, Path]) -> None:
    target, cache_path = work
    cache = DigestCache(cache_path, started_ns=_later(target))
    cache.deps = []
    assert tree.inspect(target.parent, {"SKILL.md": _digest(DigestCache(None), target)},
                        cache) == "matched"
    assert cache.deps == [(str(target.parent), stat_key(target.parent.lstat())),
                          (str(target), stat_key(target.lstat()))]


@pytest.fixture
def listed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every folder the cache lists, in order."""
    seen: list[str] = []
    real = statcache.list_folder

    def counting(path: str) -> list[str]:
        seen.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(statcache, "list_folder", counting)
    return seen


def test_a_settled_folder_is_listed_once_then_known_by_its_stat_and_any_new_name_is_seen(
    work: tuple[Path, Path], listed: list[str]
) -> None:
    """ADR 0081: adding, removing or renaming a name moves the folder's mtime and ctime."""
    target, cache_path = work
    (target.parent / "refs").mkdir()
    (target.parent / "refs" / "a.md").write_bytes(b"a")
    digests = {"SKILL.md": content_digest(b"Do the thing.\n"), "refs/a.md": content_digest(b"a")}
    first = DigestCache(cache_path, started_ns=_later(target.parent / "refs"))
    assert tree.inspect(target.parent, digests, first) == "matched"
    first.save(merge=False)
    assert listed == ["skill", "refs"]

    second = DigestCache(cache_path, started_ns=_later(target.parent / "refs", 5))
    assert tree.inspect(target.parent, digests, second) == "matched"
    assert listed == ["skill", "refs"]  # neither listed again

    (target.parent / "refs" / "b.md").write_bytes(b"b")  # a name more, one level down
    third = DigestCache(cache_path, started_ns=_later(target.parent / "refs", 5))
    assert tree.inspect(target.parent, digests, third) == "drifted"
    assert listed == ["skill", "refs", "refs"]  # only the folder that changed
    (target.parent / "refs" / "b.md").rename(target.parent / "b.md")
    assert tree.inspect(target.parent, digests, DigestCache(cache_path)) == "drifted"


def test_a_folder_changed_in_the_racy_window_is_listed_again(work: tuple[Path, Path],
                                                             listed: list[str]) -> None:
    target, cache_path = work
    racy = DigestCache(cache_path, started_ns=target.parent.lstat().st_ctime_ns + 1000)
    tree.inspect(target.parent, {"SKILL.md": content_digest(b"Do the thing.\n")}, racy)
    racy.save(merge=False)
    tree.inspect(target.parent, {}, DigestCache(cache_path, started_ns=_later(target)))
    assert listed == ["skill", "skill"]


def test_a_record_found_in_a_settled_shared_file_is_trusted_while_its_stat_is_unchanged(
    tmp_path: Path,
) -> None:
    """ADR 0081: status remembers which records it found as uze wrote them in a shared
    file; any write to the file (even one that keeps its size and mtime) forgets them."""
    shared = tmp_path / "settings.json"
    shared.write_bytes(b'{"mcpServers": {"a": 1}}')
    cache_path = tmp_path / "cache" / "digests.json"
    first = DigestCache(cache_path, started_ns=_later(shared))
    st = shared.lstat()
    assert not first.was_matched(shared, st, "a")
    first.matched(shared, st, "a")
    first.save(merge=False)

    second = DigestCache(cache_path, started_ns=_later(shared, 5))
    assert second.was_matched(shared, shared.lstat(), "a")
    assert not second.was_matched(shared, shared.lstat(), "b")  # never found there
    second.save(merge=False)  # what it trusted it keeps
    assert DigestCache(cache_path).was_matched(shared, shared.lstat(), "a")

    before = shared.stat()
    shared.write_bytes(b'{"mcpServers": {"a": 2}}')  # same size
    os.utime(shared, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert not DigestCache(cache_path).was_matched(shared, shared.lstat(), "a")


def test_a_record_in_a_link_or_a_racy_file_is_never_remembered(tmp_path: Path) -> None:
    shared = tmp_path / "settings.json"
    shared.write_bytes(b"{}")
    link = tmp_path / "link.json"
    link.symlink_to(shared)
    cache_path = tmp_path / "digests.json"
    racy = DigestCache(cache_path, started_ns=shared.lstat().st_ctime_ns + 1000)
    racy.matched(shared, shared.lstat(), "a")
    racy.matched(link, link.lstat(), "a")
    racy.save(merge=False)
    later = DigestCache(cache_path, started_ns=_later(shared, 5))
    assert not later.was_matched(shared, shared.lstat(), "a")
    later.matched(link, link.lstat(), "a")
    later.save(merge=False)
    assert not DigestCache(cache_path).was_matched(link, link.lstat(), "a")


def test_a_command_that_looks_at_a_few_files_hashes_them_without_reading_the_cache(
        work: tuple[Path, Path], reads: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 32: the cache file holds every package's entries (4.5 MB at 200 packages); an
    install or an uninstall looks at its own few files, so up to as many lookups as reading
    the file costs hash them and leave it unread, and past that the file is read and trusted
    as before: here the file's size is worth three lookups."""
    target, cache_path = work
    files = [target.parent / f"ref-{i}.md" for i in range(4)]
    for path in files:
        path.write_bytes(path.name.encode())
    first = DigestCache(cache_path, started_ns=_later(files[-1]))
    for path in files:
        _digest(first, path)
    first.save(merge=False)
    loads: list[Path | None] = []
    real = statcache._load
    monkeypatch.setattr(statcache, "_load", lambda path: loads.append(path) or real(path))
    monkeypatch.setattr(statcache, "_BYTES_PER_LOOKUP", cache_path.stat().st_size // 3)
    reads.clear()

    few = DigestCache(cache_path, started_ns=_later(files[-1], 5))
    assert [_digest(few, path) for path in files[:3]] == [
        content_digest(path.name.encode()) for path in files[:3]]
    assert (loads, reads) == ([], files[:3])  # hashed: the file is not read
    many = DigestCache(cache_path, started_ns=_later(files[-1], 5))
    assert [_digest(many, path) for path in files] == [
        content_digest(path.name.encode()) for path in files]
    assert loads == [cache_path] and reads == files[:3] * 2  # the 4th known from the file
    saving = DigestCache(cache_path, started_ns=_later(files[-1], 5))
    saving.saves = True  # status: reads the file at its first look
    assert _digest(saving, files[0]) == content_digest(files[0].name.encode())
    assert loads == [cache_path] * 2 and reads == files[:3] * 2
