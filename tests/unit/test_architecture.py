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


# The entry modules print (ADR 0037): cli.py every command's output and errors, __main__.py
# `uze --version` alone. The hook wrapper is a program of its own that harnesses run, and
# capabilities/table.py prints the README's table when run as a script.
PRINTERS = {"cli.py", "__main__.py", "wrapper_script.py", "table.py"}


def _prints(module: ast.Module) -> list[str]:
    found = []
    for node in ast.walk(module):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "print":
            found.append(f"line {node.lineno}: print()")
        elif isinstance(func, ast.Attribute) and func.attr == "print":
            found.append(f"line {node.lineno}: .print()")
        elif isinstance(func, ast.Attribute) and func.attr == "write" and \
                isinstance(func.value, ast.Attribute) and func.value.attr in ("stdout", "stderr"):
            found.append(f"line {node.lineno}: {func.value.attr}.write()")
    return found


def test_the_print_finder_finds_prints() -> None:
    module = ast.parse("print(1)\nconsole.print(2)\nsys.stderr.write('x')\nfile.write(b'')\n")
    assert _prints(module) == ["line 1: print()", "line 2: .print()", "line 3: stderr.write()"]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(SOURCE).as_posix())
def test_only_the_entry_modules_print(path: Path) -> None:
    if path.name in PRINTERS:
        return
    assert _prints(_tree(path)) == []


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


def _module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _uze_imports(path: Path, known: set[str]) -> set[str]:
    """The uze modules `path` imports anywhere in it: top level, inside functions, and under
    `if TYPE_CHECKING:` (a cycle there is still two modules that need each other)."""
    found: set[str] = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name in known}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                child = f"{node.module}.{alias.name}"
                found.add(child if child in known else node.module)
    return found & known


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), as a sorted list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while (top := stack.pop()) != node:
                group.append(top)
            if group:
                groups.append(sorted([*group, node]))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_no_import_cycle_between_uze_modules() -> None:
    """Dependencies point one way; a function-level import does not hide a cycle."""
    names = {_module_name(path): path for path in MODULES}
    graph = {name: _uze_imports(path, set(names)) - {name} for name, path in names.items()}
    assert graph["uze.cli"], "the graph reads imports"
    assert _cycles(graph) == []


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(SOURCE).as_posix())
def test_only_the_transaction_commits_or_rolls_back(path: Path) -> None:
    """Commands write `with Transaction(...) as tx:`; leaving the block commits or rolls back."""
    if path.name == "transaction.py":
        return
    calls = [node.lineno for node in ast.walk(_tree(path)) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Attribute) and node.func.attr in ("commit", "rollback")]
    assert calls == []


# A generated program is one self-contained file: every hook wrapper embeds this one whole
# (ADR 0008, ADR 0047), so it cannot be split into modules that import each other.
ONE_FILE_PROGRAMS = {"uze/hooks/wrapper_script.py"}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(SOURCE).as_posix())
def test_no_module_is_over_400_lines(path: Path) -> None:
    if path.relative_to(SOURCE.parent).as_posix() in ONE_FILE_PROGRAMS:
        return
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= 400, f"{path.name} has {lines} lines: split it along its responsibilities"
