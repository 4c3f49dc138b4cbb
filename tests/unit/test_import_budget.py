"""Issue 8: a read-only command does not import what only install needs.

`uze status --json` and `uze list --json` run in a fresh interpreter (through `uze.__main__`,
as the console script does) on a project where a package is installed into every harness; the
modules they loaded are checked by name, not by time. Their fast path must print the same bytes
and exit with the same code as the full (typer) command line, with `--json` and without it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Sandbox

PACKAGE = Path(__file__).parents[1] / "data" / "packages" / "every-kind"
# Install-only modules and the libraries only install, the parser or the tables need. The
# harness modules (uze.harnesses.*) may load: containment and the trust gate read them, and
# they import none of these (adr/0035).
HEAVY = ("uze.plan", "uze.commands.install", "uze.package", "uze.store",
         "uze.cli_help", "uze.render", "tomlkit", "yaml", "typer", "click", "rich")
SHOW_MODULES = """
import contextlib, io, json, sys
sys.argv = ["uze", *sys.argv[1:]]
from uze.__main__ import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    try:
        main()
    except SystemExit as stop:
        assert not stop.code, stop.code
print(json.dumps(sorted(sys.modules)))
"""
# The typer command line, which parses every line (`uze.cli.main` takes the fast path first).
FULL_CLI = "import sys; sys.argv[0] = 'uze'; from uze.cli import full_main; full_main()"


def _python(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, check=False)


def _heavy(loaded: list[str], names: tuple[str, ...]) -> list[str]:
    return [m for m in loaded if m in names or m.startswith(tuple(f"{n}." for n in names))]


@pytest.fixture
def installed(sandbox: Sandbox) -> Path:
    """The sandbox project with every-kind installed into every harness."""
    done = _python("-m", "uze", "install", str(PACKAGE), "--harness", "all", "--trust",
                   cwd=sandbox.project)
    assert done.returncode == 0, done.stderr
    return sandbox.project


@pytest.mark.parametrize("command", ["status", "list"])
def test_read_only_json_command_imports_no_install_parser_or_table_module(installed: Path,
                                                                          command: str) -> None:
    """Receipts are msgspec Structs (ADR 0015): reading every kind of them loads no pydantic."""
    done = _python("-c", SHOW_MODULES, command, "--json", cwd=installed)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert "uze.receipts" in loaded
    assert _heavy(loaded, (*HEAVY, "pydantic")) == []


@pytest.mark.parametrize("command", ["status", "list"])
def test_read_only_json_command_with_no_receipt_does_not_load_pydantic(sandbox: Sandbox,
                                                                       command: str) -> None:
    done = _python("-c", SHOW_MODULES, command, "--json", cwd=sandbox.project)
    assert done.returncode == 0, done.stderr
    assert _heavy(json.loads(done.stdout), (*HEAVY, "pydantic", "uze.receipts")) == []


@pytest.mark.parametrize("command", ["status", "list"])
def test_read_only_human_command_prints_its_table_without_the_parser(installed: Path,
                                                                     command: str) -> None:
    """Without --json a person gets rich's tables, but typer, click and pydantic stay unloaded
    (typer builds a pydantic adapter per option: about 100 ms of a 200 ms `uze status`)."""
    done = _python("-c", SHOW_MODULES, command, cwd=installed)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert {"uze.render", "rich.table"} <= set(loaded)
    assert _heavy(loaded, ("uze.cli_help", "typer", "click", "pydantic", "uze.plan", "uze.package",
                           "uze.store", "tomlkit", "yaml")) == []


def test_uninstall_imports_nothing_of_install_planning_or_package_reading(installed: Path) -> None:
    """Uninstall never plans or reads a package: the planner, package and store
    modules, YAML and pydantic (receipts are msgspec Structs, ADR 0015) stay unloaded (tomlkit
    is loaded here, for Codex's config.toml); with --json neither do the parser and the tables.
    The package is really gone afterwards."""
    done = _python("-c", SHOW_MODULES, "uninstall", "every-kind", "--json", cwd=installed)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert "uze.commands.uninstall" in loaded
    assert _heavy(loaded, ("uze.plan", "uze.commands.install", "uze.package",
                           "uze.store", "yaml", "uze.cli_help", "uze.render", "typer", "click",
                           "rich", "pydantic")) == []  # harness modules: see HEAVY
    assert not (installed / ".uze" / "receipts" / "every-kind.json").exists()


def test_install_json_loads_neither_the_parser_nor_the_tables_nor_pydantic(
    sandbox: Sandbox,
) -> None:
    """A valid package (every-kind has a manifest, MCP servers and hooks) is read with msgspec
    Structs alone; their pydantic twins load only to list an invalid package's problems
    (ADR 0017)."""
    done = _python("-c", SHOW_MODULES, "install", str(PACKAGE), "--harness", "all", "--trust",
                   "--json", cwd=sandbox.project)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert {"uze.commands.install", "uze.package.manifest", "uze.package.hooks"} <= set(loaded)
    assert _heavy(loaded, ("uze.cli_help", "uze.render", "typer", "click", "rich", "pydantic",
                           "uze.package.problems")) == []
    assert (sandbox.project / ".uze" / "receipts" / "every-kind.json").exists()


def test_install_without_agents_or_mcp_loads_no_toml_writer(sandbox: Sandbox) -> None:
    """tomlkit (about 10 ms) loads only for what writes TOML: a Codex agent or MCP entry."""
    minimal = PACKAGE.parent / "minimal"
    done = _python("-c", SHOW_MODULES, "install", str(minimal), "--harness", "all", "--trust",
                   "--json", cwd=sandbox.project)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert "uze.agents_render" in loaded
    assert _heavy(loaded, ("tomlkit", "pydantic")) == []
    assert json.loads((sandbox.project / ".uze" / "receipts" / "minimal.json").read_text())


def test_an_invalid_package_is_refused_with_every_problem_on_both_paths(tmp_path: Path,
                                                                       sandbox: Sandbox) -> None:
    package = tmp_path / "bad"
    shutil.copytree(PACKAGE, package)
    (package / "plugin.json").write_text('{"name": "Bad", "version": 2, "extra": true}\n')
    argv = ("install", str(package), "--json", "--harness", "all", "--trust")
    fast = _python("-m", "uze", *argv, cwd=sandbox.project)
    full = _python("-c", FULL_CLI, *argv, cwd=sandbox.project)
    assert fast.returncode == 1
    assert fast.stderr == full.stderr and full.returncode == 1
    for line in ("plugin.json: extra: unknown key", "plugin.json: name: invalid name 'Bad'",
                 "plugin.json: version: must be a string"):
        assert line in fast.stderr
    assert not (sandbox.project / ".uze").exists()


def test_reinstall_of_an_unchanged_package_plans_nothing_and_reads_no_model(
    installed: Path,
) -> None:
    """The shortcut of ADR 0016: no planner, package reader, pydantic or YAML. Of the package
    layer it loads only the reader's file walk and the layout's manifest names (it walks the
    package as the reader does) and nothing that builds models."""
    before = (installed / ".uze" / "receipts" / "every-kind.json").read_bytes()
    done = _python("-c", SHOW_MODULES, "install", str(PACKAGE), "--json", cwd=installed)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert {"uze.commands.reinstall", "uze.package.tree"} <= set(loaded)
    assert set(_heavy(loaded, ("uze.package",))) <= {
        "uze.package", "uze.package.tree", "uze.package.layout", "uze.package.names",
        "uze.package.issues", "uze.package.nesting"}
    assert _heavy(loaded, ("uze.plan", "uze.commands.install", "yaml", "tomlkit", "pydantic",
                           *HEAVY[4:])) == []
    # the registry checks --harness; harness modules may load (containment reads them; they
    # import no package reader, YAML or TOML writer: adr/0035)
    assert (installed / ".uze" / "receipts" / "every-kind.json").read_bytes() == before


ARGVS = (
    ("status", "--json"),
    ("status", "every-kind", "--json"),
    ("status", "--json", "--scope", "project", "--project", "."),
    ("status", "--json", "--scope", "user"),
    ("status", "--json", "not-installed"),
    ("status", "--json", "--scope", "everywhere"),
    ("status", "--json", "--scope=project"),
    ("status", "--json", "--help"),
    ("status", "--json", "a", "b"),
    ("list", "--json"),
    ("list", "--json", "--project", "."),
    ("list", "--json", "every-kind"),
    ("list", "--json", "--scope", "user"),
)


def _human(argv: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(arg for arg in argv if arg != "--json")


def test_json_fast_path_prints_what_the_full_command_line_prints(installed: Path) -> None:
    for argv in ARGVS:
        fast = _python("-m", "uze", *argv, cwd=installed)
        full = _python("-c", FULL_CLI, *argv, cwd=installed)
        assert (fast.returncode, fast.stdout, fast.stderr) == (full.returncode, full.stdout,
                                                               full.stderr), argv


def test_human_fast_path_prints_the_tables_the_full_command_line_prints(installed: Path) -> None:
    for argv in map(_human, ARGVS):
        fast = _python("-m", "uze", *argv, cwd=installed)
        full = _python("-c", FULL_CLI, *argv, cwd=installed)
        assert (fast.returncode, fast.stdout, fast.stderr) == (full.returncode, full.stdout,
                                                               full.stderr), argv
    table = _python("-m", "uze", "status", "every-kind", cwd=installed)
    assert "every-kind" in table.stdout and "matched" in table.stdout
    assert "claude_code" in table.stdout
    glance = _python("-m", "uze", "status", cwd=installed)  # one row per package (issue 23)
    assert "every-kind" in glance.stdout and "projections in place" in glance.stdout
    assert table.stdout.lstrip()[0] != "{"


# Install and uninstall lines that leave the project as it is (dry runs, re-installs, refusals).
STEADY = (
    ("install", str(PACKAGE), "--json", "--harness", "all", "--trust"),
    ("install", str(PACKAGE), "--json", "--dry-run", "--harness", "claude_code"),
    ("install", str(PACKAGE), "--json", "--scope", "everywhere"),
    ("install", str(PACKAGE), "--json", "--harness", "no-such-harness"),
    ("install", str(PACKAGE.parent / "no-such-package"), "--json"),
    ("install", "--json"),
    ("install", str(PACKAGE), "--json", "--trust", "--trust"),
    ("install", str(PACKAGE), "--json", "--force=yes"),
    ("uninstall", "every-kind", "--json", "--dry-run"),
    ("uninstall", "not-installed", "--json"),
    ("uninstall", "every-kind", "--json", "--scope", "user"),
    ("uninstall", "--json"),
    ("uninstall", "every-kind", "--json", "--help"),
)


@pytest.mark.parametrize("human", [False, True], ids=["json", "human"])
def test_install_and_uninstall_fast_paths_print_what_the_full_command_line_prints(
    installed: Path, human: bool,
) -> None:
    def line(*argv: str) -> tuple[str, ...]:
        return _human(argv) if human else argv

    for argv in (line(*a) for a in STEADY):
        fast = _python("-m", "uze", *argv, cwd=installed)
        full = _python("-c", FULL_CLI, *argv, cwd=installed)
        assert (fast.returncode, fast.stdout, fast.stderr) == (full.returncode, full.stdout,
                                                               full.stderr), argv
    # Lines that change the project: each runs from the same state on both paths.
    uninstall = line("uninstall", "every-kind", "--json")
    install = line("install", str(PACKAGE), "--json", "--harness", "all", "--trust")
    fast = _python("-m", "uze", *uninstall, cwd=installed)
    assert fast.returncode == 0, fast.stderr
    fast_install = _python("-m", "uze", *install, cwd=installed)
    full = _python("-c", FULL_CLI, *uninstall, cwd=installed)
    full_install = _python("-c", FULL_CLI, *install, cwd=installed)
    assert (fast.returncode, fast.stdout, fast.stderr) == (full.returncode, full.stdout,
                                                           full.stderr)
    assert (fast_install.returncode, fast_install.stdout, fast_install.stderr) == \
        (full_install.returncode, full_install.stdout, full_install.stderr)
    assert fast_install.returncode == 0
    if human:
        assert fast_install.stdout.startswith("Installed every-kind")
        assert "create" in fast_install.stdout
        assert fast.stdout.startswith("Uninstalled every-kind")
    else:
        assert json.loads(fast_install.stdout)["writes"] > 0


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "human"])
def test_an_install_that_needs_consent_is_refused_alike_on_both_paths(sandbox: Sandbox,
                                                                      as_json: bool) -> None:
    """Without a terminal neither path asks (tests/e2e/test_trust.py asks on a terminal)."""
    argv = ("install", str(PACKAGE), *(["--json"] if as_json else []), "--harness", "claude_code")
    fast = _python("-m", "uze", *argv, cwd=sandbox.project)
    full = _python("-c", FULL_CLI, *argv, cwd=sandbox.project)
    assert (fast.returncode, fast.stdout, fast.stderr) == (full.returncode, full.stdout,
                                                           full.stderr)
    assert fast.returncode == 1 and "--trust" in fast.stderr
    assert not (sandbox.project / ".uze" / "receipts").exists()
