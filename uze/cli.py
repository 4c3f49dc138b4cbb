"""The command line: parse, call the core through the command table, print, map errors to exits.

The only module that prints a command's output and errors (ADR 0037; the progress line of
ADR 0027 is drawn by `uze.ui.progress_view` while a command runs). Each command is defined once,
in `uze.verbs`. A plain line of a `fast` verb (`status`, `list`, `check`, `install`,
`uninstall` with the options of the table) is parsed from the table without typer, whose app
(built from the same table, on first use) parses every other line and writes `--help`; both
run `execute`, so they print the same bytes. Human views are plain text when stdout is not a
terminal (`uze.ui.plain`), drawn by rich at one. Exit codes: 0 ok, 1 UzeError, 2 usage, 3 bug
(one line + the path of a traceback log), 130 Ctrl-C.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated, Any, Final

from uze import __version__, canonical
from uze.errors import (
    AccessDenied,
    ConsentRequired,
    SettingsWanted,
    TrustRequired,
    UsageError,
    UzeError,
    redacted,
)
from uze.inert import inert
from uze.paths import terminal_forced
from uze.verbs import GROUPS, VERBS, Call, Param, Verb, fast_call
from uze.verbs.base import project_note

COLOR_MODES: Final = ("auto", "always", "never")
_color = "auto"


def _render() -> Any:
    """`uze.ui.console` (rich), in the colour of the command line."""
    from uze.ui import console as render  # start-up: rich loads only to draw at a terminal

    render.set_color(_color)
    return render


def _say(*lines: str) -> None:
    """Lines on stderr, as they are (errors, hints, notes: plain text; no rich)."""
    sys.stderr.write("".join(f"{line}\n" for line in lines))
    sys.stderr.flush()


def _print_error(exc: UzeError) -> int:
    _say(*(inert(redacted(line)) for line in exc.details),
         f"uze: error: {inert(redacted(exc.message))}",
         *([f"hint: {inert(redacted(exc.hint))}"] if exc.hint else []))
    return 2 if isinstance(exc, UsageError) else 1


def _interrupted() -> int:
    """Say what a Ctrl-C left: nothing written (the transaction under way was rolled back), or
    the changes committed before it, each whole. Exit 130."""
    from uze.transaction import Transaction  # start-up: read only after Ctrl-C

    if Transaction.committed:
        what = ("uze: interrupted (Ctrl-C) after its changes were written: every change it made "
                "stands whole, none is half-written")
        hint = "run `uze status` to see them"
    else:
        what = "uze: interrupted (Ctrl-C): nothing was written (what was under way is undone)"
        hint = "run the command again"
    _say(what, f"hint: {hint}")
    return 130


def failure_code(exc: BaseException) -> int:
    """Render what escaped a command (never a traceback) and return its exit code."""
    if isinstance(exc, PermissionError) and exc.filename is not None:

        exc = AccessDenied(os.fsdecode(exc.filename), exc.strerror or "permission denied")
    if isinstance(exc, UzeError):
        return _print_error(exc)
    if isinstance(exc, KeyboardInterrupt) or type(exc).__name__ == "Abort":  # click's, at a prompt
        return _interrupted()
    import tempfile  # start-up: only a bug writes its log
    import traceback

    log = Path(tempfile.mkstemp(prefix="uze-bug-", suffix=".log")[1])
    log.write_text("".join(traceback.format_exception(exc)), encoding="utf-8")
    _say(f"uze: internal error (a bug); traceback written to {log}",
         "hint: please report it and attach that file")
    return 3


def _attempt(verb: Verb, call: Call) -> Any:
    """The core call, inside the progress display of a command that has one (at a terminal,
    without --json; `uze.ui.progress_view` is imported only then)."""
    if verb.progress is None or call.get("as_json") or not sys.stderr.isatty():
        return verb.run(call)
    from uze.ui.progress_view import shown  # start-up: rich's live display, only at a terminal

    with shown(verb.progress(call)):
        return verb.run(call)


def _asking(verb: Verb, call: Call) -> Any:
    """Run the verb; if a package needs consent, ask on a terminal (not with --json), else
    refuse. A yes accepts the consent digest of exactly what was shown: the retry installs the
    package only while it still has that digest, and asks again when it changed meanwhile
    (ADR 0056); a command that installs several packages asks once for each."""
    answered: set[str] = set()
    terminal = verb.asks and not call.get("as_json") and sys.stdin.isatty() and sys.stderr.isatty()
    if terminal:
        call = {**call, "ask": ()}  # settings without a value are asked for (adr/0078)
    while True:
        try:
            return _attempt(verb, call)
        except SettingsWanted as wanted:
            given, empty = _ask_settings(wanted)
            call = {**call, "set": [*(call.get("set") or ()), *given],
                    "ask": (*call["ask"], *empty)}
        except TrustRequired as needed:
            accepted = tuple(call.get("accepted", ()))
            if not terminal or set(needed.digests) <= set(accepted):
                raise  # no digest to accept, or one accepted already: never ask in a loop
            _ask(needed, changed=needed.package in answered)
            answered.add(needed.package)
            call = {**call, "accepted": (*accepted, *needed.digests)}


def _ask_settings(wanted: SettingsWanted) -> tuple[list[str], list[str]]:
    """Ask for each setting without a value: the `KEY=VALUE` of each answer, and the keys left
    empty (each harness then reads the setting's variable where it runs)."""
    from typer import prompt  # start-up: the prompt loads only when it asks

    _say(f"{inert(wanted.package)} has settings with no value (empty: each harness reads "
         "the variable named where it runs):")
    given, empty = [], []
    for key, title, description, variable in wanted.wanted:
        _say(f"  {inert(key)}: {inert(description)}")
        answer = prompt(f"{inert(title)} [${inert(variable)}]", default="", show_default=False,
                        err=True)
        if answer:
            given.append(f"{key}={answer}")
        else:
            empty.append(key)
    return given, empty


def _ask(needed: TrustRequired, *, changed: bool) -> None:
    """Show what the package (or, for several, each package) runs and ask once; raise when the
    user declines."""
    from typer import confirm  # start-up: the prompt loads only when it asks

    names = needed.names if isinstance(needed, ConsentRequired) else ()
    if changed:
        _say(f"{inert(needed.package)} changed after you answered; what "
             f"{'they run' if names else 'it runs'} now:")
    _say(*(inert(line) for line in needed.details))
    question = (f"Install these {len(names)} packages ({inert(needed.package)}) and let them "
                "run these?" if names else "Install it and let it run these?")
    if not confirm(question, default=False, err=True):
        raise UzeError(f"{needed.package or 'the package'} not installed: you declined; "
                       f"nothing of {'them' if names else 'it'} was written",
                       hint=f"read what {'they run' if names else 'it runs'}; to accept, run "
                            "again and answer y, or pass --trust") from None


def _at_terminal() -> bool:
    """Whether stdout is drawn on as a terminal, decided as rich decides it (`--color
    always`, `TTY_COMPATIBLE`, `FORCE_COLOR`, else whether stdout is a tty) without loading it."""
    if _color == "always":
        return True
    forced = terminal_forced()
    if forced is not None:
        return forced
    try:
        return sys.stdout.isatty()
    except ValueError:  # a closed stdout
        return False


def _show(items: Iterable[Any]) -> None:
    """Print a human view (`uze.ui.blocks`; a `str` is one plain line, shown inert): plain
    text when stdout is not a terminal (no rich, issue 32 item 4), else drawn by rich."""
    if not _at_terminal():
        from uze.ui import plain  # start-up: the plain view of a pipe, a file or a CI log

        sys.stdout.write(plain.text(items))
        sys.stdout.flush()
        return
    render = _render()
    console = render.stdout_console()
    for item in items:
        console.print(render.renderable(inert(item, lines=True) if isinstance(item, str)
                                        else item))


def execute(verb: Verb, call: Call) -> int:
    """Run one parsed command line and print what it prints; return its exit code."""
    try:
        quiet = call.get("quiet", False)
        note = project_note(call) if verb.writes else None
        if note is not None and not quiet:
            sys.stderr.write(f"note: {note}\n")
        result = _asking(verb, call)
        for note in () if quiet else getattr(result, "notes", ()):  # an install's Outcome
            sys.stderr.write(f"note: {inert(note)}\n")
        if call.get("as_json"):
            # msgspec's C encoder, byte for byte json.dumps(indent=2, sort_keys=True): the
            # pure-Python indenting encoder was most of `status --json` on 100 packages
            sys.stdout.write(canonical.document(verb.document(result)))
            sys.stdout.flush()
        elif not quiet:
            _show(verb.view(result, call))
        return verb.finish(result) if verb.finish is not None else 0
    except BrokenPipeError:  # the reader stopped reading (`| head -1`): done, not failed
        from uze.ui.plain import quiet_stdout  # start-up: only when the reader went away

        quiet_stdout()
        return 0
    except (Exception, KeyboardInterrupt) as exc:
        return failure_code(exc)


# --------------------------------------------------------------------------- the typer app


def _annotation(typer: Any, param: Param) -> tuple[Any, Any]:
    """The typer annotation and default of a parameter of the table."""
    import inspect  # start-up: only the typer app reads signatures
    if param.kind == "flag":
        return Annotated[bool, typer.Option(param.flag, help=param.help)], False
    if param.kind == "texts":
        return Annotated[list[str] | None, typer.Option(param.flag, help=param.help)], None
    if param.kind in ("text", "path"):
        kind: Any = Path if param.kind == "path" else str
        kind = kind if param.default is not None else kind | None
        return Annotated[kind, typer.Option(param.flag, help=param.help)], param.default
    kind = {"argument": str, "path-argument": Path, "arguments": list[str]}[param.kind]
    if param.default is ...:
        return Annotated[kind, typer.Argument(help=param.help)], inspect.Parameter.empty
    return Annotated[kind | None, typer.Argument(help=param.help)], None


def _function(body: Callable[..., None], doc: str, params: list[tuple[str, Any, Any]]) -> Any:
    """`body` with a signature typer reads: keyword parameters (name, annotation, default)."""
    import inspect  # start-up: only the typer app reads signatures

    def command(**values: Any) -> None:
        body(**values)

    command.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                          annotation=annotation) for name, annotation, default in params])
    command.__annotations__ = {name: annotation for name, annotation, _ in params}
    command.__doc__ = doc
    return command


