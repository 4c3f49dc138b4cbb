"""`uze marketplace add|list|remove|update`, `uze search`, and installing `plugin@marketplace`
(ADR 0025).

Registered marketplaces are this user's: `$UZE_HOME/marketplaces/registry.json` names each
one's source and the commit its catalog was read at, and `$UZE_HOME/marketplaces/<name>.json`
keeps the catalog's bytes, so `search` and `install NAME@MARKET` read no network. An entry is
installed from its own source; the lock records the marketplace and that source, so a teammate
reproduces it from the lock even without the marketplace registered (an entry the catalog
shapes, `strict: false` or listing skills, commands or agents, needs the marketplace; its
copy is made by `uze.commands.selection`, adr/0075).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import msgspec

from uze import fs
from uze.commands import declare, skill_index
from uze.commands.selection import narrowed
from uze.errors import UzeError, did_you_mean
from uze.paths import Paths
from uze.policy import load_policy
from uze.sources.catalog import Catalog, Entry, find_catalog, parse_catalog
from uze.sources.spec import Source, parse_source
from uze.state.context import ScopeContext

REGISTRY_SCHEMA: Final = 1


class Registered(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One registered marketplace: its source, the commit read, and where its catalog is."""

    source: str
    commit: str = ""
    catalog: str = ""  # the catalog's path inside the marketplace


