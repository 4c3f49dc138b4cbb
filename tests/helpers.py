"""Test helpers: build trees from dicts, snapshot whole trees as bytes, run the real uze."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "packages"
REPO = Path(__file__).parent.parent
# The seven real harnesses whose behaviour the tests' expectations spell out (labels, columns,
# reasons): the one list of them in tests/. Code under test and the checks that hold for any
# harness take the list from `uze.harnesses.REGISTRY`; a harness added there joins this list
# with the tests that know its behaviour (tests/e2e/test_eighth_harness.py adds one in a copy).
SEVEN = ("claude_code", "codex", "opencode", "gemini_cli", "antigravity", "kimi_code",
         "deepseek_harness")


def json_levels(value: object) -> int:
    """How many containers deep `value` nests (`{"a": [1]}`: 2; a scalar: 0)."""
    if isinstance(value, dict):
        return 1 + max(map(json_levels, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(json_levels, value), default=0)
    return 0


def spliced(text: str, edits: list[tuple[int, int, str]]) -> str:
    """`text` after each (offset, characters cut, text inserted) in turn, the offset taken
    modulo the length: hand edits, for a property test of a reader against `tomllib`."""
    for at, cut, insert in edits:
        at %= len(text) + 1
        text = text[:at] + insert + text[at + cut:]
    return text


def build_tree(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Write `files` (relative path -> text or bytes) under `root`; return root."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
    return root


def tree_bytes(root: Path) -> dict[str, bytes | str]:
    """Every entry below `root`: files -> bytes (+ mode), folders -> 'dir', links -> target."""
    snapshot: dict[str, bytes | str] = {}
    if not root.exists():
        return snapshot
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel == ".git" or rel.startswith(".git/"):
            continue
        if path.is_symlink():
            snapshot[rel] = f"link:{Path(path).readlink()}"
        elif path.is_dir():
            snapshot[rel] = "dir"
        else:
            snapshot[rel] = path.read_bytes() + f"\0mode={path.stat().st_mode & 0o777:o}".encode()
    return snapshot


def run_uze(*args: str | Path, cwd: Path, env: Mapping[str, str] | None = None,
            input_text: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real uze command (`python -m uze`) in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "uze", *map(str, args)],
        cwd=cwd,
        env=dict(os.environ if env is None else env),
        capture_output=True,
        text=True,
        input=input_text,
        timeout=120,
        check=False,
    )


class Flushes:
    """While patched in: counts the `os.fsync` calls made outside `durability.barrier`, and
    records each `durability.barrier` call with the files it flushed and what `probe()`
    returned then (ADR 0014)."""

    def __init__(self, patch: Any, probe: Callable[[], object]) -> None:
        from uze import durability

        self.fsyncs = 0
        self.barriers: list[tuple[list[Path], object]] = []
        self._inside = False
        real_fsync, real_barrier = os.fsync, durability.barrier

        def fsync(fd: int) -> None:
            self.fsyncs += not self._inside
            real_fsync(fd)

        def barrier(paths: Any) -> None:
            files = list(paths)
            self.barriers.append((files, probe()))
            self._inside = True
            try:
                real_barrier(files)
            finally:
                self._inside = False

        patch.setattr(os, "fsync", fsync)
        patch.setattr(durability, "barrier", barrier)
