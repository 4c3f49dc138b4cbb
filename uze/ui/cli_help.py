"""What `--help` shows for each value, the way click and typer users read it (issue 23).

typer 0.29 writes every parameter's Python type in angle brackets (`--json <bool>`,
`--project <path>`, usage `{source}`). Here, on the command tree `uze.cli` builds, a flag shows
no value, an option its value in capitals (`--project PATH`, `--scope TEXT`), and an argument
its name in capitals (`SOURCE`, `[NAME]`). Commands other helpers add later get the same,
since the whole tree is walked. Duck-typed on typer's objects: only `uze.cli` imports typer.
"""

from __future__ import annotations

from typing import Any


def value_name(param: Any) -> str:
    """PATH, INTEGER or TEXT: what a parameter's value is, as click names it."""
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is not None and getattr(descriptor, "is_path", False):
        return "PATH"
    annotation = getattr(descriptor, "annotation", None)
    if annotation is int:
        return "INTEGER"
    if annotation is float:
        return "FLOAT"
    return "TEXT"


def is_flag(param: Any) -> bool:
    """Whether an option takes no value (`--json`, `--help`)."""
    return bool(getattr(param, "is_flag", False) or getattr(param, "count", False))


def _tidy_argument(param: Any) -> None:
    label = value_name(param)
    if param.metavar is None:
        param.metavar = param.name.upper()
    shown = param.metavar if param.required else f"[{param.metavar}]"
    param.display_type_rich = lambda ctx: label
    param.display_type = lambda ctx: label
    param._usage_display_name = lambda: shown


def _tidy(param: Any) -> None:
    if param.param_type_name == "argument":
        _tidy_argument(param)
    elif param.metavar is None:
        param.metavar = "" if is_flag(param) else value_name(param)


def conventional_help(command: Any, name: str = "uze") -> None:
    """Give every parameter of `command` and of its subcommands (their `--help` too) the
    conventional value names. Idempotent."""
    context = command.context_class(command, info_name=name)
    for param in (*command.params, command.get_help_option(context)):
        if param is not None:
            _tidy(param)
    for sub_name, sub in (getattr(command, "commands", None) or {}).items():
        conventional_help(sub, sub_name)
