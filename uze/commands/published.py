"""Repositories as people publish them (issue 31 item 4, adr/0075): a source whose root is a
marketplace (Claude Code's or Codex's catalog, and no package manifest or skill of its own, as
anthropics/skills) installs the plugin it is asked for (`--plugin NAME`, `#plugin=NAME`), the
only one it lists, or nothing: uze lists the plugins and never makes a package of the
repository itself. A plugin's folder inside the repository is read from the same checkout;
one elsewhere (`github`, `url`, `git-subdir`) is fetched at the ref or sha the catalog gives.
The pin is the repository's (its commit pins the catalog), with the plugin and the chosen
skills beside it, so `uze install` reproduces it from uze.toml and uze.lock alone.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import msgspec

from uze.commands import declare
from uze.commands.selection import narrowed
from uze.errors import UzeError, did_you_mean
from uze.package.layout import (
    CLAUDE_MANIFEST,
    CODEX_MANIFEST,
    GEMINI_MANIFEST,
    PORTABLE_MANIFEST,
    SKILL_FILE,
)
from uze.paths import Paths
from uze.policy import load_policy
from uze.sources.catalog import CATALOGS, Catalog, Entry, find_catalog, parse_catalog
from uze.sources.spec import Source, selection

_OWN: Final = (PORTABLE_MANIFEST, CLAUDE_MANIFEST, CODEX_MANIFEST, GEMINI_MANIFEST, SKILL_FILE)


def _is_file(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


def is_marketplace_only(folder: Path) -> bool:
    """Whether `folder` holds a catalog and no package manifest or root skill of its own."""
    return any(_is_file(folder / rel) for rel in CATALOGS) and \
        not any(_is_file(folder / rel) for rel in _OWN)


def _catalog(paths: Paths, folder: Path, source: Source) -> Catalog:
    rel, raw = find_catalog(folder)
    github = paths.env.get("UZE_GITHUB_URL", "") or "https://github.com"
    return parse_catalog(raw, f"{source.canonical()} ({rel})", Source("folder", str(folder)),
                         github)


def plugin_names(paths: Paths, folder: Path, source: Source) -> list[str]:
    """The plugins the catalog at `folder` (the checkout of `source`) lists that uze can
    install (a source of a kind uze fetches)."""
    return [e.name for e in _catalog(paths, folder, source).entries if e.source is not None]


def _entry(catalog: Catalog, plugin: str, source: Source) -> Entry:
    """The entry `plugin` of `catalog`; UzeError naming the plugins it lists otherwise."""
    entry = catalog.entry(plugin)
    names = [e.name for e in catalog.entries]
    if entry is None:
        raise UzeError(f"{_shown(source)}: its marketplace lists no plugin {plugin} (it lists "
                       f"{', '.join(names) or 'none'})",
                       hint=did_you_mean(plugin, names) + "choose one with --plugin NAME")
    if entry.source is None:
        raise UzeError(f"{plugin} in {_shown(source)} is {entry.why}",
                       hint="install it with the harness's own plugin manager")
    return entry


def _shown(source: Source) -> str:
    return msgspec.structs.replace(source, plugin="", skills=()).canonical()


def _only_plugin(catalog: Catalog, source: Source) -> str:
    """The plugin to install when none is asked for: the catalog's only one, else UzeError
    listing them (nothing installed; the repository itself is not a package)."""
    names = [e.name for e in catalog.entries]
    if len(names) == 1:
        return names[0]
    listed = ", ".join(names) or "no plugins"
    first = names[0] if names else "NAME"
    raise UzeError(f"{_shown(source)} is a marketplace of {len(names)} plugins ({listed}), not "
                   "a package; nothing was installed",
                   hint=f"choose one: uze install {_shown(source)} --plugin {first}")


@contextlib.contextmanager
def _plugin_folder(paths: Paths, folder: Path, entry: Entry, commit: str, *, cache: bool,
                   cwd: Path) -> Iterator[Path]:
    """The folder of `entry`: inside `folder` (the marketplace's checkout), or its own source
    fetched (the organisation policy asked first)."""
    own = entry.source
    assert own is not None  # _entry refuses an entry without one
    if own.kind == "folder":
        path = Path(own.location)
        if not path.resolve().is_relative_to(folder.resolve()):
            raise UzeError(f"{entry.name}: its folder {own.location} leaves the marketplace",
                           hint="ask the marketplace to fix the entry")
        yield path
        return
    from uze.sources.mirrors import fetched

    load_policy(paths).check_source(own, cwd, locked=bool(commit))
    with fetched(paths, own, cache=cache) as (found, _resolved):
        yield found


@contextlib.contextmanager
def chosen(paths: Paths, source: Source, folder: Path, pin: declare.Pin, *, commit: str = "",
           cache: bool = True, cwd: Path) -> Iterator[tuple[Path, declare.Pin]]:
    """`folder`, the checkout of the folder or git `source`, as `source` chooses: its plugin
    (or the only one of a marketplace at its root) and its skills; `pin` gets the plugin and
    the skills. `folder` and `pin` unchanged when nothing is chosen. Raises UzeError for a
    marketplace of several plugins and no choice, a plugin it does not list, a skill the
    package does not have."""
    plugin = source.plugin
    if not plugin and not source.skills and not is_marketplace_only(folder):
        yield folder, pin
        return
    with contextlib.ExitStack() as stack:
        entry = None
        if plugin or is_marketplace_only(folder):
            catalog = _catalog(paths, folder, source)
            plugin = plugin or _only_plugin(catalog, source)
            entry = _entry(catalog, plugin, source)
            folder = stack.enter_context(_plugin_folder(paths, folder, entry, commit,
                                                        cache=cache, cwd=cwd))
        folder = stack.enter_context(narrowed(folder, entry, source.skills))
        if entry is not None:
            _check_name(folder, entry.name, source)
        picked = msgspec.structs.replace(source, plugin=plugin)
        declared = picked.canonical() if source.kind == "git" else \
            pin.source + selection(plugin, source.skills)
        yield folder, msgspec.structs.replace(pin, declared=declared, plugin=plugin,
                                              skills=source.skills)


def _check_name(folder: Path, name: str, source: Source) -> None:
    """A marketplace's plugin installs the package of its own name (the name uze.toml keys)."""
    from uze.package import read_package

    found = read_package(folder).name
    if found != name:
        raise UzeError(f"{_shown(source)}: its marketplace lists {name}, but that plugin's "
                       f"folder holds package {found}", hint="ask the marketplace to fix the entry")
