"""state.verdicts (ADR 0101): a package found matched is taken as it was only while its receipt
file and every path its inspection looked at keep their stats; anything else, a racy stat, a
damaged cache, inspects it again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from uze.projections import tree
from uze.projections.statcache import DigestCache, stat_key
from uze.state.verdicts import Verdicts

SECOND = 1_000_000_000
STATES = ("matched", "disabled", "matched")


@pytest.fixture
def package(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A delivered folder (two files, a subfolder), its receipt file and the cache file."""
    folder = tmp_path / "project" / ".claude" / "skills" / "kit"
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_bytes(b"---\nname: kit\n---\nDo it.\n")
    (folder / "references" / "guide.md").write_bytes(b"Step one.\n")
    receipt = tmp_path / "project" / ".uze" / "receipts" / "kit.json"
    receipt.parent.mkdir(parents=True)
    receipt.write_bytes(b'{"name": "kit"}\n')
    return folder, receipt, tmp_path / "uze-home" / "cache" / "verdicts.msgpack"


def _later(*paths: Path) -> int:
    """A command that starts well after each path last changed."""
    return max(p.lstat().st_ctime_ns for p in paths) + 5 * SECOND


def _inspect(folder: Path, receipt: Path, cache: Path, started: int,
             where: str = "root") -> Verdicts:
    """What status does for one package whose folder is matched: look, then remember."""
    hashes = DigestCache(None, started_ns=started)
    hashes.deps = []
    digests = {rel: hashes.digest(path, st) for rel, (path, st) in hashes.files(folder).items()}
    hashes.deps = []  # what the inspection proper looks at
    assert tree.inspect(folder, digests, hashes) == "matched"
    verdicts = Verdicts(cache, where, started_ns=started)
    verdicts.remember(receipt, stat_key(receipt.stat()), STATES, hashes.deps)
    verdicts.save(merge=False)
    return verdicts


def _unasked(index: int) -> bool:
    raise AssertionError(f"record {index} re-checked: no shared file of it changed")


def _states(receipt: Path, cache: Path, where: str = "root") -> tuple[str, ...] | None:
    return Verdicts(cache, where).states(receipt, stat_key(receipt.stat()), _unasked)


def test_a_matched_package_is_taken_as_it_was_while_every_stat_is_the_same(
        package: tuple[Path, Path, Path]) -> None:
    folder, receipt, cache = package
    _inspect(folder, receipt, cache, _later(folder, receipt))
    again = Verdicts(cache, "root")
    assert again.states(receipt, stat_key(receipt.stat()), _unasked) == STATES
    # every path it rests on: the folder, its subfolder, each file
    assert again.trusted == {str(folder), str(folder / "references"), str(folder / "SKILL.md"),
                             str(folder / "references" / "guide.md")}


