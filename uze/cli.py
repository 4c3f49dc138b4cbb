"""The command line: parse with typer, call commands/, render, map errors to exit codes.

The only module that imports typer or prints. Exit codes: 0 ok, 1 UzeError, 2 usage,
3 bug (one line + the path of a traceback log), 130 Ctrl-C.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import typer
from rich.console import Console

from uze import __version__, render
from uze.cli_help import conventional_help
from uze.errors import UsageError, UzeError
from uze.inert import inert
from uze.location import checked_scope
from uze.progress_view import shown
from uze.render import (
    add_row,
    check_view,
    install_view,
    list_view,
    new_table,
    status_view,
    uninstall_view,
)
from uze.render import show as _show
from uze.render import stdout_console as _out

app = typer.Typer(
    add_completion=True,
    no_args_is_help=True,
    help="Install one portable agent-plugin package into every coding-agent harness.",
    pretty_exceptions_enable=False,
)
T = TypeVar("T")

ProjectOpt = Annotated[Path | None, typer.Option(
    "--project", help="Project folder (default: nearest .uze/ or .git ancestor).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout.")]
DryOpt = Annotated[bool, typer.Option("--dry-run", help="Print the plan; write nothing.")]
ForceOpt = Annotated[bool, typer.Option("--force",
                                        help="Also replace or remove artifacts the user edited.")]


def _err() -> Console:
    return render.console(stderr=True, soft_wrap=True)


def _print_error(exc: UzeError) -> int:
    err = _err()
    for line in exc.details:
        err.print(inert(line), markup=False)
    err.print(f"uze: error: {inert(exc.message)}", markup=False)
    if exc.hint:
        err.print(f"hint: {inert(exc.hint)}", markup=False)
    return 2 if isinstance(exc, UsageError) else 1


def _fail(exc: UzeError) -> None:
    raise typer.Exit(_print_error(exc))


def failure_code(exc: BaseException) -> int:
    """Render what escaped a command (never a traceback) and return its exit code.

    Shared with the `status --json` fast path in `uze.__main__`, so both fail byte for byte alike.
    """
    if isinstance(exc, PermissionError) and exc.filename is not None:
        from uze.errors import AccessDenied

        exc = AccessDenied(os.fsdecode(exc.filename), exc.strerror or "permission denied")
    if isinstance(exc, UzeError):
        return _print_error(exc)
    if isinstance(exc, KeyboardInterrupt):
        return 130
    log = Path(tempfile.mkstemp(prefix="uze-bug-", suffix=".log")[1])
    log.write_text("".join(traceback.format_exception(exc)), encoding="utf-8")
    err = _err()
    err.print(f"uze: internal error (a bug); traceback written to {log}", markup=False)
    err.print("hint: please report it and attach that file", markup=False)
    return 3


def _run(action: Callable[[], T]) -> T:
    """Call into the core; render a UzeError, log a bug, never show a traceback to the user."""
    try:
        return action()
    except (typer.Exit, typer.Abort):
        raise
    except (Exception, KeyboardInterrupt) as exc:
        raise typer.Exit(failure_code(exc)) from None


def _paths() -> Any:
    from uze.paths import Paths

    return Paths.from_env()


def _asking(attempt: Callable[[bool], T], trusted: bool, *, interactive: bool) -> T:
    """Run `attempt`; if the package needs consent, ask once on a terminal, else refuse."""
    from uze.errors import TrustRequired

    try:
        return attempt(trusted)
    except TrustRequired as needed:
        if not (interactive and sys.stdin.isatty() and sys.stderr.isatty()):
            raise
        err = _err()
        for line in needed.details:
            err.print(inert(line), markup=False)
        if not typer.confirm("Install it and let it run these?", default=False, err=True):
            raise UzeError("not installed: you declined; nothing was written",
                           hint="read what it runs; to accept, run again and answer y, or pass "
                                "--trust") from None
        return attempt(True)


def _print_json(document: dict[str, Any]) -> None:
    try:
        sys.stdout.write(json.dumps(document, indent=2, sort_keys=True) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # the reader stopped reading (`| head -1`): done, not failed
        render.quiet_stdout()
        raise SystemExit(0) from None


def _version_callback(value: bool) -> None:
    if value:
        sys.stdout.write(f"uze {__version__}\n")
        raise typer.Exit(0)


def _color_callback(value: str) -> str:
    try:
        render.set_color(value)
    except ValueError:
        raise typer.BadParameter(f"{value!r} is not one of auto, always, never") from None
    return value


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version_callback, is_eager=True,
                                          help="Print the version and exit.")] = False,
    color: Annotated[str, typer.Option(
        "--color", metavar="[auto|always|never]", callback=_color_callback, is_eager=True,
        help="Colour: auto (a terminal, unless NO_COLOR is set), always or never.")] = "auto",
) -> None:
    """uze: one package, every coding agent, never a lost byte."""


@app.command()
def install(
    source: Annotated[str | None, typer.Argument(
        help="Folder, git URL, owner/repo[@ref] or plugin@marketplace "
             "(none: install uze.toml + uze.lock).")] = None,
    project: ProjectOpt = None,
    scope: Annotated[str, typer.Option("--scope", help="project or user.")] = "project",
    harness: Annotated[str | None, typer.Option(
        "--harness", help="H[,H...] or all (default: detected).")] = None,
    ref: Annotated[str, typer.Option("--ref", help="Branch, tag or commit of a git source.")] = "",
    subdirectory: Annotated[str, typer.Option(
        "--subdirectory", help="The package's folder inside a git source.")] = "",
    frozen: Annotated[bool, typer.Option(
        "--frozen", help="Install exactly uze.lock; never resolve or write it.")] = False,
    replace: Annotated[bool, typer.Option(
        "--replace", help="Replace a package of this name installed from another source.")] = False,
    dry_run: DryOpt = False,
    as_json: JsonOpt = False,
    force: ForceOpt = False,
    trust: Annotated[bool, typer.Option("--trust",
                                        help="Accept the commands the package runs.")] = False,
) -> None:
    """Install a package (or, with no SOURCE, everything uze.toml and uze.lock say)."""
    from uze.commands.acquire import Options, install_source
    from uze.documents import install_json

    def options(trusted: bool) -> Options:
        return Options(scope=checked_scope(scope, ("project", "user")), project=project,
                       harness=harness, dry_run=dry_run, force=force, trust=trusted,
                       replace=replace)

    if source is None:
        _converge(options, frozen=frozen, as_json=as_json, trust=trust)
        return
    if frozen:
        _fail(UsageError("--frozen installs uze.lock: give no SOURCE",
                         hint="run `uze install --frozen` alone"))

    def attempt(trusted: bool) -> Any:
        with shown(f"install {source}", enabled=not as_json):
            return install_source(_paths(), source, options(trusted), Path.cwd(), ref=ref,
                                  subdirectory=subdirectory)

    outcome = _run(lambda: _asking(attempt, trust, interactive=not as_json))
    for note in outcome.notes:
        _err().print(f"note: {note}", markup=False)
    if as_json:
        _print_json(install_json(outcome.result))
    else:
        _show(install_view(outcome.result))


def _converge(options: Callable[[bool], Any], *, frozen: bool, as_json: bool, trust: bool) -> None:
    """`uze install` with no SOURCE: every declared package, as locked."""
    from uze.commands.converge import converge, converge_json

    def attempt(trusted: bool) -> Any:
        with shown("install", enabled=not as_json):
            return converge(_paths(), options(trusted), Path.cwd(), frozen=frozen)

    result = _run(lambda: _asking(attempt, trust, interactive=not as_json))
    if as_json:
        _print_json(converge_json(result))
        return
    console = _out()
    for line in result.lines():
        console.print(line, markup=False)


@app.command()
def uninstall(
    name: Annotated[str, typer.Argument(help="Package name.")],
    project: ProjectOpt = None,
    scope: Annotated[str, typer.Option("--scope", help="project or user.")] = "project",
    dry_run: DryOpt = False,
    as_json: JsonOpt = False,
    force: ForceOpt = False,
) -> None:
    """Remove what uze owns; keep and report every artifact the user edited."""
    from uze.commands.uninstall import uninstall as run_uninstall
    from uze.documents import uninstall_json

    def attempt() -> Any:
        with shown(f"uninstall {name}", enabled=not as_json):
            return run_uninstall(_paths(), name, scope=checked_scope(scope, ("project", "user")),
                                 project=project, dry_run=dry_run, force=force, cwd=Path.cwd())

    result = _run(attempt)
    if as_json:
        _print_json(uninstall_json(result))
    else:
        _show(uninstall_view(result))


@app.command()
def outdated(
    names: Annotated[list[str] | None, typer.Argument(
        help="Package names (default: all pinned).")] = None,
    project: ProjectOpt = None,
    scope: Annotated[str, typer.Option("--scope", help="project or user.")] = "project",
    as_json: JsonOpt = False,
) -> None:
    """Show each pinned package against what its ref points at now; writes nothing."""
    from uze.commands.acquire import Options
    from uze.commands.update import outdated as run_outdated

    report = _run(lambda: run_outdated(
        _paths(), tuple(names or ()), Options(scope=checked_scope(scope, ("project", "user")),
                                              project=project), Path.cwd()))
    _print_report(report, as_json)


@app.command()
def update(
    names: Annotated[list[str] | None, typer.Argument(
        help="Package names (default: all pinned).")] = None,
    project: ProjectOpt = None,
    scope: Annotated[str, typer.Option("--scope", help="project or user.")] = "project",
    dry_run: DryOpt = False,
    as_json: JsonOpt = False,
    force: ForceOpt = False,
    trust: Annotated[bool, typer.Option(
        "--trust", help="Accept the commands the new versions run.")] = False,
) -> None:
    """Move pins to what each ref points at now and install there (shows old -> new)."""
    from uze.commands.acquire import Options
    from uze.commands.update import update as run_update

    def attempt(trusted: bool) -> Any:
        options = Options(scope=checked_scope(scope, ("project", "user")), project=project,
                          dry_run=dry_run, force=force, trust=trusted)
        return run_update(_paths(), tuple(names or ()), options, Path.cwd())

    _print_report(_run(lambda: _asking(attempt, trust, interactive=not as_json)), as_json)


def _print_report(report: Any, as_json: bool) -> None:
    if as_json:
        _print_json(report.to_json())
        return
    console = _out()
    for line in report.lines():
        console.print(line, markup=False)


@app.command()
def status(
    name: Annotated[str | None, typer.Argument(help="Package name (default: all).")] = None,
    project: ProjectOpt = None,
    scope: Annotated[str, typer.Option("--scope", help="project, user or all.")] = "all",
    as_json: JsonOpt = False,
) -> None:
    """Show every package at a glance, or with NAME each projection's route and whether it is
    still as uze wrote it."""
    from uze.commands.status import status as run_status

    scope_value: Literal["project", "user", "all"] = _run(
        lambda: checked_scope(scope, ("project", "user", "all")))
    result = _run(lambda: run_status(_paths(), name, scope=scope_value, project=project,
                                     cwd=Path.cwd()))
    if as_json:
        _print_json(result.to_json())
    else:
        _show(status_view(result, full=name is not None))


@app.command()
def check(
    source: Annotated[Path, typer.Argument(help="Package folder.")],
    harness: Annotated[str | None, typer.Option("--harness",
                                                help="H[,H...] or all (default: all).")] = None,
    as_json: JsonOpt = False,
    strict: Annotated[bool, typer.Option(
        "--strict", help="Refuse on warnings too (for authors and CI).")] = False,
) -> None:
    """Validate a package and print the route each resource would take; writes nothing."""
    from uze.commands.check import check as run_check
    from uze.documents import check_json

    result = _run(lambda: run_check(_paths(), source, harness=harness, cwd=Path.cwd(),
                                    strict=strict))
    if as_json:
        _print_json(check_json(result))
    else:
        _show(check_view(result))
    if result.plan.unmet_requirements():
        raise typer.Exit(1)


@app.command("list")
def list_command(project: ProjectOpt = None, as_json: JsonOpt = False) -> None:
    """List installed packages (project and user scope)."""
    from uze.commands.listing import list_installed, listing_json

    root, found = _run(lambda: list_installed(_paths(), project=project, cwd=Path.cwd()))
    if as_json:
        _print_json(listing_json(root, found))
    else:
        _show(list_view(found))


@app.command()
def doctor(
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
    probe: Annotated[bool, typer.Option(
        "--probe", help="Run each installed harness's own listings against this project.")] = False,
) -> None:
    """Show each harness: installed, version, what evidence proves, skill roots and collisions."""
    from uze.commands.doctor import doctor as run_doctor
    from uze.commands.doctor import explain, probe_lines

    result = _run(lambda: run_doctor(_paths(), project=project, cwd=Path.cwd(), probe=probe))
    if as_json:
        _print_json(result.to_json())
        return
    table = new_table("harness", "installed", "version", "discovery", "behavior", "status",
                      "skill roots")
    for h in result.harnesses:
        add_row(table, h.id, "yes" if h.installed else "no", h.version or "-", h.discovery,
                h.behavior, h.status, "\n".join(h.skill_roots) or "-")
    console = _out()
    console.print(table)
    for h in result.harnesses:
        for line in explain(h) + probe_lines(h):
            console.print(inert(line), markup=False)


market_app = typer.Typer(help="Register plugin catalogs (Claude Code's and Codex's marketplaces).",
                         no_args_is_help=True)
app.add_typer(market_app, name="marketplace")


@market_app.command("add")
def marketplace_add(
    source: Annotated[str, typer.Argument(
        help="Folder, git URL or owner/repo of the marketplace.")],
    name: Annotated[str | None, typer.Option("--name", help="Register it under this name.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Register a marketplace and cache its catalog."""
    from uze.commands import marketplace

    chosen, catalog = _run(lambda: marketplace.add(_paths(), source, name, Path.cwd()))
    if as_json:
        _print_json({"schema": 1, "name": chosen, "plugins": [e.name for e in catalog.entries]})
    else:
        _out().print(f"Added marketplace {chosen} ({len(catalog.entries)} plugins)", markup=False)


