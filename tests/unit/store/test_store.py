"""The content-addressed store, on real files in tmp_path."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from blake3 import blake3

from tests.helpers import Flushes
from uze import fs
from uze.errors import StoreCorrupt, UzeError
from uze.store import GcReport, Store, TreeEntry, digest_bytes

META = {"name": "demo", "version": "1.0.0"}


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every path under root with its mtime_ns and mode."""
    found: dict[str, tuple[int, int]] = {}
    for path in [root, *root.rglob("*")]:
        info = path.lstat()
        found[path.relative_to(root).as_posix()] = (info.st_mtime_ns, info.st_mode)
    return found


def files_under(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def tamper(path: Path, data: bytes) -> None:
    path.chmod(0o644)
    path.write_bytes(data)


def package(version: int) -> list[tuple[str, bytes, bool]]:
    return [
        ("README.md", b"# demo\n", False),
        ("bin/run", b"#!/bin/sh\necho run\n", True),
        ("skills/a/SKILL.md", b"skill a\n" * 50, False),
        ("VERSION", f"{version}\n".encode(), False),
    ]


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "store")


def test_put_then_read_returns_the_same_bytes(store: Store) -> None:
    digest = store.put(b"hello\n")
    assert store.read(digest) == b"hello\n"
    assert store.has(digest)


def test_object_name_is_the_blake3_digest_of_its_bytes(store: Store) -> None:
    data = b"\x00\xffsome bytes"
    digest = store.put(data)
    expected = blake3(data).hexdigest()
    assert digest == expected == digest_bytes(data)
    assert store.object_path(digest) == store.root / "objects" / expected[:2] / expected[2:]
    assert store.object_path(digest).read_bytes() == data


