"""Helpers for package tests: build real package trees in tmp_path and snapshot them."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from uze.errors import PackageInvalid
from uze.package import read_package

Content = str | bytes | Mapping[str, object]


def write_tree(root: Path, files: Mapping[str, Content]) -> Path:
    """Create `root` with each relpath holding text, bytes or a JSON value."""
    root.mkdir(parents=True, exist_ok=True)
    for relpath, content in files.items():
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8", newline="")
        else:
            path.write_text(json.dumps(content, indent=2), encoding="utf-8")
    return root


@pytest.fixture
def build(tmp_path: Path) -> Callable[..., Path]:
    """Build a package folder (a plugin.json named `pkg` unless given) under tmp_path."""

    def _build(files: Mapping[str, Content], *, name: str = "pkg", manifest: bool = True) -> Path:
        tree: dict[str, Content] = {"plugin.json": {"name": "pkg"}} if manifest else {}
        tree.update(files)
        return write_tree(tmp_path / name, tree)

    return _build


def _issues_of(source: Path) -> list[str]:
    with pytest.raises(PackageInvalid) as caught:
        read_package(source)
    return caught.value.issues


def _warnings_of(source: Path) -> list[str]:
    warnings = list(read_package(source).warnings)
    with pytest.raises(PackageInvalid) as caught:
        read_package(source, strict=True)
    assert caught.value.issues == warnings  # --strict refuses on exactly these lines
    return warnings


@pytest.fixture
def warnings_of() -> Callable[[Path], list[str]]:
    """Return the warning lines of a package that reads (failing the test if it has none), after
    checking that a strict read refuses it with exactly those lines."""
    return _warnings_of


@pytest.fixture
def issues_of() -> Callable[[Path], list[str]]:
    """Return the issue lines reading a package raises (failing the test if it reads cleanly)."""
    return _issues_of


def _snapshot(root: Path) -> dict[str, tuple[int, int, bytes | str]]:
    found: dict[str, tuple[int, int, bytes | str]] = {}
    for folder, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = Path(folder, name)
            info = path.lstat()
            if path.is_symlink():
                content: bytes | str = str(path.readlink())
            elif path.is_file():
                content = path.read_bytes()
            else:
                content = b""
            found[str(path.relative_to(root))] = (info.st_mode, info.st_mtime_ns, content)
    return found


@pytest.fixture
def snapshot() -> Callable[[Path], dict[str, tuple[int, int, bytes | str]]]:
    """Return a function listing every entry under a folder: mode, mtime, bytes or link."""
    return _snapshot