@market_app.command("list")
def marketplace_list(as_json: JsonOpt = False) -> None:
    """List the registered marketplaces."""
    from uze.commands import marketplace

    found = _run(lambda: marketplace.catalogs(_paths()))
    if as_json:
        _print_json(marketplace.listing_json(found))
        return
    console = _out()
    for name, reg, catalog in found:
        at = f" at {reg.commit[:12]}" if reg.commit else ""
        console.print(f"{name}: {reg.source}{at} ({len(catalog.entries)} plugins)", markup=False)
    if not found:
        console.print("No marketplaces registered.", markup=False)


@market_app.command("remove")
def marketplace_remove(name: Annotated[str, typer.Argument(help="Marketplace name.")]) -> None:
    """Forget a marketplace (installed plugins stay)."""
    from uze.commands import marketplace

    _run(lambda: marketplace.remove(_paths(), name))
    _out().print(f"Removed marketplace {name}", markup=False)


@market_app.command("update")
def marketplace_update(
    names: Annotated[list[str] | None, typer.Argument(
        help="Marketplace names (default: all).")] = None,
) -> None:
    """Read each marketplace's catalog again."""
    from uze.commands import marketplace

    moved = _run(lambda: marketplace.update(_paths(), tuple(names or ())))
    console = _out()
    for name, old, new in moved:
        change = "unchanged" if old == new else f"{old[:12] or '-'} -> {new[:12] or '-'}"
        console.print(f"{name}: {change}", markup=False)


