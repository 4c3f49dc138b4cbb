"""Layering rules from STYLE.md, checked on the source: one typer importer, one writer."""

from __future__ import annotations

import ast
import shutil
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
# `uze --version` alone. The hook wrapper and the tool server are programs of their own that
# harnesses run, and capabilities/table.py prints the README's table when run as a script.
PRINTERS = {"cli.py", "__main__.py", "wrapper_script.py", "tool_server_script.py", "table.py"}


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


# cli.py writes the bug log of exit code 3 (its only write); store is built on fs helpers;
# portable.py holds fs's calls only POSIX has (a new file's mode, set on its descriptor; the
# lock file, opened to be locked and never written).
ALLOWED_WRITERS = {"fs.py", "cli.py", "portable.py"}


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


def _module_name(path: Path, root: Path = SOURCE.parent) -> str:
    parts = path.relative_to(root).with_suffix("").parts
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
ONE_FILE_PROGRAMS = {"uze/hooks/wrapper_script.py", "uze/plan/tool_server_script.py"}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(SOURCE).as_posix())
def test_no_module_is_over_400_lines(path: Path) -> None:
    if path.relative_to(SOURCE.parent).as_posix() in ONE_FILE_PROGRAMS:
        return
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= 400, f"{path.name} has {lines} lines: split it along its responsibilities"


# The layer table of docs/design.md section 2, top to bottom: each entry is a folder (`name/`)
# or a module (`name.py`) at the root of uze/. A module imports from its own layer or one
# below, never above: at module level, inside a function or under `if TYPE_CHECKING:` alike.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("entry", ("__main__.py", "cli.py", "verbs/")),
    ("views", ("ui/", "inert.py")),
    ("commands", ("commands/",)),
    ("exporting", ("exporting/",)),
    ("doctor", ("doctor/",)),
    ("install pieces", ("install/",)),
    ("artifacts", ("artifacts/",)),
    ("planning", ("plan/", "packing/", "capabilities/", "hooks/", "trust.py", "policy.py")),
    ("state", ("state/", "sources/", "store/", "containment.py")),
    ("harnesses", ("harnesses/", "harness_ids.py")),
    ("package", ("package/",)),
    ("projections", ("projections/",)),
    ("base", ("transaction.py", "journal.py", "fs.py", "durability.py", "paths.py",
              "location.py", "errors.py", "names.py", "vocabulary.py", "canonical.py",
              "progress.py", "nesting.py", "portable.py", "memo.py", "threads.py",
              "patterns.py", "__init__.py")),
)
# (importing module, imported module) -> the ADR that names why it runs up the table. Empty:
# every upward import was removed instead (ADR 0053).
UPWARD_ALLOWED: dict[tuple[str, str], str] = {}


def _entry(module: str) -> str:
    """The table entry of a dotted uze module: `uze.plan.runs` -> `plan/`, `uze.fs` -> `fs.py`,
    `uze` -> `__init__.py`."""
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__.py"
    return f"{parts[1]}/" if (SOURCE / parts[1]).is_dir() else f"{parts[1]}.py"


def _layer(module: str, layers: tuple[tuple[str, tuple[str, ...]], ...] = LAYERS) -> int | None:
    entry = _entry(module)
    return next((i for i, (_, entries) in enumerate(layers) if entry in entries), None)


def _absolute(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    """The module a `from ... import` names, relative imports resolved against `importer`."""
    if not node.level:
        return node.module or ""
    base = importer.split(".")[: len(importer.split(".")) - node.level + is_package]
    return ".".join([*base, *([node.module] if node.module else [])])


def _imports_by_line(path: Path, root: Path, known: set[str]) -> list[tuple[int, str]]:
    """(line, uze module) of every import in the file at `path` (under `root`/uze), wherever
    it sits: top level, function body, `if TYPE_CHECKING:`."""
    importer = _module_name(path, root)
    found: list[tuple[int, str]] = []
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node, importer, path.name == "__init__.py")
            for alias in node.names:
                child = f"{module}.{alias.name}"
                found.append((node.lineno, child if child in known else module))
    return [(line, name) for line, name in found if name.split(".")[0] == "uze"]