def test_putting_the_same_bytes_twice_writes_nothing(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.put(b"once")
    before = snapshot(store.root)
    calls: list[Path] = []
    monkeypatch.setattr(fs, "atomic_write", lambda path, *a, **k: calls.append(path))
    store.put(b"once")
    assert calls == []
    assert snapshot(store.root) == before


def test_objects_and_trees_have_no_write_bits(store: Store) -> None:
    tree = store.ingest(package(1), META)
    paths = [store.tree_path(tree)] + [store.object_path(e.digest) for e in store.read_tree(tree)]
    for path in paths:
        assert stat.S_IMODE(path.stat().st_mode) & 0o222 == 0, path


def test_tree_round_trips_entries_and_meta(store: Store) -> None:
    a, b = store.put(b"a"), store.put(b"b")
    entries = [TreeEntry("z/b.sh", b, True), TreeEntry("a.md", a, False)]
    tree = store.put_tree(entries, META)
    assert store.has_tree(tree)
    assert store.read_tree(tree) == (TreeEntry("a.md", a, False), TreeEntry("z/b.sh", b, True))
    assert store.read_tree_meta(tree) == META


def test_tree_digest_does_not_depend_on_entry_order(store: Store) -> None:
    a, b, c = (store.put(x) for x in (b"a", b"b", b"c"))
    entries = [TreeEntry("one", a, False), TreeEntry("two", b, True), TreeEntry("x/3", c, False)]
    first = store.put_tree(entries, META)
    second = store.put_tree(list(reversed(entries)), dict(reversed(list(META.items()))))
    assert first == second


def test_tree_manifest_is_canonical_json_named_by_its_hash(store: Store) -> None:
    a = store.put(b"a")
    tree = store.put_tree([TreeEntry("b", a, True), TreeEntry("a", a, False)], META)
    data = store.tree_path(tree).read_bytes()
    assert blake3(data).hexdigest() == tree
    document = {"schema_version": 1, "meta": META, "entries": [["a", a, "-"], ["b", a, "x"]]}
    assert data == (json.dumps(document, indent=2, sort_keys=True) + "\n").encode()


def test_ten_versions_differing_in_one_file_add_one_object_and_one_tree_each(
    store: Store,
) -> None:
    store.ingest(package(0), META)
    objects, trees = store.root / "objects", store.root / "trees"
    for version in range(1, 11):
        before = (len(files_under(objects)), len(files_under(trees)))
        store.ingest(package(version), {**META, "version": f"1.0.{version}"})
        assert (len(files_under(objects)), len(files_under(trees))) == (
            before[0] + 1,
            before[1] + 1,
        )


def test_ingesting_the_same_files_twice_writes_nothing(store: Store) -> None:
    first = store.ingest(package(1), META)
    before = snapshot(store.root)
    assert store.ingest(reversed(package(1)), META) == first
    assert snapshot(store.root) == before


def test_ingest_with_a_bad_path_writes_no_blob(store: Store) -> None:
    with pytest.raises(ValueError, match=r"'\.\.'"):
        store.ingest([("ok", b"fine", False), ("../escape", b"x", False)], META)
    assert files_under(store.root) == []


def test_reading_a_tampered_object_raises_store_corrupt(store: Store) -> None:
    digest = store.put(b"original")
    tamper(store.object_path(digest), b"tampered")
    with pytest.raises(StoreCorrupt, match=digest):
        store.read(digest)


def test_reading_a_missing_object_raises_store_corrupt(store: Store) -> None:
    with pytest.raises(StoreCorrupt):
        store.read(digest_bytes(b"never stored"))


def test_putting_bytes_again_repairs_a_tampered_object(store: Store) -> None:
    digest = store.put(b"original")
    tamper(store.object_path(digest), b"tampered")
    assert store.put(b"original") == digest
    assert store.read(digest) == b"original"
    assert stat.S_IMODE(store.object_path(digest).stat().st_mode) & 0o222 == 0


@pytest.mark.parametrize(
    "manifest",
    [
        b"not json",
        b"[]",
        b'{"schema_version": 1, "meta": {}}',
        b'{"schema_version": 0, "meta": {}, "entries": []}',
        b'{"schema_version": 1, "meta": {"n": 1}, "entries": []}',
        b'{"schema_version": 1, "meta": [], "entries": []}',
        b'{"schema_version": 1, "meta": {}, "entries": {}}',
        b'{"schema_version": 1, "meta": {}, "entries": [[1, "x", "-"]]}',
        b'{"schema_version": 1, "meta": {}, "entries": [["a", "nothex", "-"]]}',
        b'{"schema_version": 1, "meta": {}, "entries": [["a", "' + b"0" * 64 + b'", "w"]]}',
        b'{"schema_version": 1, "meta": {}, "entries": [["b", "'
        + b"0" * 64
        + b'", "-"], ["a", "'
        + b"0" * 64
        + b'", "-"]]}',
    ],
)
def test_a_malformed_tree_that_hashes_to_its_name_is_corrupt(store: Store, manifest: bytes) -> None:
    digest = digest_bytes(manifest)
    fs.atomic_write(store.tree_path(digest), manifest)
    with pytest.raises(StoreCorrupt, match=digest):
        store.read_tree(digest)


def test_reading_a_tampered_tree_raises_store_corrupt(store: Store) -> None:
    tree = store.ingest(package(1), META)
    tamper(store.tree_path(tree), store.tree_path(tree).read_bytes().replace(b"demo", b"evil"))
    with pytest.raises(StoreCorrupt):
        store.read_tree(tree)
    with pytest.raises(StoreCorrupt):
        store.read_tree_meta(tree)


def test_a_tree_from_a_newer_uze_is_refused_with_an_upgrade_message(store: Store) -> None:
    manifest = b'{"schema_version": 7, "whatever": true}\n'
    digest = digest_bytes(manifest)
    fs.atomic_write(store.tree_path(digest), manifest)
    with pytest.raises(UzeError, match=r"written by a newer uze \(schema 7\); upgrade uze"):
        store.read_tree(digest)


def test_verify_of_a_clean_store_finds_nothing_wrong(store: Store) -> None:
    store.ingest(package(1), META)
    report = store.verify()
    assert (report.objects, report.trees) == (4, 1)
    assert report.is_clean


def test_verify_of_an_empty_store_finds_nothing(store: Store) -> None:
    report = store.verify()
    assert (report.objects, report.trees, report.is_clean) == (0, 0, True)


def test_verify_reports_a_tampered_object_and_a_missing_blob(store: Store) -> None:
    tree = store.ingest(package(1), META)
    entries = store.read_tree(tree)
    tampered, gone = store.object_path(entries[0].digest), store.object_path(entries[1].digest)
    tamper(tampered, b"evil")
    fs.remove_read_only(gone)
    report = store.verify()
    assert report.corrupt == (tampered.relative_to(store.root).as_posix(),)
    assert report.missing == (gone.relative_to(store.root).as_posix(),)
    assert report.stray == ()
    assert not report.is_clean


def test_verify_reports_a_tampered_tree(store: Store) -> None:
    tree = store.ingest(package(1), META)
    tamper(store.tree_path(tree), b"{}")
    assert store.verify().corrupt == (store.tree_path(tree).relative_to(store.root).as_posix(),)


def test_verify_reports_stray_temp_files_and_badly_named_entries(store: Store) -> None:
    digest = store.put(b"x")
    fanout = store.object_path(digest).parent
    (fanout / f".{digest[2:]}{fs.TEMP_MARK}abc").write_bytes(b"partial")
    (fanout / "short").write_bytes(b"?")
    (store.root / "objects" / "zz").mkdir()
    (store.root / "trees").mkdir()
    (store.root / "trees" / "notes.txt").write_bytes(b"?")
    report = store.verify()
    assert report.stray == (
        f"objects/{digest[:2]}/.{digest[2:]}{fs.TEMP_MARK}abc",
        f"objects/{digest[:2]}/short",
        "objects/zz",
        "trees/notes.txt",
    )
    assert report.objects == 1
    assert report.corrupt == report.missing == ()


def test_gc_removes_unreferenced_blobs_and_trees_and_keeps_every_referenced_one(
    store: Store,
) -> None:
    old = store.ingest(package(1), META)
    live = store.ingest(package(2), META)
    orphan = store.put(b"nobody uses me")
    old_tree_size = store.tree_path(old).stat().st_size
    report = store.gc([live])
    assert report == GcReport(
        removed_objects=2,
        removed_trees=1,
        freed_bytes=len(b"1\n") + len(b"nobody uses me") + old_tree_size,
        kept_objects=4,
    )
    assert not store.has_tree(old)
    assert not store.has(orphan)
    assert all(store.read(e.digest) for e in store.read_tree(live))
    assert store.verify().is_clean


def test_gc_with_nothing_live_empties_the_store_and_its_fanout_folders(store: Store) -> None:
    store.ingest(package(1), META)
    report = store.gc([])
    assert (report.removed_objects, report.removed_trees, report.kept_objects) == (4, 1, 0)
    assert report.freed_bytes > 0
    assert list((store.root / "objects").iterdir()) == []
    assert list((store.root / "trees").iterdir()) == []
    assert store.size_bytes() == 0


def test_gc_removes_leftover_temp_files_but_keeps_badly_named_files(store: Store) -> None:
    digest = store.put(b"x")
    fanout = store.object_path(digest).parent
    temp = fanout / f".{digest[2:]}{fs.TEMP_MARK}abc"
    temp.write_bytes(b"partial")
    top_temp = store.root / "objects" / f".x{fs.TEMP_MARK}1"
    top_temp.write_bytes(b"partial")
    foreign = fanout / "notes.txt"
    foreign.write_bytes(b"not ours")
    store.gc([])
    assert not temp.exists()
    assert not top_temp.exists()
    assert foreign.read_bytes() == b"not ours"


def test_gc_with_an_unreadable_live_tree_removes_nothing(store: Store) -> None:
    tree = store.ingest(package(1), META)
    orphan = store.put(b"orphan")
    tamper(store.tree_path(tree), b"{}")
    before = snapshot(store.root)
    with pytest.raises(StoreCorrupt):
        store.gc([tree])
    with pytest.raises(StoreCorrupt):
        store.gc([digest_bytes(b"no such tree")])
    assert snapshot(store.root) == before
    assert store.has(orphan)


def test_gc_keeps_a_blob_shared_by_a_live_and_a_dead_tree(store: Store) -> None:
    shared = store.put(b"shared")
    dead = store.put_tree([TreeEntry("a", shared, False)], {"name": "dead"})
    live = store.put_tree([TreeEntry("b", shared, False)], {"name": "live"})
    report = store.gc([live])
    assert (report.removed_objects, report.removed_trees, report.kept_objects) == (0, 1, 1)
    assert store.read(shared) == b"shared"
    assert not store.has_tree(dead)


def refuse_replace(src: object, dst: object) -> None:
    raise OSError("disk full")


def test_a_failed_replace_leaves_no_object_and_no_temp_file(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("uze.fs.os.replace", refuse_replace)
    with pytest.raises(OSError, match="disk full"):
        store.put(b"doomed")
    monkeypatch.undo()
    assert not store.has(digest_bytes(b"doomed"))
    assert files_under(store.root) == []
    assert store.verify().is_clean


def test_a_failed_replace_keeps_existing_objects(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = store.put(b"kept")
    monkeypatch.setattr("uze.fs.os.replace", refuse_replace)
    with pytest.raises(OSError):
        store.ingest([("a", b"kept", False), ("b", b"new", False)], META)
    monkeypatch.undo()
    assert store.read(kept) == b"kept"
    assert files_under(store.root) == [store.object_path(kept).relative_to(store.root).as_posix()]


def test_a_full_disk_part_way_through_ingest_takes_back_only_what_that_ingest_added(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    kept = store.put(b"kept")
    real_put = fs._put
    writes = {"n": 0}

    def fill_up_at_third(handle: object, data: bytes) -> None:
        writes["n"] += 1
        if writes["n"] == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_put(handle, data)  # type: ignore[arg-type]

    monkeypatch.setattr(fs, "_put", fill_up_at_third)
    with pytest.raises(UzeError, match="no space left on device while writing"):
        store.ingest([("a", b"new-1", False), ("b", b"new-2", False), ("c", b"kept", False),
                      ("d", b"new-3", False)], META)
    monkeypatch.undo()
    assert writes["n"] == 3  # two new objects were written before the disk filled up
    assert files_under(store.root) == [store.object_path(kept).relative_to(store.root).as_posix()]
    assert store.read(kept) == b"kept"


def test_put_tree_with_a_missing_blob_raises_and_writes_no_tree(store: Store) -> None:
    absent = digest_bytes(b"never stored")
    with pytest.raises(StoreCorrupt, match=absent):
        store.put_tree([TreeEntry("a", absent, False)], META)
    assert not (store.root / "trees").exists()


@pytest.mark.parametrize(
    ("paths", "message"),
    [
        (["a", "a"], "duplicate"),
        (["/abs"], "relative"),
        (["a\\b"], "relative"),
        (["a/../b"], r"'\.\.'"),
        (["a//b"], "empty"),
        ([""], "non-empty"),
    ],
)
def test_put_tree_rejects_duplicate_and_unsafe_paths(
    store: Store, paths: list[str], message: str
) -> None:
    digest = store.put(b"x")
    with pytest.raises(ValueError, match=message):
        store.put_tree([TreeEntry(p, digest, False) for p in paths], META)


def test_put_tree_rejects_bad_meta_digests_modes_and_unencodable_paths(store: Store) -> None:
    digest = store.put(b"x")
    with pytest.raises(ValueError, match="strings"):
        store.put_tree([TreeEntry("a", digest, False)], {"n": 1})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="digest"):
        store.put_tree([TreeEntry("a", "ABC", False)], META)
    with pytest.raises(ValueError, match="bool"):
        store.put_tree([TreeEntry("a", digest, 1)], META)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="UTF-8"):
        store.put_tree([TreeEntry("bad\udcff", digest, False)], META)


def test_malformed_digests_are_never_present_and_have_no_path(store: Store) -> None:
    assert not store.has("../../etc/passwd")
    assert not store.has_tree("A" * 64)
    with pytest.raises(ValueError, match="digest"):
        store.object_path("../" + "0" * 61)


def test_size_bytes_counts_objects_and_trees(store: Store) -> None:
    assert store.size_bytes() == 0
    tree = store.ingest(package(1), META)
    expected = sum(len(data) for _, data, _ in package(1))
    expected += store.tree_path(tree).stat().st_size
    assert store.size_bytes() == expected


@pytest.mark.skipif(os.name != "posix", reason="symlinks need privileges on Windows")
def test_put_replaces_a_symlink_squatting_on_an_object_name(store: Store, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.write_bytes(b"keep me")
    path = store.object_path(digest_bytes(b"data"))
    path.parent.mkdir(parents=True)
    path.symlink_to(target)
    store.put(b"data")
    assert not path.is_symlink()
    assert target.read_bytes() == b"keep me"
    assert store.read(digest_bytes(b"data")) == b"data"


def test_put_is_durable_on_its_own_and_ingest_flushes_once(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ADR 0014: a lone put fsyncs its object; an ingest writes many and flushes them once."""
    flushes = Flushes(monkeypatch, lambda: None)
    store.put(b"alone")
    assert flushes.fsyncs >= 2 and flushes.barriers == []  # the file and its folder
    before = flushes.fsyncs
    store.ingest(package(1), {"name": "pkg"})
    assert flushes.fsyncs == before
    assert len(flushes.barriers) == 1
    assert sorted(flushes.barriers[0][0]) == sorted(store.added[1:])