def _app(typer: Any) -> Any:
    """The typer app of the command table: `uze --version`, `--color` and every verb."""
    def version(value: bool) -> None:
        if value:
            sys.stdout.write(f"uze {__version__}\n")
            raise typer.Exit(0)

    def color(value: str) -> str:
        global _color
        if value not in COLOR_MODES:
            raise typer.BadParameter(f"{value!r} is not one of auto, always, never")
        _color = value
        return value

    app = typer.Typer(add_completion=True, no_args_is_help=True, pretty_exceptions_enable=False,
                      help="Install one portable agent-plugin package into every coding-agent "
                           "harness.")
    app.callback()(_function(lambda **_: None, "uze: one package, every coding agent, never "
                                              "a lost byte.", [
        ("version", Annotated[bool, typer.Option(
            "--version", callback=version, is_eager=True,
            help="Print the version and exit.")], False),
        ("color", Annotated[str, typer.Option(
            "--color", metavar="[auto|always|never]", callback=color, is_eager=True,
            help="Colour: auto (a terminal, unless NO_COLOR is set), always or never.")],
         "auto")]))
    groups = {name: typer.Typer(help=text, no_args_is_help=True) for name, text in GROUPS.items()}
    for name, group in groups.items():
        app.add_typer(group, name=name)
    for verb in VERBS.values():
        def run(verb: Verb = verb, **values: Any) -> None:
            code = execute(verb, values)
            if code:
                raise typer.Exit(code)

        *group, name = verb.path.split()
        owner = groups[group[0]] if group else app
        owner.command(name)(_function(run, verb.help, [
            (param.dest, *_annotation(typer, param)) for param in verb.params]))
    return app


