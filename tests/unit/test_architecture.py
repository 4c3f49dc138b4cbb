"""Layering rules from STYLE.md, checked on the source: one typer importer, one writer."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SOURCE = Path(__file__).parents[2] / "uze"
MODULES = sorted(SOURCE.rglob("*.py"))
# Path methods that write (Path.replace is left out: it reads like str.replace) and os calls.
WRITE_CALLS = {"write_bytes", "write_text", "mkstemp", "unlink", "rmdir", "chmod", "mkdir", "touch"}
OS_WRITES = {"replace", "rename", "remove", "unlink", "rmdir", "makedirs", "mkdir", "chmod"}


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _imports(module: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def _writes(module: ast.Module) -> list[str]:
    found = []
    for node in ast.walk(module):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            on_os = isinstance(owner, ast.Name) and owner.id in ("os", "shutil")
            if node.func.attr in WRITE_CALLS or (on_os and node.func.attr in OS_WRITES):
                found.append(f"line {node.lineno}: .{node.func.attr}()")
            if node.func.attr == "open" and any(
                isinstance(a, ast.Constant) and isinstance(a.value, str)
                and set(a.value) & set("wax+")
                for a in node.args
            ):
                found.append(f"line {node.lineno}: open for writing")
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(SOURCE).as_posix())
def test_only_cli_imports_typer(path: Path) -> None:
    if path.name == "cli.py":
        return
    assert "typer" not in _imports(_tree(path))


# cli.py writes the bug log of exit code 3 (its only write); store is built on fs helpers.
ALLOWED_WRITERS = {"fs.py", "cli.py"}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(SOURCE).as_posix())
def test_only_fs_writes_files(path: Path) -> None:
    if path.name in ALLOWED_WRITERS:
        return
    assert _writes(_tree(path)) == []


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(SOURCE).as_posix())
def test_nothing_but_paths_reads_the_environment_or_home(path: Path) -> None:
    if path.name == "paths.py":
        return
    text = path.read_text(encoding="utf-8")
    assert "os.environ" not in text and "Path.home()" not in text and "platformdirs" not in text