def test_an_edit_that_keeps_size_and_mtime_is_not_trusted(
        package: tuple[Path, Path, Path]) -> None:
    folder, receipt, cache = package
    _inspect(folder, receipt, cache, _later(folder, receipt))
    guide = folder / "references" / "guide.md"
    before = guide.stat()
    guide.write_bytes(b"Step two.\n")  # the same size
    os.utime(guide, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the old mtime
    assert (guide.stat().st_size, guide.stat().st_mtime_ns) == (before.st_size,
                                                                 before.st_mtime_ns)
    assert _states(receipt, cache) is None  # its ctime moved


@pytest.mark.parametrize("change", ["added", "removed", "folder removed"])
def test_a_name_added_or_removed_anywhere_in_the_folder_is_not_trusted(
        package: tuple[Path, Path, Path], change: str) -> None:
    folder, receipt, cache = package
    _inspect(folder, receipt, cache, _later(folder, receipt))
    if change == "added":
        (folder / "references" / "new.md").write_bytes(b"x")
    elif change == "removed":
        (folder / "references" / "guide.md").unlink()
    else:
        (folder / "references" / "guide.md").unlink()
        (folder / "references").rmdir()
    assert _states(receipt, cache) is None


def test_another_receipt_or_another_place_is_never_trusted(
        package: tuple[Path, Path, Path]) -> None:
    folder, receipt, cache = package
    _inspect(folder, receipt, cache, _later(folder, receipt))
    assert _states(receipt, cache, where="elsewhere") is None  # another project root or HOME
    receipt.write_bytes(b'{"name": "kit"}\n')  # rewritten with the same bytes: a new stat
    assert _states(receipt, cache) is None
    receipt.unlink()
    assert Verdicts(cache, "root").states(receipt, (1, 2, 3, 4, 5), _unasked) is None


def test_a_racy_stat_or_a_path_seen_twice_differently_is_never_remembered(
        package: tuple[Path, Path, Path]) -> None:
    folder, receipt, cache = package
    _inspect(folder, receipt, cache, started=receipt.lstat().st_ctime_ns + 1000)  # racy
    assert _states(receipt, cache) is None
    verdicts = Verdicts(cache, "root", started_ns=_later(folder, receipt))
    st = stat_key(folder.lstat())
    verdicts.remember(receipt, stat_key(receipt.stat()), STATES,
                      [(str(folder), st), (str(folder), (*st[:4], st[4] + 1))])
    verdicts.save(merge=False)
    assert _states(receipt, cache) is None


@pytest.mark.parametrize("damage", [b"", b"not a cache", b"0" * 64 + b"\nxx", "flip"])
def test_a_damaged_cache_is_ignored_and_rebuilt(package: tuple[Path, Path, Path],
                                                damage: bytes | str) -> None:
    folder, receipt, cache = package
    started = _later(folder, receipt)
    _inspect(folder, receipt, cache, started)
    data = cache.read_bytes()
    cache.write_bytes(data[:-1] + bytes([data[-1] ^ 1]) if damage == "flip" else damage)
    assert _states(receipt, cache) is None
    _inspect(folder, receipt, cache, started)  # the next status writes it whole again
    assert _states(receipt, cache) == STATES


def test_save_keeps_the_other_packages_only_when_merging(
        package: tuple[Path, Path, Path]) -> None:
    folder, receipt, cache = package
    _inspect(folder, receipt, cache, _later(folder, receipt))
    Verdicts(cache, "root").save(merge=True)  # `status NAME` of another package
    assert _states(receipt, cache) == STATES
    Verdicts(cache, "root").save(merge=False)  # a status that found this package no more
    assert _states(receipt, cache) is None


# A package's records in a shared file (ADR 0107): kept by record, not by the file's stat.

def _with_shared(folder: Path, receipt: Path, cache: Path, shared: Path,
                 indexes: tuple[int, ...] = (2, 5)) -> None:
    """Remember the package with its records `indexes` found matched in `shared`."""
    started = _later(folder, receipt, shared)
    hashes = DigestCache(None, started_ns=started)
    hashes.deps = []
    digests = {rel: hashes.digest(path, st) for rel, (path, st) in hashes.files(folder).items()}
    assert tree.inspect(folder, digests, hashes) == "matched"
    verdicts = Verdicts(cache, "root", started_ns=started)
    verdicts.remember(receipt, stat_key(receipt.stat()), STATES, hashes.deps,
                      [(i, str(shared), shared.lstat()) for i in indexes])
    verdicts.save(merge=False)


@pytest.fixture
def settings(package: tuple[Path, Path, Path]) -> Path:
    """A shared file holding this package's entries and another's."""
    path = package[0].parents[2] / "settings.json"
    path.write_bytes(b'{"mine": 1, "theirs": 2}\n')
    return path


def test_an_unchanged_shared_file_asks_for_no_record(package: tuple[Path, Path, Path],
                                                    settings: Path) -> None:
    folder, receipt, cache = package
    _with_shared(folder, receipt, cache, settings)
    verdicts = Verdicts(cache, "root")
    assert verdicts.states(receipt, stat_key(receipt.stat()), _unasked) == STATES
    assert str(settings) in verdicts.trusted  # the digest cache keeps what it knew of it


def test_a_rewritten_shared_file_rechecks_only_the_packages_records_there(
        package: tuple[Path, Path, Path], settings: Path) -> None:
    folder, receipt, cache = package
    _with_shared(folder, receipt, cache, settings)
    settings.write_bytes(b'{"mine": 1, "theirs": 2, "another package": 3}\n')  # an install
    asked: list[int] = []
    verdicts = Verdicts(cache, "root", started_ns=_later(settings))
    assert verdicts.states(receipt, stat_key(receipt.stat()),
                           lambda i: asked.append(i) is None) == STATES
    assert asked == [2, 5]  # each of its records in that file, once; its folder not at all
    verdicts.save(merge=False)
    # checked at the file's new stat: the next status trusts that stat again
    assert _states(receipt, cache) == STATES


def test_a_record_no_longer_matched_in_a_rewritten_shared_file_is_not_trusted(
        package: tuple[Path, Path, Path], settings: Path) -> None:
    folder, receipt, cache = package
    _with_shared(folder, receipt, cache, settings)
    settings.write_bytes(b'{"mine": 9, "theirs": 2}\n')  # its own entry edited by hand
    assert Verdicts(cache, "root").states(receipt, stat_key(receipt.stat()),
                                          lambda i: i != 5) is None


def test_a_shared_file_checked_within_the_racy_window_is_checked_again(
        package: tuple[Path, Path, Path], settings: Path) -> None:
    folder, receipt, cache = package
    _with_shared(folder, receipt, cache, settings)
    settings.write_bytes(b'{"mine": 1, "theirs": 3}\n')
    asked: list[int] = []
    racy = Verdicts(cache, "root", started_ns=settings.lstat().st_ctime_ns + 1000)
    assert racy.states(receipt, stat_key(receipt.stat()),
                       lambda i: asked.append(i) is None) == STATES
    racy.save(merge=False)
    again = Verdicts(cache, "root", started_ns=_later(settings))
    assert again.states(receipt, stat_key(receipt.stat()),
                        lambda i: asked.append(i) is None) == STATES
    assert asked == [2, 5, 2, 5]  # its stat was not remembered: checked once more


def test_a_shared_file_that_is_a_link_is_never_trusted_by_its_stat(
        package: tuple[Path, Path, Path], settings: Path, tmp_path: Path) -> None:
    folder, receipt, cache = package
    _with_shared(folder, receipt, cache, settings)
    real = tmp_path / "elsewhere.json"
    real.write_bytes(settings.read_bytes())
    settings.unlink()
    settings.symlink_to(real)
    asked: list[int] = []
    verdicts = Verdicts(cache, "root", started_ns=_later(settings, real))
    assert verdicts.states(receipt, stat_key(receipt.stat()),
                           lambda i: asked.append(i) is None) == STATES
    verdicts.save(merge=False)
    assert Verdicts(cache, "root").states(receipt, stat_key(receipt.stat()),
                                          lambda i: asked.append(i) is None) == STATES
    assert asked == [2, 5, 2, 5]  # a link's own stat says nothing of the file it points to
    # and a package whose records sit behind a link is not remembered at all
    _with_shared(folder, receipt, cache, settings)
    assert _states(receipt, cache) is None