@app.command()
def search(
    term: Annotated[str, typer.Argument(
        help="Text to find in plugin names, descriptions, keywords.")],
    as_json: JsonOpt = False,
) -> None:
    """Search the registered marketplaces (offline, from their cached catalogs)."""
    from uze.commands import marketplace

    found = _run(lambda: marketplace.search(_paths(), term))
    if as_json:
        _print_json({"schema": 1, "results": [
            {"name": e.name, "marketplace": market, "description": e.description,
             "version": e.version, "installable": e.source is not None} for market, e in found]})
        return
    console = _out()
    for market, e in found:
        console.print(f"{e.name}@{market}  {e.version or '-'}  {e.description}", markup=False)
    if not found:
        console.print(f"No plugin matches {term!r}.", markup=False)


store_app = typer.Typer(help="Inspect and clean the content-addressed store.", no_args_is_help=True)
app.add_typer(store_app, name="store")


@store_app.command("verify")
def store_verify(as_json: JsonOpt = False) -> None:
    """Re-hash every object and tree; exit 1 if anything is corrupt or missing."""
    from uze.commands.store import verify

    report = _run(lambda: verify(_paths()))
    document = {"schema": 1, "objects": report.objects, "trees": report.trees,
                "corrupt": list(report.corrupt), "missing": list(report.missing),
                "stray": list(report.stray), "ok": report.is_clean}
    if as_json:
        _print_json(document)
    else:
        console = _out()
        console.print(f"{report.objects} objects, {report.trees} trees checked", markup=False)
        for key, items in (("corrupt", report.corrupt), ("missing", report.missing),
                           ("stray", report.stray)):
            for item in items:
                console.print(f"{key}: {item}", markup=False)
    if not report.is_clean:
        _fail(UzeError("the store is damaged",
                       hint="reinstall the affected packages, then run `uze store gc`"))


