"""The design documents name files that exist: a move or rename updates them too."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]
DOCS = ("docs/design.md", "docs/harnesses.md", "docs/package-format.md", "README.md")
_PATH = re.compile(r"`((?:uze|docs|adr|tests|scripts|benchmarks|examples)/[^`\s]*)`")


def _named(text: str) -> list[str]:
    """Repository paths written in backticks, less placeholders (`<package>`, `foo`)."""
    return [p.rstrip("/") for p in _PATH.findall(text) if "<" not in p and "/foo" not in p]


def test_the_path_finder_reads_backticked_repository_paths() -> None:
    text = "see `uze/fs.py`, `docs/x/` and `uze/harnesses/foo.py`, not `~/.uze/<package>`"
    assert _named(text) == ["uze/fs.py", "docs/x"]


@pytest.mark.parametrize("doc", DOCS)
def test_every_repository_path_a_document_names_exists(doc: str) -> None:
    named = _named((REPO / doc).read_text(encoding="utf-8"))
    assert named, f"{doc} names no repository path"
    assert [p for p in named if not (REPO / p).exists()] == []