def upward_imports(root: Path, layers: tuple[tuple[str, tuple[str, ...]], ...] = LAYERS,
                   allowed: dict[tuple[str, str], str] | None = None) -> list[str]:
    """`file:line: <module> (layer) imports <module> (layer above)` for every import under
    `root`/uze that runs up `layers`, and `file: in no layer` for a module the table misses."""
    allowed = UPWARD_ALLOWED if allowed is None else allowed
    paths = sorted((root / "uze").rglob("*.py"))
    known = {_module_name(path, root) for path in paths}
    found: list[str] = []
    for path in paths:
        where, me = path.relative_to(root).as_posix(), _module_name(path, root)
        mine = _layer(me, layers)
        if mine is None:
            found.append(f"{where}: in no layer of LAYERS (add it there and to docs/design.md)")
            continue
        for line, name in _imports_by_line(path, root, known):
            theirs = _layer(name, layers)
            if theirs is not None and theirs < mine and (me, name) not in allowed:
                found.append(f"{where}:{line}: {me} ({layers[mine][0]}) imports {name} "
                             f"({layers[theirs][0]}, above it)")
    return found


def test_every_import_goes_down_the_layer_table_or_sideways() -> None:
    assert upward_imports(SOURCE.parent) == []


def test_the_layer_check_names_the_line_of_a_wrong_import_in_a_scratch_copy(
        tmp_path: Path) -> None:
    """A harness module that asks the planner, and a base module that asks a command inside a
    function, are both found, each by file and line."""
    shutil.copytree(SOURCE, tmp_path / "uze", ignore=shutil.ignore_patterns("__pycache__"))
    base = tmp_path / "uze" / "harnesses" / "base.py"
    lines = base.read_text(encoding="utf-8").splitlines()
    lines.insert(3, "from uze.plan import planner")
    base.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "uze" / "paths.py").write_text(
        (SOURCE / "paths.py").read_text(encoding="utf-8")
        + "\n\ndef _late() -> None:\n    from .commands import status\n", encoding="utf-8")
    late = len((tmp_path / "uze" / "paths.py").read_text(encoding="utf-8").splitlines())
    assert upward_imports(tmp_path) == [
        "uze/harnesses/base.py:4: uze.harnesses.base (harnesses) imports uze.plan.planner "
        "(planning, above it)",
        f"uze/paths.py:{late}: uze.paths (base) imports uze.commands.status "
        "(commands, above it)",
    ]


def test_a_module_in_no_layer_is_named(tmp_path: Path) -> None:
    (tmp_path / "uze").mkdir()
    (tmp_path / "uze" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "uze" / "newcomer.py").write_text("from uze import fs\n", encoding="utf-8")
    assert upward_imports(tmp_path) == [
        "uze/newcomer.py: in no layer of LAYERS (add it there and to docs/design.md)"]


def test_every_module_of_uze_is_in_exactly_one_layer() -> None:
    entries = [entry for _, layer in LAYERS for entry in layer]
    assert len(entries) == len(set(entries))
    on_disk = {p.name + ("/" if p.is_dir() else "") for p in SOURCE.iterdir()
               if p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").is_file())}
    assert on_disk == set(entries)


def test_the_layer_table_in_the_design_names_what_the_test_holds() -> None:
    """docs/design.md section 2 lists the layers in this order, each row naming its entries."""
    design = (SOURCE.parent / "docs" / "design.md").read_text(encoding="utf-8")
    table = design.partition("## 2. Layers")[2].partition("\n## ")[0]
    rows = [row.split(" | ") for row in table.splitlines() if row.startswith("| ")][1:]
    assert [row[0].removeprefix("| ") for row in rows] == [name for name, _ in LAYERS]
    for (name, entries), row in zip(LAYERS, rows, strict=True):
        missing = [e for e in entries if f"`{e}`" not in row[1]]
        assert missing == [], f"the {name} row of docs/design.md does not name {missing}"