class Registry(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Every registered marketplace by name."""

    schema_version: int = REGISTRY_SCHEMA
    marketplaces: dict[str, Registered] = {}


def _folder(paths: Paths) -> Path:
    return paths.uze_home / "marketplaces"


def _github(paths: Paths) -> str:
    return paths.env.get("UZE_GITHUB_URL", "") or "https://github.com"


def load_registry(paths: Paths) -> Registry:
    """The registry ({} when nothing is registered). Raises UzeError when it is damaged."""
    path = _folder(paths) / "registry.json"
    if not path.is_file():
        return Registry()
    try:
        return msgspec.json.decode(path.read_bytes(), type=Registry)
    except msgspec.DecodeError as exc:
        raise UzeError(f"{path}: {exc}", hint="remove it and add the marketplaces again") from None


def _save(paths: Paths, registry: Registry) -> None:
    data = msgspec.to_builtins(registry)
    fs.atomic_write(_folder(paths) / "registry.json",
                    (json.dumps(data, indent=2, sort_keys=True) + "\n").encode())


@contextlib.contextmanager
def _locked(paths: Paths) -> Iterator[Registry]:
    with fs.file_lock(paths.uze_home / "locks" / "marketplaces.lock", paths.lock_timeout):
        yield load_registry(paths)


def _base(paths: Paths, text: str, cwd: Path) -> Source:
    source = parse_source(text, cwd=cwd, github=_github(paths))
    if source.kind == "marketplace":
        raise UzeError(f"{text} names a plugin, not a marketplace",
                       hint="give the marketplace's folder, git URL or owner/repo")
    if source.kind == "folder":
        path = paths.home / text[2:] if text.startswith("~/") else (cwd / text)
        return Source("folder", str(path.resolve()))
    return source


@contextlib.contextmanager
def _read(paths: Paths, base: Source, commit: str = "", *, cache: bool = True
          ) -> Iterator[tuple[Path, str, str, bytes]]:
    """(folder, commit, catalog path, catalog bytes) of a marketplace source (`cache` False:
    nothing written under $UZE_HOME)."""
    if base.kind == "folder":
        rel, raw = find_catalog(Path(base.location))
        yield Path(base.location), "", rel, raw
        return
    from uze.sources.mirrors import fetched

    with fetched(paths, base, commit, cache=cache) as (folder, resolved):
        rel, raw = find_catalog(folder)
        yield folder, resolved, rel, raw


def _catalog(paths: Paths, name: str, found: Registered, raw: bytes) -> Catalog:
    base = parse_source(found.source, cwd=Path("/"), github=_github(paths))
    if base.kind == "git" and found.commit:
        base = base.with_pin(found.commit)
    return parse_catalog(raw, f"marketplace {name} ({found.catalog})", base, _github(paths))


def add(paths: Paths, text: str, name: str | None, cwd: Path) -> tuple[str, Catalog]:
    """Register the marketplace at `text` (under `name`, default the catalog's own name)."""
    base = _base(paths, text, cwd)
    load_policy(paths).check_source(base, cwd, locked=True)  # a catalog is not a package
    with _read(paths, base) as (root, commit, rel, raw):
        found = Registered(base.canonical() if base.kind == "git" else base.location, commit, rel)
        catalog = _catalog(paths, "?", found, raw)
        chosen = name or catalog.name
        if not chosen or not _is_name(chosen):
            raise UzeError(f"invalid marketplace name {chosen!r}",
                           hint="name it: uze marketplace add SOURCE --name my-market")
        index = _index(paths, root, raw)
        with _locked(paths) as registry:
            taken = registry.marketplaces.get(chosen)
            if taken is not None and taken.source != found.source:
                raise UzeError(f"a marketplace named {chosen} is already registered",
                               hint="remove it first, or add this one with --name")
            _keep(paths, chosen, raw, index)
            _save(paths, Registry(marketplaces={**registry.marketplaces, chosen: found}))
    return chosen, _catalog(paths, chosen, found, raw)


def _index(paths: Paths, root: Path, raw: bytes) -> bytes:
    """The skill index (`uze.commands.skill_index`) of the marketplace checked out at `root`."""
    local = parse_catalog(raw, f"marketplace at {root}", skill_index.local_base(root),
                          _github(paths))
    return skill_index.dumps(skill_index.build(root, local))


def _keep(paths: Paths, name: str, raw: bytes, index: bytes) -> None:
    """Cache a marketplace's catalog bytes and its skill index (under the registry's lock)."""
    fs.atomic_write(_folder(paths) / f"{name}.json", raw)
    fs.atomic_write(_folder(paths) / f"{name}.skills.json", index)


def _is_name(text: str) -> bool:
    return re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", text) is not None and len(text) <= 64


def remove(paths: Paths, name: str) -> None:
    """Forget a marketplace (installed plugins stay installed and pinned)."""
    with _locked(paths) as registry:
        if name not in registry.marketplaces:
            raise _unknown(name, registry)
        rest = {k: v for k, v in registry.marketplaces.items() if k != name}
        if rest:
            _save(paths, Registry(marketplaces=rest))
        else:
            fs.remove_file(_folder(paths) / "registry.json")
        fs.remove_file(_folder(paths) / f"{name}.json")
        if (_folder(paths) / f"{name}.skills.json").exists():
            fs.remove_file(_folder(paths) / f"{name}.skills.json")
        fs.remove_dir_if_empty(_folder(paths))


def update(paths: Paths, names: tuple[str, ...]) -> list[tuple[str, str, str]]:
    """Read each marketplace's catalog again; (name, old commit, new commit) per marketplace."""
    registry = load_registry(paths)
    chosen = names or tuple(sorted(registry.marketplaces))
    moved = []
    for name in chosen:
        found = registry.marketplaces.get(name)
        if found is None:
            raise _unknown(name, registry)
        base = parse_source(found.source, cwd=Path("/"), github=_github(paths))
        with _read(paths, base) as (root, commit, rel, raw):
            _catalog(paths, name, msgspec.structs.replace(found, commit=commit, catalog=rel), raw)
            index = _index(paths, root, raw)
            with _locked(paths) as current:
                _keep(paths, name, raw, index)
                updated = msgspec.structs.replace(found, commit=commit, catalog=rel)
                _save(paths, Registry(marketplaces={**current.marketplaces, name: updated}))
        moved.append((name, found.commit, commit))
    return moved


def read_again(paths: Paths, names: set[str], *, save: bool) -> dict[str, Catalog]:
    """The catalog of each registered marketplace in `names`, read again from its source, one
    read each (`outdated` and `update`: a marketplace's new release is seen without `uze
    marketplace update` first). `save`: keep it, as `marketplace update` does; else nothing is
    written anywhere. A name not registered is left out (its pins answer from the lock)."""
    registered = load_registry(paths).marketplaces
    chosen = tuple(sorted(n for n in names if n in registered))
    if save:
        update(paths, chosen)
        return {name: cached for name, _r, cached in catalogs(paths) if name in chosen}
    found = {}
    for name in chosen:
        entry = registered[name]
        base = parse_source(entry.source, cwd=Path("/"), github=_github(paths))
        with _read(paths, base, cache=False) as (_root, commit, rel, raw):
            now = msgspec.structs.replace(entry, commit=commit, catalog=rel)
            found[name] = _catalog(paths, name, now, raw)
    return found


def catalogs(paths: Paths) -> list[tuple[str, Registered, Catalog]]:
    """Every registered marketplace with its cached catalog (no network)."""
    found = []
    for name, entry in sorted(load_registry(paths).marketplaces.items()):
        raw = (_folder(paths) / f"{name}.json").read_bytes()
        found.append((name, entry, _catalog(paths, name, entry, raw)))
    return found


def search(paths: Paths, term: str) -> list[tuple[str, Entry, tuple[str, ...]]]:
    """Entries whose name, description or keywords hold `term` (case-insensitive), or one of
    whose skills does by name or description (those skills named), offline."""
    needle = term.lower()
    found = []
    for market, _r, catalog in catalogs(paths):
        index = _skills(paths, market)
        for e in catalog.entries:
            skills = tuple(s["name"] for s in index.get(e.name, ())
                           if needle in s["name"].lower() or needle in s["description"].lower())
            if skills or needle in e.name.lower() or needle in e.description.lower() \
                    or any(needle in k.lower() for k in e.keywords):
                found.append((market, e, skills))
    return found


def _skills(paths: Paths, market: str) -> skill_index.Index:
    """The cached skill index of `market` ({} before one was built: `marketplace update`)."""
    path = _folder(paths) / f"{market}.skills.json"
    return skill_index.loads(path.read_bytes()) if path.is_file() else {}


def _unknown(name: str, registry: Registry,
             hint: str = "`uze marketplace list` names them") -> UzeError:
    """No marketplace of that name is registered (the closest one suggested)."""
    return UzeError(f"no marketplace named {name} is registered",
                    hint=did_you_mean(name, registry.marketplaces) + hint)


def _entry(paths: Paths, source: Source) -> Entry:
    registry = load_registry(paths)
    found = registry.marketplaces.get(source.marketplace)
    if found is None:
        raise _unknown(source.marketplace, registry, "register it first: uze marketplace add "
                                                     "SOURCE")
    raw = (_folder(paths) / f"{source.marketplace}.json").read_bytes()
    catalog = _catalog(paths, source.marketplace, found, raw)
    entry = catalog.entry(source.location)
    if entry is None:
        close = did_you_mean(source.location, [e.name for e in catalog.entries])
        raise UzeError(f"marketplace {source.marketplace} lists no plugin {source.location}",
                       hint=f"{close}uze search {source.location}")
    if entry.source is None:
        raise UzeError(f"{source.location}@{source.marketplace} is {entry.why}",
                       hint="install it with the harness's own plugin manager")
    return entry


def registered_source(paths: Paths, name: str) -> Source | None:
    """The source marketplace `name` was added from, None when it is not registered."""
    found = load_registry(paths).marketplaces.get(name)
    if found is None:
        return None
    text = found.source
    return parse_source(text, cwd=Path("/")) if text.startswith("git+") else Source("folder", text)


def entry_source(paths: Paths, source: Source) -> Source:
    """The own source of marketplace plugin `source`, as the cached catalog lists it."""
    found = _entry(paths, source).source
    assert found is not None  # _entry refuses an entry without one
    return found


@contextlib.contextmanager
def entry_checkout(paths: Paths, source: Source, ctx: ScopeContext, cwd: Path, *,
                   commit: str = "", cache: bool = True, pinned: Source | None = None,
                   ) -> Iterator[tuple[Path, declare.Pin]]:
    """The folder of marketplace entry `source` (`plugin@market`) and its pin; `pinned` is the
    entry's source as a lock recorded it. A lock is followed only inside what the user chose
    (ADR 0057): while the marketplace is registered, the pin must be the entry it lists; when
    it is not, the pin may name a git repository or a folder inside the project."""
    registered = source.marketplace in load_registry(paths).marketplaces
    entry = None if pinned is not None and not registered else _entry(paths, source)
    if pinned is not None and entry is not None:
        _check_pinned(entry, pinned, source, ctx, cwd)
    own = pinned if pinned is not None else entry.source if entry is not None else None
    assert own is not None
    with contextlib.ExitStack() as stack:
        if own.kind == "folder":
            folder, pin = declare.folder_pin(own, ctx, cwd)
            if entry is None:
                declare.check_inside(ctx, folder, f"{source.location}@{source.marketplace}: "
                                     f"uze.lock's source {own.location}")
        else:
            from uze.sources.mirrors import fetched

            folder, resolved = stack.enter_context(fetched(paths, own, commit, cache=cache))
            pin = declare.git_pin(own, resolved)
        folder = stack.enter_context(narrowed(folder, entry, source.skills))
        _check_name(folder, source)
        yield folder, msgspec.structs.replace(
            pin, declared=source.canonical(), marketplace=source.marketplace,
            skills=source.skills)


def _shown(source: Source) -> str:
    if source.kind == "folder":
        return source.location
    sub = f"#subdirectory={source.subdirectory}" if source.subdirectory else ""
    return f"git+{source.location}{sub}"


def _check_pinned(entry: Entry, pinned: Source, source: Source, ctx: ScopeContext, cwd: Path
                  ) -> None:
    """Refuse a lock pin that is not the registered catalog's entry (source, subdirectory)."""
    listed = entry.source
    assert listed is not None  # _entry refuses an entry without one
    if listed.kind == pinned.kind == "folder":
        same = declare.folder_pin(listed, ctx, cwd)[0] == declare.folder_pin(pinned, ctx, cwd)[0]
    else:
        same = (listed.kind, listed.location, listed.subdirectory) == \
            (pinned.kind, pinned.location, pinned.subdirectory)
    if not same:
        name, market = source.location, source.marketplace
        raise UzeError(f"{name}@{market}: uze.lock pins {_shown(pinned)}, but marketplace "
                       f"{market} lists {_shown(listed)}; nothing was written",
                       hint=f"if the marketplace moved {name}, run `uze update {name}`; "
                            "otherwise restore uze.lock from version control")


def _check_name(folder: Path, source: Source) -> None:
    """A marketplace entry installs the package of its own name (the name uze.toml keys)."""
    from uze.package import read_package

    found = read_package(folder).name
    if found != source.location:
        raise UzeError(f"marketplace {source.marketplace} lists {source.location}, but its "
                       f"source holds package {found}", hint="ask the marketplace to fix the entry")


def listing_json(found: list[tuple[str, Registered, Catalog]]) -> dict[str, Any]:
    """The `marketplace list --json` document."""
    return {"schema": 1, "marketplaces": [
        {"name": name, "source": reg.source, "commit": reg.commit, "catalog": reg.catalog,
         "plugins": [e.name for e in catalog.entries]} for name, reg, catalog in found]}
