"""docs/cli.md is what scripts/gen-cli-docs.py makes from the command definitions (issue 23)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer

from uze.cli import command
from uze.ui.cli_docs import EXIT_CODES, markdown
from uze.ui.cli_help import conventional_help

REPO = Path(__file__).parents[3]
DOC = REPO / "docs" / "cli.md"


def _walk(tree: object, path: str = "") -> list[tuple[str, object]]:
    found = [(path, tree)]
    for name, sub in (getattr(tree, "commands", None) or {}).items():
        found += _walk(sub, f"{path} {name}".strip())
    return found


def test_docs_cli_md_is_generated_from_the_definitions() -> None:
    assert DOC.read_text(encoding="utf-8") == markdown(command()), (
        "docs/cli.md differs from the command definitions: run python scripts/gen-cli-docs.py")


def test_every_command_option_and_exit_code_is_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    for path, sub in _walk(command()):
        assert f"## `uze {path}".replace("uze  ", "uze ") in text or path == "", path
        for param in sub.params:  # type: ignore[attr-defined]
            for name in (*param.opts, *param.secondary_opts):
                shown = f"`{param.metavar}`" if param.param_type_name == "argument" else f"`{name}`"
                assert shown in text, (path, name)
    for code, _ in EXIT_CODES:
        assert f"| {code} |" in text


def test_a_command_added_later_is_documented_without_changing_the_generator() -> None:
    app = typer.Typer()

    @app.command()
    def outdated(
        name: Annotated[str, typer.Argument(help="Package name.")],
        limit: Annotated[int, typer.Option("--limit", help="At most this many.")] = 5,
        as_json: Annotated[bool, typer.Option("--json", help="JSON.")] = False,
    ) -> None:
        """Show packages with a newer version."""

    @app.command()
    def search(query: str) -> None:
        """Find packages."""

    tree = typer.main.get_command(app)
    conventional_help(tree)
    text = markdown(tree)
    assert "## `uze outdated [OPTIONS] NAME`" in text
    assert "Show packages with a newer version." in text
    assert "| `--limit` | `INTEGER` | `5` | At most this many. |" in text
    assert "| `--json` | - | - | JSON. |" in text
    assert "## `uze search [OPTIONS] QUERY`" in text


def test_the_script_in_check_mode_accepts_the_committed_file() -> None:
    script = REPO / "scripts" / "gen-cli-docs.py"
    ok = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True,
                        check=False)
    assert (ok.returncode, ok.stderr) == (0, "")
