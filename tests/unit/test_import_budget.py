"""Issue 8: a read-only command does not import what only install needs.

`uze status --json` and `uze list --json` run in a fresh interpreter (through `uze.__main__`,
as the console script does) on a project where a package is installed into every harness; the
modules they loaded are checked by name, not by time. Their fast path must print the same bytes
and exit with the same code as the full (typer) command line, with `--json` and without it.
Every import inside a function of uze/ is listed with its reason (`LAZY_IMPORTS`).
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Sandbox

PACKAGE = Path(__file__).parents[1] / "data" / "packages" / "every-kind"
# Install-only modules and the libraries only install, the parser or the tables need (filelock:
# only Windows loads it, ADR 0072; POSIX takes flock itself). The harness modules
# (uze.harnesses.*) may load: containment and the trust gate read them, and they import none of
# these (adr/0035).
HEAVY = ("uze.plan.planner", "uze.commands.install", "uze.package", "uze.store",
         "uze.ui.cli_help", "uze.ui.render", "tomlkit", "yaml", "typer", "click", "rich",
         "filelock")
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
    assert "uze.state.receipts" in loaded
    assert _heavy(loaded, (*HEAVY, "pydantic")) == []


@pytest.mark.parametrize("command", ["status", "list"])
def test_read_only_json_command_with_no_receipt_does_not_load_pydantic(sandbox: Sandbox,
                                                                       command: str) -> None:
    done = _python("-c", SHOW_MODULES, command, "--json", cwd=sandbox.project)
    assert done.returncode == 0, done.stderr
    assert _heavy(json.loads(done.stdout), (*HEAVY, "pydantic", "uze.state.receipts")) == []


@pytest.mark.parametrize("command", ["status", "list"])
def test_read_only_human_command_prints_its_table_without_the_parser(installed: Path,
                                                                     command: str) -> None:
    """Without --json a person gets the tables, but typer, click and pydantic stay unloaded
    (typer builds a pydantic adapter per option: about 100 ms of a 200 ms `uze status`); not
    at a terminal the tables are plain text, and rich stays unloaded too (issue 32 item 4)."""
    done = _python("-c", SHOW_MODULES, command, cwd=installed)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert {"uze.ui.render", "uze.ui.plain"} <= set(loaded)
    assert _heavy(loaded, ("uze.ui.cli_help", "typer", "click", "pydantic", "uze.plan.planner",
                           "uze.package", "uze.store", "tomlkit", "yaml", "rich",
                           "uze.ui.console")) == []


@pytest.mark.parametrize("command", ["status", "list"])
def test_at_a_terminal_or_with_color_always_rich_draws_the_tables(installed: Path,
                                                                  command: str) -> None:
    done = _python("-c", SHOW_MODULES, "--color", "always", command, cwd=installed)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert {"uze.ui.console", "rich.table"} <= set(loaded)
    assert _heavy(loaded, ("typer", "click", "pydantic")) == []


# What each command loads when stdout is not a terminal (a pipe, a file, CI): `python -c pass`
# plus its own modules; never the typer command line (typer, click, pydantic), never rich; and
# PyYAML only where a file it writes or reads needs it (issue 32 item 4).
NEVER = ("typer", "click", "pydantic", "rich", "uze.ui.console", "uze.ui.cli_help")
VIEWS = ("uze.ui.render", "uze.ui.plain")  # --json prints no human view
PER_COMMAND = [
    (("status",), ("yaml", "tomlkit", "filelock", "uze.package", "uze.plan.planner")),
    (("status", "--json"), ("yaml", "tomlkit", "filelock", "uze.package", *VIEWS)),
    (("status", "--check"), ("yaml", "tomlkit", "filelock", "uze.package", "uze.plan.planner")),
    (("list",), ("yaml", "tomlkit", "filelock", "uze.package", "uze.plan.planner")),
    (("list", "--json"), ("yaml", "tomlkit", "filelock", "uze.package", *VIEWS)),
    (("check", str(PACKAGE.parent / "minimal")), ("yaml", "tomlkit", "filelock")),
    (("check", str(PACKAGE.parent / "minimal"), "--json"), ("yaml", "tomlkit", "filelock", *VIEWS)),
    (("check", str(PACKAGE)), ("filelock",)),  # its agents are written as YAML and TOML
    # doctor: its evidence records are msgspec Structs (ADR 0101), its line parsed from the table
    (("doctor",), ("yaml", "tomlkit", "filelock", "uze.plan.planner")),
    (("doctor", "--json"), ("yaml", "tomlkit", "filelock", "uze.plan.planner", *VIEWS)),
]


@pytest.mark.parametrize(("argv", "absent"), PER_COMMAND, ids=lambda v: " ".join(v)[-40:])
def test_each_command_loads_neither_the_parser_nor_rich_when_not_at_a_terminal(
    installed: Path, argv: tuple[str, ...], absent: tuple[str, ...],
) -> None:
    done = _python("-c", SHOW_MODULES, *argv, cwd=installed)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert f"uze.commands.{argv[0] if argv[0] != 'list' else 'listing'}" in loaded
    assert _heavy(loaded, (*NEVER, *absent)) == []


def test_uninstall_imports_nothing_of_install_planning_or_package_reading(installed: Path) -> None:
    """Uninstall never plans or reads a package: the planner, package and store
    modules, YAML and pydantic (receipts are msgspec Structs, ADR 0015) stay unloaded (tomlkit
    is loaded here, for Codex's config.toml); with --json neither do the parser and the tables.
    The package is really gone afterwards."""
    done = _python("-c", SHOW_MODULES, "uninstall", "every-kind", "--json", cwd=installed)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert "uze.commands.uninstall" in loaded
    assert _heavy(loaded, ("uze.plan.planner", "uze.commands.install", "uze.package",
                           "uze.store", "yaml", "uze.ui.cli_help", "uze.ui.render", "typer",
                           "click", "rich", "pydantic", "filelock")) == []  # harnesses: HEAVY
    assert not (installed / ".uze" / "receipts" / "every-kind.json").exists()


def test_install_json_loads_neither_the_parser_nor_the_tables_nor_pydantic(
    sandbox: Sandbox,
) -> None:
    """A package (every-kind has a manifest, MCP servers and hooks) is read with msgspec
    Structs alone, and so are an invalid package's problems listed (ADR 0038)."""
    done = _python("-c", SHOW_MODULES, "install", str(PACKAGE), "--harness", "all", "--trust",
                   "--json", cwd=sandbox.project)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert {"uze.commands.install", "uze.package.manifest", "uze.package.hooks"} <= set(loaded)
    assert _heavy(loaded, ("uze.ui.cli_help", "uze.ui.render", "typer", "click", "rich",
                           "pydantic", "filelock")) == []  # POSIX locks without it (ADR 0072)
    assert "fcntl" in loaded
    assert (sandbox.project / ".uze" / "receipts" / "every-kind.json").exists()


def test_install_without_agents_or_mcp_loads_no_toml_writer(sandbox: Sandbox) -> None:
    """tomlkit (about 10 ms) loads only for what writes TOML: a Codex agent or MCP entry."""
    minimal = PACKAGE.parent / "minimal"
    done = _python("-c", SHOW_MODULES, "install", str(minimal), "--harness", "all", "--trust",
                   "--json", cwd=sandbox.project)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert "uze.plan.agents" in loaded
    assert _heavy(loaded, ("tomlkit", "pydantic")) == []
    assert json.loads((sandbox.project / ".uze" / "receipts" / "minimal.json").read_text())


def test_a_skills_only_install_loads_no_yaml_or_toml_library(sandbox: Sandbox,
                                                             tmp_path: Path) -> None:
    """SKILL.md headers of `key: text` lines, double-quoted texts and literal blocks are read,
    and the renamed `name:` written, without PyYAML (ADR 0051, 0106); the skills land with
    their names rewritten as PyYAML would write them."""
    package = tmp_path / "plain-skills"
    package.mkdir()
    (package / "plugin.json").write_text('{"name": "plain-skills", "version": "1.0.0"}\n')
    descriptions = {"alpha": "Use alpha when asked; it does one thing.",
                    "beta": '"Use beta — for \\"decks\\": slides, notes."',
                    "gamma": "|-\n  Use gamma: first line — with a dash.\n  TRIGGER: second line."}
    for skill, description in descriptions.items():
        (package / "skills" / skill).mkdir(parents=True)
        (package / "skills" / skill / "SKILL.md").write_text(
            f"---\nname: {skill}\ndescription: {description}\nlicense: Terms in LICENSE.txt\n"
            "---\n# Body\n")
    done = _python("-c", SHOW_MODULES, "install", str(package), "--harness", "all", "--json",
                   cwd=sandbox.project)
    assert done.returncode == 0, done.stderr
    assert _heavy(json.loads(done.stdout), ("yaml", "tomlkit", "tomli_w", "pydantic", "tomllib",
                                            "shutil", "concurrent", "uze.projections.entry",
                                            "uze.projections.config_entry")) == []  # ADR 0106
    skill = sandbox.project / ".agents" / "skills" / "plain-skills-alpha" / "SKILL.md"
    assert skill.read_text().startswith("---\nname: plain-skills-alpha\ndescription: Use alpha")
    gamma = sandbox.project / ".agents" / "skills" / "plain-skills-gamma" / "SKILL.md"
    assert gamma.read_text() == ("---\nname: plain-skills-gamma\ndescription: "
                                 f"{descriptions['gamma']}\nlicense: Terms in LICENSE.txt\n"
                                 "---\n# Body\n")


def test_the_next_install_reads_uze_toml_and_uze_lock_without_tomllib(sandbox: Sandbox,
                                                                     tmp_path: Path) -> None:
    """A project's uze.toml and uze.lock in the form uze writes them are read without tomllib
    (ADR 0110): the second skills-only install of a project loads no TOML library either."""
    for name in ("first", "second"):
        package = tmp_path / name
        (package / "skills" / name).mkdir(parents=True)
        (package / "plugin.json").write_text(f'{{"name": "{name}", "version": "1.0.0"}}\n')
        (package / "skills" / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Use {name}.\n---\n# Body\n")
        done = _python("-c", SHOW_MODULES, "install", str(package), "--harness", "all",
                       "--json", cwd=sandbox.project)
        assert done.returncode == 0, done.stderr
    assert _heavy(json.loads(done.stdout), ("tomllib", "tomlkit")) == []
    assert (sandbox.project / "uze.toml").read_text().endswith(
        'first = "../first"\nsecond = "../second"\n')
    assert 'name = "second"' in (sandbox.project / "uze.lock").read_text()


def test_an_invalid_package_lists_its_problems_without_pydantic(tmp_path: Path) -> None:
    """Every problem is found by walking the msgspec Structs (ADR 0038): no second model
    library loads, however bad the package."""
    package = tmp_path / "bad"
    shutil.copytree(PACKAGE, package)
    (package / "plugin.json").write_text('{"name": "Bad", "version": 2, "extra": true}\n')
    (package / "mcp.json").write_text('{"mcpServers": {"s": {"command": 1, "url": "x"}}}\n')
    script = ("import sys\nfrom pathlib import Path\nfrom uze.errors import PackageInvalid\n"
              "from uze.package import read_package\ntry:\n    read_package(Path(sys.argv[1]))\n"
              "except PackageInvalid as error:\n    print(len(error.details))\n"
              "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic'))\n")
    done = _python("-c", script, str(package), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    count, loaded = done.stdout.splitlines()
    assert int(count) >= 4 and loaded == "[]"


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
    assert {"uze.install.reinstall", "uze.package.tree"} <= set(loaded)
    assert set(_heavy(loaded, ("uze.package",))) <= {
        "uze.package", "uze.package.tree", "uze.package.layout", "uze.package.names",
        "uze.package.issues"}
    assert _heavy(loaded, ("uze.plan.planner", "uze.commands.install", "yaml", "tomlkit",
                           "pydantic", *HEAVY[4:])) == []
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
    ("check", str(PACKAGE), "--json"),
    ("check", str(PACKAGE), "--json", "--harness", "codex,claude"),
    ("check", str(PACKAGE.parent / "no-such-package"), "--json"),
    ("check", str(PACKAGE), "--json", "--strict", "--verbose"),
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
        assert "\n  claude_code: " in fast_install.stdout  # the summary, a line per harness
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


# Every import inside a function of uze/, by (importing module, imported module), with the
# reason it is not at the top of its module: a start-up cost kept off a command that does not
# need it, or an optional heavy dependency (issue 20 item 6). Anything else goes at the top.
RICH = "start-up: rich loads only to draw a human view or a progress line at a terminal"
VIEW = "start-up: the views load only to print a human view (plain text unless at a terminal)"
PARSER = "start-up: typer and click load only for a line the table's fast parse does not take"
OWN = "start-up: a command line loads the modules of its own command only"
READER = "start-up: the package reader (models, YAML) loads only when a package is read"
RECEIPTS = "start-up: a scope without receipts loads no receipt model (ADR 0015)"
PLANNER = "start-up: the planner loads only when the re-install shortcut cannot answer (ADR 0016)"
GIT = "start-up: git sources load only for a git source or marketplace"
MARKET = "start-up: marketplaces load only for plugin@marketplace"
DECLARED = "start-up: uze.toml and uze.lock load only where a package is declared or pinned"
DRIFTED = "start-up: status reads an artifact file by file only when it is not as uze wrote it"
TOMLKIT = "optional heavy dependency: tomlkit loads only to write TOML"
HARNESS_YAML = "start-up: the registry imports harness modules; YAML loads only to render it"
PLAIN_YAML = "start-up: PyYAML reads only frontmatter that is not plain `key: text` (ADR 0051)"
LAZY_IMPORTS = {
    ("uze.portable", "fcntl"): "start-up: only commands that write take a lock; Windows has none",
    ("uze.portable", "filelock"): "start-up: Windows only; POSIX takes flock itself (ADR 0072)",
    ("uze.portable", "signal"): "start-up: only `uze doctor --probe` ends processes",
    ("uze.doctor.versions", "concurrent.futures"):
        "start-up: threads only when doctor asks several binaries their versions",
    ("uze.artifacts.config", "uze.trust"):
        "start-up: trust (it reads the package models) loads only to show a kept config value",
    ("uze.__main__", "uze"): "start-up: `uze --version` imports nothing else",
    ("uze.__main__", "uze.cli"): "start-up: `uze --version` imports nothing else",
    ("uze.__main__", "msgspec"):
        "start-up: msgspec loads without typing_extensions and inspect (ADR 0051)",
    ("uze.cli", "inspect"): "start-up: only the typer app builds signatures (inspect, ast, dis)",
    ("uze.plan.agents", "tomlkit"): TOMLKIT,
    ("uze.plan.planner", "uze.plan.runs"):
        "start-up: hook and MCP delivery loads only for a package with hooks or servers",
    ("uze.plan.planner", "uze.plan.tools"):
        "start-up: the generated tool server loads only for a package with tools.json",
    ("uze.plan.agents", "yaml"):
        "start-up: PyYAML writes only an agent header that is not plain text (ADR 0051)",
    ("uze.plan.commands", "yaml"):
        "start-up: PyYAML writes only a command header that is not plain text (ADR 0051)",
    ("uze.projections.frontmatter", "yaml"):
        "start-up: PyYAML writes only a frontmatter value that is not one plain word (ADR 0051)",
    ("uze.package.frontmatter", "yaml"): PLAIN_YAML,
    ("uze.package.frontmatter", "uze.package.bounded_yaml"): PLAIN_YAML,
    ("uze.commands.imports", "yaml"): "start-up: PyYAML loads only for `--from apm.yml`",
    ("uze.commands.imports", "uze.package.bounded_yaml"):
        "start-up: PyYAML loads only for `--from apm.yml`",
    ("uze.commands.imports", "uze.package.limits"):
        "start-up: read with bounded_yaml, only for `--from apm.yml`",
    ("uze.cli", "tempfile"): "start-up: only a bug (exit 3) writes a traceback log",
    ("uze.cli", "uze.transaction"): "start-up: the journal's count is read only after Ctrl-C",
    ("uze.errors", "difflib"): "start-up: difflib loads only to suggest a name in an error",
    ("uze.cli", "traceback"): "start-up: only a bug (exit 3) writes a traceback log",
    ("uze.cli", "typer"): PARSER,
    ("uze.cli", "uze.ui.console"): RICH,
    ("uze.cli", "uze.ui.plain"): VIEW,
    ("uze.cli", "uze.ui.cli_help"): PARSER,
    ("uze.cli", "uze.ui.progress_view"): RICH,
    ("uze.commands.acquire", "uze.commands.install_verb"): PLANNER,
    ("uze.commands.acquire", "uze.commands.marketplace"): MARKET,
    ("uze.commands.acquire", "uze.commands.published"): MARKET,
    ("uze.commands.acquire", "uze.package"): READER,
    ("uze.commands.acquire", "uze.sources.mirrors"): GIT,
    ("uze.state.context", "uze.sources.mirrors"): GIT + " (or a killed one's scratch mirror)",
    ("uze.commands.declared", "uze.commands.declare"): DECLARED,
    ("uze.commands.declare", "uze.sources.stages"):
        "start-up: git is asked for a merge's stages only when uze.toml or uze.lock has markers",
    ("uze.commands.status", "uze.install.edits"): DRIFTED,
    ("uze.state.context", "uze.state.receipts"): RECEIPTS,
    ("uze.state.receipt_cache", "uze.state.receipts"): RECEIPTS,
    **{("uze.artifacts.registry", f"uze.artifacts.{kind}"):
       "start-up: an artifact kind loads when a plan or receipt first has one (ADR 0051)"
       for kind in ("tree", "region", "file", "entry", "element")},
    ("uze.commands.converge", "uze.artifacts.registry"):
        "start-up: artifact checks load only when a pinned package has a receipt",
    ("uze.commands.converge", "uze.commands.install"): PLANNER,
    ("uze.commands.converge", "uze.install.edits"):
        "start-up: the words for kept edits load only when a pinned package has a receipt",
    ("uze.commands.converge", "uze.package"): READER,
    ("uze.commands.converge", "uze.package.settings"): READER,
    ("uze.commands.converge", "uze.sources.mirrors"): GIT,
    ("uze.commands.doctor", "uze.doctor.probe_run"):
        "start-up: harness probes load only with --probe",
    ("uze.commands.install_verb", "uze.commands.install"): PLANNER,
    ("uze.commands.marketplace", "uze.package"): READER,
    ("uze.commands.published", "uze.package"): READER,
    ("uze.commands.published", "uze.sources.mirrors"): GIT,
    ("uze.commands.selection", "uze.package"): READER,
    ("uze.commands.skill_index", "uze.package.frontmatter"): READER,
    ("uze.commands.selection", "uze.package.tree"): READER,
    ("uze.commands.marketplace", "uze.sources.mirrors"): GIT,
    ("uze.install.reinstall", "uze.state.receipts"): RECEIPTS,
    ("uze.commands.uninstall", "uze.commands.declare"): DECLARED,
    ("uze.commands.uninstall", "uze.artifacts.beside"):
        "start-up: the `.uze-new` files are looked for only when a package is uninstalled",
    ("uze.commands.status", "uze.artifacts.registry"): RECEIPTS,
    ("uze.commands.status", "uze.artifacts.parts"): RECEIPTS,
    ("uze.commands.update", "uze.commands.converge"): "start-up: `outdated` installs nothing",
    ("uze.commands.update", "uze.install.edits"): "start-up: `outdated` installs nothing",
    ("uze.commands.update", "uze.commands.marketplace"): MARKET,
    ("uze.commands.update", "uze.sources.git"): GIT,
    ("uze.doctor.compatibility", "uze.hooks.delivery"):
        "start-up: hook delivery loads only when doctor checks a hook capability",
    ("uze.ui.documents", "uze.package"):
        "start-up: the re-install shortcut's document reads no package model (ADR 0016)",
    ("uze.threads", "threading"):
        "start-up: threads start only for the durability barrier or removing many files",
    ("uze.durability", "ctypes"):
        "start-up: libc's syncfs loads only for a barrier with files (ADR 0046)",
    ("uze.fs", "tempfile"): "start-up: tempfile loads only for a command that writes",
    **{(module, "tomllib"): "start-up: tomllib loads only to read a TOML file that exists; "
       "a fresh install reads none (ADR 0106)"
       for module in ("uze.projections.config_toml", "uze.policy", "uze.package.gemini",
                      "uze.sources.toml_lines")},
    **{("uze.install.adoption", module): "start-up: the config editors load only to adopt a "
       "config entry; a skills-only install reads no config file (ADR 0106)"
       for module in ("uze.projections.entry", "uze.projections.config_entry",
                      "uze.plan.server_form")},
    ("uze.harnesses.base", "shutil"):
        "start-up: shutil (it imports bz2 and lzma) loads only to look for a harness on PATH",
    ("uze.harnesses.codex", "tomllib"):
        "start-up: Codex's config is read only by `uze status` with a delivered Codex hook",
    ("uze.harnesses.codex", "yaml"): HARNESS_YAML,
    ("uze.harnesses.opencode", "yaml"): HARNESS_YAML,
    ("uze.harnesses.gemini_cli", "tomlkit"):
        "start-up: the registry imports harness modules; tomlkit loads only to write a Gemini "
        "CLI command (adr/0068)",
    ("uze.harnesses.gemini_cli", "uze.package.gemini"):
        "start-up: the registry imports harness modules; the Claude-to-Gemini prompt "
        "translation loads only to write a command (adr/0068)",
    ("uze.hooks.wrapper_script", "fnmatch"):
        "start-up: the hook wrapper runs on every tool call; only a Claude `if` needs it",
    ("uze.hooks.wrapper_script", "re"):
        "start-up: the hook wrapper runs on every tool call; only a Claude matcher needs it",
    ("uze.paths", "platformdirs"): "start-up: platformdirs loads only when UZE_HOME is unset",
    ("uze.ui.progress_view", "rich.progress"): RICH,
    ("uze.ui.progress_view", "uze.ui.console"): RICH,
    ("uze.sources.manifest", "tomlkit"): TOMLKIT,
    ("uze.projections.config_array", "tomlkit"): TOMLKIT,
    ("uze.projections.config_toml", "tomlkit"): TOMLKIT,
    ("uze.projections.config_toml", "tomlkit.exceptions"): TOMLKIT,
    ("uze.projections.config_toml", "tomlkit.items"): TOMLKIT,
    ("uze.verbs.catalogs", "uze.commands.marketplace"): OWN,
    ("uze.verbs.catalogs", "uze.commands.store"): OWN,
    ("uze.verbs.everyday", "uze.commands.acquire"): OWN,
    ("uze.verbs.everyday", "uze.commands.every_plugin"): OWN,
    ("uze.commands.every_plugin", "uze.sources.mirrors"): GIT,
    ("uze.verbs.everyday", "uze.commands.check"): OWN,
    ("uze.verbs.everyday", "uze.commands.converge"): OWN,
    ("uze.verbs.everyday", "uze.commands.imports"): OWN,
    ("uze.verbs.everyday", "uze.commands.doctor"): OWN,
    ("uze.verbs.everyday", "uze.commands.listing"): OWN,
    ("uze.verbs.everyday", "uze.commands.status"): OWN,
    ("uze.verbs.everyday", "uze.commands.uninstall"): OWN,
    ("uze.verbs.switching", "uze.commands.switch"): OWN,
    ("uze.verbs.switching", "uze.ui.switch_view"): VIEW,
    ("uze.verbs.authoring", "uze.commands.export"): OWN,
    ("uze.verbs.authoring", "uze.commands.pack"): OWN,
    ("uze.verbs.everyday", "uze.commands.update"): OWN,
    ("uze.verbs.everyday", "uze.ui.render"): VIEW,
    ("uze.verbs.everyday", "uze.ui.summary"): OWN,
    ("uze.verbs.everyday", "uze.ui.many"): OWN,
    ("uze.ui.many", "uze.ui.render"): VIEW,
}
SOURCE = Path(__file__).parents[2] / "uze"


def _imported(source: Path, node: ast.ImportFrom) -> str:
    """The module a `from M import N` loads: `M.N` when N is a module of the package at
    `source` (`from uze import render`), else M."""
    module = node.module or ""
    if len(node.names) == 1:
        child = source.parent.joinpath(*module.split("."), node.names[0].name)
        if child.with_suffix(".py").is_file() or (child / "__init__.py").is_file():
            return f"{module}.{node.names[0].name}"
    return module


def _function_imports(source: Path) -> dict[tuple[str, str], list[str]]:
    """(module, imported module) -> where, for every import statement inside a function."""
    found: dict[tuple[str, str], list[str]] = {}
    for path in sorted(source.rglob("*.py")):
        parts = path.relative_to(source.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                names = [alias.name for alias in node.names] if isinstance(node, ast.Import) \
                    else [_imported(source, node)] if isinstance(node, ast.ImportFrom) else []
                for name in names:
                    where = f"{path.relative_to(source.parent)}:{node.lineno}"  # type: ignore[attr-defined]
                    found.setdefault((module, name), []).append(where)
    return found


def test_every_function_level_import_names_its_reason() -> None:
    """An import inside a function hides a dependency from the reader and from the top of
    the module; it is allowed only where the table above names why (and a stale entry of the
    table fails too, so the table stays the list)."""
    found = _function_imports(SOURCE)
    unlisted = {pair: where for pair, where in found.items() if pair not in LAZY_IMPORTS}
    assert unlisted == {}, "move these imports to the top, or name their reason in LAZY_IMPORTS"
    assert sorted(set(LAZY_IMPORTS) - set(found)) == []
    assert all(reason.startswith(("start-up: ", "optional heavy dependency: "))
               for reason in LAZY_IMPORTS.values())


def test_the_function_import_finder_finds_them(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("import os\n")
    (package / "mod.py").write_text(
        "import os\n\ndef f():\n    import json\n    from os import path\n\n"
        "class C:\n    def m(self):\n        from pkg import mod\n")
    assert _function_imports(package) == {
        ("pkg.mod", "json"): ["pkg/mod.py:4"], ("pkg.mod", "os"): ["pkg/mod.py:5"],
        ("pkg.mod", "pkg.mod"): ["pkg/mod.py:9"]}