def command() -> Any:
    """The click command tree of the table, its help in click's conventions (`uze.ui.cli_help`)."""
    import typer  # start-up: the parser loads only for a line the fast parse does not take

    from uze.ui.cli_help import conventional_help

    tree = typer.main.get_command(_app(typer))
    conventional_help(tree)
    return tree


def _usage_error(exc: Any) -> int:
    """Render a parser error (unknown option, missing argument) in uze's own error format."""
    ctx = getattr(exc, "ctx", None)
    if type(exc).__name__ == "NoArgsIsHelpError":
        # click builds the error from `ctx.get_help()`, and typer's rich help prints itself
        # there: it has been shown once already (its text is "" then), never print it again
        text = exc.format_message()
        if text:
            sys.stdout.write(text + "\n")
        return 2
    name = ctx.command_path if ctx is not None else "uze"
    _say(f"uze: error: {inert(redacted(exc.format_message()))}",
         f"hint: run `{name} --help` to see the accepted arguments")
    return int(getattr(exc, "exit_code", 2))


def full_main() -> None:
    """Parse the whole command line with typer (what `main` does for any line that is not a
    plain line of a fast verb)."""
    tree = command()
    import typer

    try:
        code = tree.main(prog_name="uze", standalone_mode=False)
    except typer.exceptions.TyperException as exc:
        if not hasattr(exc, "format_message"):
            raise
        code = _usage_error(exc)
    except typer.Abort:  # Ctrl-C while typer parsed the line
        code = _interrupted()
    sys.exit(code if isinstance(code, int) else 0)


def _leading_color(args: list[str]) -> tuple[str, list[str]]:
    """A leading `--color WHEN` (or `--color=WHEN`) and the arguments after it; `auto` and
    the arguments unchanged when there is none or WHEN is not a mode (typer then says why)."""
    if len(args) >= 2 and args[0] == "--color" and args[1] in COLOR_MODES:
        return args[1], args[2:]
    if args and args[0].startswith("--color=") and args[0][8:] in COLOR_MODES:
        return args[0][8:], args[1:]
    return "auto", args


def main() -> None:
    """Console-script entry point: a plain line of a fast verb runs from the table, anything
    else through typer."""
    global _color
    color, rest = _leading_color(sys.argv[1:])
    found = fast_call(rest)
    if found is None:
        full_main()
        return
    _color = color
    code = execute(*found)
    sys.stdout.flush()
    sys.exit(code)
