"""The catalog and store commands of the table: `marketplace ...`, `search`, `store ...`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from uze.errors import UzeError
from uze.verbs.base import JSON, Call, Param, Verb, paths

# --------------------------------------------------------------------------- marketplaces

GROUPS: Final = {
    "marketplace": "Register plugin catalogs (Claude Code's and Codex's marketplaces).",
    "store": "Inspect and clean the content-addressed store.",
}
"""The command groups (`uze marketplace ...`, `uze store ...`) and their help."""


def _market_add(call: Call) -> Any:
    from uze.commands import marketplace  # start-up: one command's module

    return marketplace.add(paths(), call["source"], call["name"], Path.cwd())


def _market_list(_call: Call) -> Any:
    from uze.commands import marketplace  # start-up: one command's module

    return marketplace.catalogs(paths())


def _market_list_json(found: Any) -> dict[str, Any]:
    from uze.commands import marketplace  # start-up: one command's module

    return marketplace.listing_json(found)


def _market_list_view(found: Any, _call: Call) -> list[Any]:
    lines = [f"{name}: {reg.source}{f' at {reg.commit[:12]}' if reg.commit else ''} "
             f"({len(catalog.entries)} plugins)" for name, reg, catalog in found]
    return lines or ["No marketplaces registered."]


def _market_remove(call: Call) -> Any:
    from uze.commands import marketplace  # start-up: one command's module

    marketplace.remove(paths(), call["name"])
    return call["name"]


def _market_update(call: Call) -> Any:
    from uze.commands import marketplace  # start-up: one command's module

    return marketplace.update(paths(), tuple(call["names"] or ()))


def _moved(old: str, new: str) -> str:
    return "unchanged" if old == new else f"{old[:12] or '-'} -> {new[:12] or '-'}"


def _search(call: Call) -> Any:
    from uze.commands import marketplace  # start-up: one command's module

    return marketplace.search(paths(), call["term"])


def _search_view(found: Any, call: Call) -> list[Any]:
    lines = [f"{e.name}@{market}  {e.version or '-'}  {e.description}"
             + (f"  (skills: {', '.join(skills)})" if skills else "")
             for market, e, skills in found]
    return lines or [f"No plugin matches {call['term']!r}."]


MARKETPLACE = (
    Verb("marketplace add", "Register a marketplace and cache its catalog.",
         (Param("source", "argument", "Folder, git URL or owner/repo of the marketplace.",
                default=...),
          Param("name", "text", "Register it under this name.", "--name"), JSON),
         _market_add,
         lambda found: {"schema": 1, "name": found[0],
                        "plugins": [e.name for e in found[1].entries]},
         lambda found, _call: [f"Added marketplace {found[0]} ({len(found[1].entries)} plugins)"]),
    Verb("marketplace list", "List the registered marketplaces.", (JSON,),
         _market_list, _market_list_json, _market_list_view),
    Verb("marketplace remove", "Forget a marketplace (installed plugins stay).",
         (Param("name", "argument", "Marketplace name.", default=...),),
         _market_remove, lambda name: {}, lambda name, _call: [f"Removed marketplace {name}"]),
    Verb("marketplace update", "Read each marketplace's catalog again.",
         (Param("names", "arguments", "Marketplace names (default: all)."),),
         _market_update, lambda moved: {},
         lambda moved, _call: [f"{name}: {_moved(old, new)}" for name, old, new in moved]),
)
SEARCH = Verb(
    "search", "Search the registered marketplaces (offline, from their cached catalogs).",
    (Param("term", "argument", "Text to find in plugin names, descriptions, keywords, and in "
                               "the names and descriptions of their skills.", default=...),
     JSON),
    _search,
    lambda found: {"schema": 1, "results": [
        {"name": e.name, "marketplace": market, "description": e.description,
         "version": e.version, "installable": e.source is not None, "skills": list(skills)}
        for market, e, skills in found]},
    _search_view)


# --------------------------------------------------------------------------- store


def _verify(_call: Call) -> Any:
    from uze.commands.store import verify  # start-up: one command's module

    return verify(paths())


def _verify_json(report: Any) -> dict[str, Any]:
    return {"schema": 1, "objects": report.objects, "trees": report.trees,
            "corrupt": list(report.corrupt), "missing": list(report.missing),
            "stray": list(report.stray), "ok": report.is_clean}


def _verify_view(report: Any, _call: Call) -> list[Any]:
    return [f"{report.objects} objects, {report.trees} trees checked",
            *(f"{key}: {item}" for key, items in (("corrupt", report.corrupt),
                                                  ("missing", report.missing),
                                                  ("stray", report.stray)) for item in items)]


def _verified(report: Any) -> int:
    if not report.is_clean:
        raise UzeError("the store is damaged",
                       hint="reinstall the affected packages, then run `uze store gc`")
    return 0


def _gc(_call: Call) -> Any:
    from uze.commands.store import gc  # start-up: one command's module

    return gc(paths())


def _gc_json(result: Any) -> dict[str, Any]:
    r = result.report
    return {"schema": 1, "removed_objects": r.removed_objects, "removed_trees": r.removed_trees,
            "freed_bytes": r.freed_bytes, "kept_objects": r.kept_objects,
            "live_trees": result.live_trees, "projects": list(result.projects),
            "skipped": list(result.skipped)}


def _gc_view(result: Any, _call: Call) -> list[Any]:
    r = result.report
    return [f"removed {r.removed_objects} objects and {r.removed_trees} trees "
            f"({r.freed_bytes} bytes); kept {r.kept_objects} objects"]


STORE = (
    Verb("store verify", "Re-hash every object and tree; exit 1 if anything is corrupt or missing.",
         (JSON,), _verify, _verify_json, _verify_view, finish=_verified),
    Verb("store gc", "Delete store objects that no receipt references.", (JSON,),
         _gc, _gc_json, _gc_view),
)
