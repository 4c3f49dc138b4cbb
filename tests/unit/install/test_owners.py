"""An install learns the other packages' artifact keys from receipts it has seen, by file stat
(ADR 0079): an unchanged receipt is not read again, a changed one is, a damaged one is refused,
and what a command learnt is written only for its own scope, after it wrote something."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from uze.commands.install import install
from uze.errors import UzeError
from uze.install import owners
from uze.paths import Paths
from uze.projections import statcache
from uze.state import receipts as receipts_module
from uze.state.context import open_scope

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "hello"


def _package(root: Path, name: str) -> Path:
    source = root / name
    shutil.copytree(EXAMPLE, source)
    manifest = source / "plugin.json"
    manifest.write_text(manifest.read_text().replace('"hello"', f'"{name}"'))
    return source


@pytest.fixture(autouse=True)
def later(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command runs five seconds after the receipts were written (the racy-git rule keeps
    a file written within the last 100 ms out of the cache)."""
    monkeypatch.setattr(owners, "settled",
                        lambda st, started: statcache.settled(st, started + 5_000_000_000))


@pytest.fixture
def world(tmp_path: Path) -> tuple[Paths, Path]:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    paths = Paths(home=tmp_path / "h", uze_home=tmp_path / "uze-home", env={})
    for name in ("one", "two"):
        install(paths, _package(tmp_path, name), project=project, harness="all", cwd=project)
    return paths, project


def test_a_receipt_just_written_is_not_remembered(world: tuple[Paths, Path],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    paths, project = world
    ctx = open_scope(paths, "project", project, project)
    one = ctx.receipts_dir / "one.json"
    one.write_bytes(one.read_bytes())
    with monkeypatch.context() as now:
        now.setattr(owners, "settled", statcache.settled)  # no time has passed
        owners.owners(ctx, exclude="three")
        owners.save(ctx)
    assert "one.json" not in owners._read(owners.cache_path(ctx))
    owners.owners(ctx, exclude="three")  # five seconds later
    owners.save(ctx)
    assert "one.json" in owners._read(owners.cache_path(ctx))


def test_an_unchanged_receipt_is_not_read_again(world: tuple[Paths, Path],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    paths, project = world
    ctx = open_scope(paths, "project", project, project)
    first = owners.owners(ctx, exclude="three")
    assert set(first.values()) == {"one", "two"}
    owners.save(ctx)
    assert owners.cache_path(ctx).is_file()

    read: list[Path] = []
    real = receipts_module.load_receipt
    monkeypatch.setattr(receipts_module, "load_receipt",
                        lambda path: read.append(path) or real(path))
    again = owners.owners(open_scope(paths, "project", project, project), exclude="three")
    assert again == first
    assert read == []

    one = ctx.receipts_dir / "one.json"
    one.write_bytes(one.read_bytes())  # same bytes, new ctime: read again
    assert owners.owners(open_scope(paths, "project", project, project), "three") == first
    assert read == [one]


def test_a_damaged_receipt_is_refused_even_after_it_was_cached(
        world: tuple[Paths, Path]) -> None:
    paths, project = world
    ctx = open_scope(paths, "project", project, project)
    owners.owners(ctx, exclude="three")
    owners.save(ctx)
    (ctx.receipts_dir / "two.json").write_text('{"name": "two"}')
    with pytest.raises(UzeError, match=r"two\.json"):
        owners.owners(open_scope(paths, "project", project, project), exclude="three")


def test_what_one_scope_learnt_is_never_written_for_another(
        world: tuple[Paths, Path], tmp_path: Path) -> None:
    paths, project = world
    ctx = open_scope(paths, "project", project, project)
    owners.cache_path(ctx).unlink()
    owners.owners(ctx, exclude="three")  # learnt, not saved: its command failed, say
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    owners.save(open_scope(paths, "project", other, other))
    assert not owners.cache_path(ctx).exists()
    assert not list((paths.uze_home / "cache").glob("owners-*.json"))


def test_asked_again_it_reads_nothing_unless_a_receipt_file_or_the_cache_changed(
        world: tuple[Paths, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """An install asks before and under the lock: the second answer is the first's when every
    receipt file and the cache are as they were, and is worked out again when one is not (each
    question from a new context, which remembers no receipt of its own)."""
    paths, project = world

    def asked(exclude: str = "three") -> set[str]:
        return set(owners.owners(open_scope(paths, "project", project, project), exclude).values())

    ctx = open_scope(paths, "project", project, project)
    owners.cache_path(ctx).unlink()
    read: list[str] = []
    real = receipts_module.load_receipt
    monkeypatch.setattr(receipts_module, "load_receipt",
                        lambda path: read.append(path.name) or real(path))
    first = owners.owners(ctx, exclude="three")
    assert sorted(read) == ["one.json", "two.json"]
    first.clear()  # the caller's own dict
    assert asked() == {"one", "two"}
    assert sorted(read) == ["one.json", "two.json"]  # nothing read again

    read.clear()
    assert asked("two") == {"one"}  # another question
    assert sorted(read) == ["one.json", "two.json"]
    two = ctx.receipts_dir / "two.json"
    two.write_bytes(two.read_bytes())  # same bytes, new ctime: read again
    assert asked() == {"one", "two"}
    read.clear()
    two.rename(ctx.receipts_dir / "two.json.gone")
    assert asked() == {"one"}
    assert read == ["one.json"]
    owners.save(ctx)
    assert sorted(owners._read(owners.cache_path(ctx))) == ["one.json"]
    read.clear()
    assert asked() == {"one"}  # from the cache
    assert read == []
    owners.cache_path(ctx).write_bytes(b"damaged")  # the cache changed: read again, no error
    assert asked() == {"one"}
    assert read == ["one.json"]
