"""Install makes what it created durable with one barrier at commit (ADR 0014).

New skill files and new store objects skip the per-file fsync; the commit flushes them all
before the journal goes, so a power cut before that point leaves a journal whose rollback
removes them, and one after it finds them on disk.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from tests.helpers import Flushes
from uze.commands.install import install
from uze.paths import Paths

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "hello"


class _Run:
    """One install of the example package with `extra` more skill files, flushes recorded."""

    def __init__(self, root: Path, extra: int, monkeypatch: pytest.MonkeyPatch) -> None:
        source = root / "pkg"
        shutil.copytree(EXAMPLE, source)
        for i in range(extra):
            (source / "skills" / "greet" / f"ref-{i:02d}.md").write_text(f"reference {i}\n")
        self.project = root / "proj"
        (self.project / ".git").mkdir(parents=True)
        self.paths = Paths(home=root / "h", uze_home=root / "uze-home", env={})
        journals = self.paths.uze_home / "journal"
        with monkeypatch.context() as patch:
            self.flushes = Flushes(patch, lambda: len(list(journals.rglob("ops.jsonl"))))
            install(self.paths, source, project=self.project, harness="all", cwd=self.project)
        self.journals_left = list(journals.rglob("ops.jsonl"))


def _each_place_has(delivered: list[Path], files: int) -> bool:
    """Whether the skill went to two places or more (the shared `.agents/skills` copy and
    Claude Code's plugin folder, with every harness of the registry), each with all `files`."""
    places = Counter(path.parent for path in delivered)
    return len(places) >= 2 and set(places.values()) == {files}


def test_install_flushes_new_files_and_store_objects_in_one_barrier_before_the_journal_goes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _Run(tmp_path, 30, monkeypatch)
    assert len(run.flushes.barriers) == 1
    flushed, live_journals = run.flushes.barriers[0]
    assert live_journals == 1, "the barrier must run while the journal can still roll back"
    assert run.journals_left == []
    objects = [p for p in (run.paths.uze_home / "store").rglob("*") if p.is_file()]
    assert len(objects) > 30 and set(objects) <= set(flushed)
    delivered = list(run.project.rglob("ref-*.md"))
    assert set(delivered) <= set(flushed)
    assert _each_place_has(delivered, 30)


def test_the_fsyncs_of_an_install_do_not_grow_with_its_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = _Run(tmp_path / "small", 0, monkeypatch)
    large = _Run(tmp_path / "large", 40, monkeypatch)
    assert _each_place_has(list(large.project.rglob("ref-*.md")), 40)
    # Journal lines, config files and receipts still get their own fsync: the same number.
    assert small.flushes.fsyncs > 0
    assert large.flushes.fsyncs == small.flushes.fsyncs
