"""The everyday commands of the table: install, uninstall, outdated, update, status, list,
check and doctor."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from uze.errors import UsageError
from uze.inert import inert
from uze.location import checked_scope
from uze.ui.blocks import Grid
from uze.ui.documents import check_json, install_json, uninstall_json
from uze.verbs.base import (
    DRY_RUN,
    FORCE,
    JSON,
    PROJECT,
    QUIET,
    SCOPE,
    VERBOSE,
    Call,
    Param,
    Verb,
    lines,
    paths,
    project,
    scope,
    to_json,
)

# --------------------------------------------------------------------------- install


def _install(call: Call) -> Any:
    if call["from_file"] and (call["source"] is not None or call["frozen"]):
        raise UsageError("--from FILE declares what FILE lists: give no SOURCE and no --frozen",
                         hint="uze install --from skills-lock.json")
    if call["frozen"] and call["source"] is not None:
        raise UsageError("--frozen installs uze.lock: give no SOURCE",
                         hint="run `uze install --frozen` alone")
    if call["source"] is None and (call["plugin"] or call["skill"] or call["all_plugins"]):
        raise UsageError("--plugin, --skill and --all-plugins choose from a SOURCE: give one",
                         hint="uze install owner/repo --plugin NAME [--skill NAME ...]")
    if call["all_plugins"] and (call["plugin"] or call["skill"]):
        raise UsageError("--all-plugins installs every plugin whole: no --plugin or --skill",
                         hint="uze install owner/repo --all-plugins")
    from uze.commands.acquire import Options  # start-up: the install path loads on use

    options = Options(scope=scope(call), project=project(call), harness=call["harness"],
                      dry_run=call["dry_run"], force=call["force"], trust=call["trust"],
                      replace=call["replace"], accepted=tuple(call.get("accepted", ())),
                      settings=_settings(call["set"] or (), call["source"]),
                      ask=None if call["dry_run"] or call.get("ask") is None
                      else tuple(call["ask"]))
    if call["from_file"]:  # a peer's manifest: declare its entries, then converge
        from uze.commands.imports import install_from  # start-up: loads on use

        return install_from(paths(), options, Path.cwd(), call["from_file"])
    if call["source"] is None:  # no SOURCE: converge to uze.toml + uze.lock
        from uze.commands.converge import converge  # start-up: the install path loads on use

        return converge(paths(), options, Path.cwd(), frozen=call["frozen"])
    if call["all_plugins"]:
        from uze.commands.every_plugin import install_every_plugin  # start-up: loads on use

        return install_every_plugin(paths(), call["source"], options, Path.cwd(),
                                    ref=call["ref"], subdirectory=call["subdirectory"])
    from uze.commands.acquire import install_source  # start-up: the install path loads on use

    return install_source(paths(), call["source"], options, Path.cwd(), ref=call["ref"],
                          subdirectory=call["subdirectory"], plugin=call["plugin"],
                          skills=tuple(call["skill"] or ()))


def _settings(given: list[str] | tuple[str, ...], source: str | None
              ) -> tuple[tuple[str, str], ...]:
    """Each `--set KEY=VALUE` as (KEY, VALUE); UsageError for one without `=` or a key, a key
    given twice, or `--set` without a SOURCE (adr/0078)."""
    if given and source is None:
        raise UsageError("--set gives a setting of the package at SOURCE: give one",
                         hint="uze install SOURCE --set KEY=VALUE")
    found: dict[str, str] = {}
    for item in given:
        key, equals, value = item.partition("=")
        if not equals or not key or key in found:
            why = "is given twice" if key in found else "is not KEY=VALUE"
            raise UsageError(f"--set {inert(item)!r} {why}",
                             hint="one --set KEY=VALUE per setting (`uze check SOURCE` lists "
                                  "them)")
        if len(value) > 4096 or not value.isprintable():  # uze.lock keeps it (adr/0103)
            raise UsageError(f"--set {inert(key)!r}: the value is not one line of printable "
                             "text", hint="give a value without control characters, at most "
                                          "4096 characters")
        found[key] = value
    return tuple(found.items())


def _install_json(result: Any) -> dict[str, Any]:
    if hasattr(result, "untranslated"):  # --from
        from uze.commands.imports import import_json  # start-up: JSON of one command

        return import_json(result)
    if not hasattr(result, "result"):  # a converge
        from uze.commands.converge import converge_json  # start-up: JSON of one command

        return converge_json(result)
    return install_json(result.result)


def _install_view(result: Any, call: Call) -> list[Any]:
    # --dry-run prints the whole plan (DESIGN section 2): every projection, route and target
    verbose = call["verbose"] or call["dry_run"]
    if hasattr(result, "untranslated"):  # --from
        from uze.commands.imports import import_lines  # start-up: one command's view
        from uze.ui.many import converge_view  # start-up: one command's view

        done = [] if result.converged is None else converge_view(result.converged,
                                                                   verbose=verbose)
        return [*import_lines(result), *done]
    if not hasattr(result, "result"):  # a converge
        from uze.ui.many import converge_view  # start-up: one command's view

        return converge_view(result, verbose=verbose)
    from uze.ui.render import install_view  # start-up: a human view only

    return install_view(result.result, verbose=verbose)


INSTALL = Verb(
    "install", "Install a package (or, with no SOURCE, everything uze.toml and uze.lock say).",
    (Param("source", "argument", "Folder, git URL, owner/repo[@ref] or plugin@marketplace, "
                                 "any of them ending in #plugin=NAME&skill=NAME (none: install "
                                 "uze.toml + uze.lock)."),
     PROJECT, SCOPE,
     Param("harness", "text", "H[,H...] or all (default: detected); an id, or its binary's "
                              "name (claude, gemini).", "--harness"),
     Param("ref", "text", "Branch, tag or commit of a git source.", "--ref", ""),
     Param("subdirectory", "text", "The package's folder inside a git source.",
           "--subdirectory", ""),
     Param("plugin", "text", "The plugin to install from the marketplace at SOURCE's root.",
           "--plugin", ""),
     Param("skill", "texts", "Install only this skill of the package (repeatable).", "--skill",
           ()),
     Param("all_plugins", "flag", "Install every plugin of the marketplace at SOURCE's root.",
           "--all-plugins"),
     Param("from_file", "text", "Declare the entries of a peer's manifest (skills-lock.json, "
                                "apm.yml, Claude Code settings) in uze.toml, then install them "
                                "all.",
           "--from", ""),
     Param("frozen", "flag", "Install exactly uze.lock; never resolve or write it.", "--frozen"),
     Param("replace", "flag", "Replace a package of this name installed from another source.",
           "--replace"),
     Param("set", "texts", "KEY=VALUE: a value of one of the package's settings (repeatable; "
                           "kept in uze.lock; a sensitive one is read from its variable, never "
                           "given).", "--set",
           ()),
     DRY_RUN, JSON, FORCE,
     Param("trust", "flag", "Accept the commands the package runs.", "--trust"), VERBOSE, QUIET),
    _install, _install_json, _install_view, fast=True, asks=True, writes=True,
    progress=lambda call: " ".join(filter(None, ("install", call["source"]))))


# --------------------------------------------------------------------------- uninstall


def _uninstall(call: Call) -> Any:
    from uze.commands.uninstall import uninstall  # start-up: one command's module

    return uninstall(paths(), call["name"], scope=scope(call), project=project(call),
                     dry_run=call["dry_run"], force=call["force"], cwd=Path.cwd())


def _uninstall_view(result: Any, _call: Call) -> list[Any]:
    from uze.ui.render import uninstall_view  # start-up: a human view only

    return uninstall_view(result)


UNINSTALL = Verb(
    "uninstall", "Remove what uze owns; keep and report every artifact the user edited.",
    (Param("name", "argument", "Package name.", default=...), PROJECT, SCOPE, DRY_RUN, JSON,
     FORCE),
    _uninstall, uninstall_json, _uninstall_view, fast=True, writes=True,
    progress=lambda call: f"uninstall {call['name']}")


# --------------------------------------------------------------------------- outdated, update

NAMES: Final = Param("names", "arguments", "Package names (default: all pinned).")


def _outdated(call: Call) -> Any:
    from uze.commands.acquire import Options  # start-up: one command's module
    from uze.commands.update import outdated  # start-up: one command's module

    return outdated(paths(), tuple(call["names"] or ()),
                    Options(scope=scope(call), project=project(call)), Path.cwd())


def _update(call: Call) -> Any:
    from uze.commands.acquire import Options  # start-up: one command's module
    from uze.commands.update import update  # start-up: one command's module

    options = Options(scope=scope(call), project=project(call), dry_run=call["dry_run"],
                      force=call["force"], trust=call["trust"],
                      accepted=tuple(call.get("accepted", ())))
    return update(paths(), tuple(call["names"] or ()), options, Path.cwd())


def _update_view(result: Any, call: Call) -> list[Any]:
    from uze.ui.many import update_view  # start-up: one command's view

    return update_view(result, verbose=call["verbose"])


OUTDATED = Verb(
    "outdated", "Show each pinned package against what its ref points at now; writes nothing.",
    (NAMES, PROJECT, SCOPE, JSON), _outdated, to_json, lines)
UPDATE = Verb(
    "update", "Move pins to what each ref points at now and install there (shows old -> new).",
    (NAMES, PROJECT, SCOPE, DRY_RUN, JSON, FORCE,
     Param("trust", "flag", "Accept the commands the new versions run.", "--trust"), VERBOSE,
     QUIET),
    _update, to_json, _update_view, asks=True, writes=True)


# --------------------------------------------------------------------------- status, list


def _status(call: Call) -> Any:
    from uze.commands.status import status  # start-up: one command's module

    where = checked_scope(call["scope"], ("project", "user", "all"))
    return status(paths(), call["name"], scope=where, project=project(call), cwd=Path.cwd(),
                  check=call["check"])


def _status_view(result: Any, call: Call) -> list[Any]:
    from uze.ui.render import status_view  # start-up: a human view only

    return status_view(result, full=call["name"] is not None or call["verbose"])


STATUS = Verb(
    "status", "Show every package at a glance, or with NAME each projection's route and whether "
              "it is\nstill as uze wrote it.",
    (Param("name", "argument", "Package name (default: all)."), PROJECT,
     Param("scope", "text", "project, user or all.", "--scope", "all"), JSON,
     Param("check", "flag", "Exit 1 on any difference from uze.toml + uze.lock, each printed "
                            "with its fix (for CI).", "--check"),
     Param("verbose", "flag", "Every projection of every package (as `uze status NAME`).",
           "--verbose")),
    _status, to_json, _status_view, fast=True,
    finish=lambda result: 1 if result.gate and result.differences else 0)


def _list(call: Call) -> Any:
    from uze.commands.listing import list_installed  # start-up: one command's module

    return list_installed(paths(), project=project(call), cwd=Path.cwd())


def _list_json(result: Any) -> dict[str, Any]:
    from uze.commands.listing import listing_json  # start-up: one command's module

    return listing_json(*result)


def _list_view(result: Any, _call: Call) -> list[Any]:
    from uze.ui.render import list_view  # start-up: a human view only

    return list_view(result[1])


LIST = Verb("list", "List installed packages (project and user scope).", (PROJECT, JSON),
            _list, _list_json, _list_view, fast=True)


# --------------------------------------------------------------------------- check, doctor


def _check(call: Call) -> Any:
    from uze.commands.check import check  # start-up: one command's module

    return check(paths(), Path(call["source"]), harness=call["harness"], cwd=Path.cwd(),
                 strict=call["strict"])


def _check_view(result: Any, call: Call) -> list[Any]:
    from uze.ui.render import check_view  # start-up: a human view only

    return check_view(result, verbose=call["verbose"])


CHECK = Verb(
    "check", "Validate a package and print the route each resource would take; writes nothing.",
    (Param("source", "path-argument", "Package folder.", default=...),
     Param("harness", "text", "H[,H...] or all (default: all).", "--harness"), JSON,
     Param("strict", "flag", "Refuse on warnings too (for authors and CI).", "--strict"),
     VERBOSE, QUIET),
    _check, check_json, _check_view, fast=True,
    finish=lambda result: 1 if result.plan.unmet_requirements() else 0)


def _doctor(call: Call) -> Any:
    from uze.commands.doctor import doctor  # start-up: one command's module

    return doctor(paths(), project=project(call), cwd=Path.cwd(), probe=call["probe"])


def _doctor_view(result: Any, _call: Call) -> list[Any]:
    from uze.commands.doctor import explain, probe_lines  # start-up: one command's module
    from uze.ui.summary import group_lines  # start-up: one command's view

    table = Grid("harness", "installed", "version", "discovery", "behavior", "status",
                 "skill roots")
    for h in result.harnesses:
        table.add_row(h.id, "yes" if h.installed else "no", h.version or "-", h.discovery,
                      h.behavior, h.status, "\n".join(h.skill_roots) or "-")
    return [table, *group_lines(inert(line) for h in result.harnesses
                                for line in explain(h) + probe_lines(h))]


DOCTOR = Verb(
    "doctor", "Show each harness: installed, version, what evidence proves, skill roots and "
              "collisions.",
    (PROJECT, JSON, Param("probe", "flag", "Run each installed harness's own listings against "
                                           "this project.", "--probe")),
    _doctor, to_json, _doctor_view, fast=True)