@store_app.command("gc")
def store_gc(as_json: JsonOpt = False) -> None:
    """Delete store objects that no receipt references."""
    from uze.commands.store import gc

    result = _run(lambda: gc(_paths()))
    r = result.report
    document = {"schema": 1, "removed_objects": r.removed_objects, "removed_trees": r.removed_trees,
                "freed_bytes": r.freed_bytes, "kept_objects": r.kept_objects,
                "live_trees": result.live_trees, "projects": list(result.projects)}
    if as_json:
        _print_json(document)
    else:
        _out().print(f"removed {r.removed_objects} objects and {r.removed_trees} trees "
                     f"({r.freed_bytes} bytes); kept {r.kept_objects} objects", markup=False)


def _usage_error(exc: typer.exceptions.TyperException) -> int:
    """Render a parser error (unknown option, missing argument) in uze's own error format."""
    ctx = getattr(exc, "ctx", None)
    if type(exc).__name__ == "NoArgsIsHelpError" and ctx is not None:
        sys.stdout.write(ctx.get_help() + "\n")
        return 2
    command = ctx.command_path if ctx is not None else "uze"
    err = _err()
    err.print(f"uze: error: {exc.format_message()}", markup=False)
    err.print(f"hint: run `{command} --help` to see the accepted arguments", markup=False)
    return int(getattr(exc, "exit_code", 2))


def command() -> Any:
    """The click command tree of `app`, its help in click's conventions (`uze.cli_help`)."""
    tree = typer.main.get_command(app)
    conventional_help(tree)
    return tree


def main() -> None:
    """Console-script entry point."""
    try:
        code = command().main(prog_name="uze", standalone_mode=False)
    except typer.exceptions.TyperException as exc:
        if not hasattr(exc, "format_message"):
            raise
        code = _usage_error(exc)
    except typer.Abort:
        code = 130
    sys.exit(code if isinstance(code, int) else 0)
