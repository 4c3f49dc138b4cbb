"""The command table: each command's verb, options, core call, JSON document and human view.

The one place a command is defined (ADR 0037). `uze.cli` reads it twice: a plain command line
of a `fast` verb is parsed from it without typer (start-up is most of `uze status`), and the
typer app that parses every other line and writes `--help` is built from it. Both then run the
same `uze.cli.execute`, so they print the same bytes. Nothing here prints; the core calls and
views load their modules when called, so reading the table imports none of them.
"""

from __future__ import annotations

from typing import Final

from uze.verbs.authoring import EXPORT, PACK
from uze.verbs.base import Call, Param, Verb
from uze.verbs.catalogs import GROUPS, MARKETPLACE, SEARCH, STORE
from uze.verbs.everyday import CHECK, DOCTOR, INSTALL, LIST, OUTDATED, STATUS, UNINSTALL, UPDATE
from uze.verbs.switching import DISABLE, ENABLE

__all__ = ["GROUPS", "VERBS", "Call", "Param", "Verb", "fast_call"]

VERBS: Final = {verb.path: verb for verb in (
    INSTALL, UNINSTALL, DISABLE, ENABLE, OUTDATED, UPDATE, STATUS, CHECK, LIST, DOCTOR,
    EXPORT, PACK, *MARKETPLACE, SEARCH, *STORE)}
"""Every command by its path, in the order `uze --help` lists them."""


def fast_call(args: list[str]) -> tuple[Verb, Call] | None:
    """The verb and values of a plain command line of a `fast` verb: each option at most once
    (a `texts` option as often as given: a list), as `--name VALUE` or a flag, and its
    argument. None for anything else, so typer decides: a help flag, an unknown option, an
    `=` form, a repeated or empty value, a value that looks like an option, a second or a
    missing argument."""
    verb = VERBS.get(args[0]) if args else None
    if verb is None or not verb.fast:
        return None
    by_flag = {param.flag: param for param in verb.params if param.flag}
    argument = next((param for param in verb.params if not param.flag), None)
    call: Call = {}
    rest = iter(args[1:])
    for token in rest:
        param = by_flag.get(token) if token.startswith("-") else argument
        if param is None or (param.dest in call and param.kind != "texts"):
            return None
        if param.kind == "flag":
            call[param.dest] = True
            continue
        value = next(rest, "") if param.flag else token
        if not value or value.startswith("-") or "\0" in value:
            return None
        call[param.dest] = [*call.get(param.dest, []), value] if param.kind == "texts" \
            else value
    if argument is not None and argument.default is ... and argument.dest not in call:
        return None
    return verb, {param.dest: call.get(param.dest, False if param.kind == "flag"
                                       else param.default) for param in verb.params}
