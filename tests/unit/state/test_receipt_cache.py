"""state.receipt_cache (ADR 0101): a receipt whose file keeps its stat is not read again; any
change to it, a damaged or foreign cache, reads and checks it whole; link checks run always."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from uze.errors import ReceiptRefused, ReceiptUnreadable
from uze.paths import Paths
from uze.state import receipt_cache, receipts
from uze.state.context import ScopeContext, open_scope
from uze.state.receipts import ProjectionRecord, Receipt, TreeArtifact, dump_receipt

DIGEST = "a" * 64


def _receipt(name: str, version: str = "1.0.0") -> Receipt:
    return Receipt(
        name=name, version=version, tree=DIGEST, scope="project", harnesses=["codex"],
        projections=[ProjectionRecord(kind="skill", resource="s", harness="codex",
                                      route="native", target=f".agents/skills/{name}")],
        artifacts=[TreeArtifact(target=f".agents/skills/{name}", files={"SKILL.md": DIGEST},
                                harnesses=["codex"])])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with two settled receipts."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True, exist_ok=True)
    folder = root / ".uze" / "receipts"
    folder.mkdir(parents=True)
    for name in ("alpha", "beta"):
        (folder / f"{name}.json").write_bytes(dump_receipt(_receipt(name)))
    time.sleep(0.25)  # past the racy window (ADR 0011)
    return root


def _scope(tmp_path: Path, project: Path, home: str = "home") -> ScopeContext:
    paths = Paths.from_env({"HOME": str(tmp_path / home), "UZE_HOME": str(tmp_path / "uze")})
    return open_scope(paths, "project", project, project)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The name of every receipt file read."""
    seen: list[str] = []
    real = receipts.load_receipt

    def counting(path: Path) -> Receipt:
        seen.append(path.name)
        return real(path)

    monkeypatch.setattr(receipts, "load_receipt", counting)
    return seen


def test_an_unchanged_receipt_is_taken_from_the_cache(tmp_path: Path, project: Path,
                                                       reads: list[str]) -> None:
    first = receipt_cache.receipts(_scope(tmp_path, project))
    assert reads == ["alpha.json", "beta.json"]
    ctx = _scope(tmp_path, project)
    assert receipt_cache.receipts(ctx) == first == [_receipt("alpha"), _receipt("beta")]
    assert reads == ["alpha.json", "beta.json"]  # not read again
    assert set(ctx.loaded) == {ctx.receipt_file("alpha"), ctx.receipt_file("beta")}


def test_a_changed_deleted_or_damaged_receipt_is_read_again(tmp_path: Path, project: Path,
                                                            reads: list[str]) -> None:
    receipt_cache.receipts(_scope(tmp_path, project))
    alpha = project / ".uze" / "receipts" / "alpha.json"
    before = alpha.stat()
    alpha.write_bytes(dump_receipt(_receipt("alpha", "1.0.1")))  # the same size
    os.utime(alpha, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the old mtime
    assert alpha.stat().st_size == before.st_size
    found = receipt_cache.receipts(_scope(tmp_path, project))
    assert [r.version for r in found] == ["1.0.1", "1.0.0"]
    assert reads[-1:] == ["alpha.json"]
    (project / ".uze" / "receipts" / "beta.json").unlink()
    assert [r.name for r in receipt_cache.receipts(_scope(tmp_path, project))] == ["alpha"]
    alpha.write_bytes(b'{"broken')
    with pytest.raises(ReceiptUnreadable, match=r"alpha\.json"):
        receipt_cache.receipts(_scope(tmp_path, project))


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "other home", "other version"])
def test_a_damaged_or_foreign_cache_is_ignored_and_rebuilt(
        tmp_path: Path, project: Path, reads: list[str], monkeypatch: pytest.MonkeyPatch,
        damage: str) -> None:
    receipt_cache.receipts(_scope(tmp_path, project))
    cache = receipt_cache.cache_path(_scope(tmp_path, project))
    data = cache.read_bytes()
    home = "home"
    if damage == "flip":
        cache.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    elif damage == "truncate":
        cache.write_bytes(data[: len(data) // 2])
    elif damage == "empty":
        cache.write_bytes(b"")
    elif damage == "other home":
        home = "elsewhere"
    else:
        monkeypatch.setattr(receipt_cache, "__version__", "9.9.9")
    del reads[:]
    assert len(receipt_cache.receipts(_scope(tmp_path, project, home))) == 2
    assert reads == ["alpha.json", "beta.json"]  # read whole again
    del reads[:]
    receipt_cache.receipts(_scope(tmp_path, project, home))
    assert reads == []  # and the cache written again


def test_a_link_on_the_way_is_refused_even_for_a_kept_receipt(tmp_path: Path,
                                                              project: Path) -> None:
    receipt_cache.receipts(_scope(tmp_path, project))
    (tmp_path / "elsewhere").mkdir()
    (project / ".agents").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ReceiptRefused, match=r"alpha\.json") as refused:
        receipt_cache.receipts(_scope(tmp_path, project))
    assert refused.value.details == (
        f"artifacts.0.target: {project / '.agents'} is a symbolic link",)
