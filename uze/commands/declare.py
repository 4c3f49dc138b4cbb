"""Keeping a scope's `uze.toml` and `uze.lock` in step with what is installed (ADR 0024).

Install declares and pins a package inside its own transaction (`record`), uninstall forgets
it inside its own (`forget`), so the pair never disagrees with the receipts after a crash.
Project scope: `<project>/uze.toml` and `uze.lock`; user scope: the same pair under
`$UZE_HOME`. A file uze created is removed once it declares nothing (install + uninstall leaves
the project byte-identical); a file the user wrote is kept.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import msgspec

from uze.errors import UzeError
from uze.sources import merge
from uze.sources.lockfile import LockedPackage, dump_lock, read_lock
from uze.sources.lockfile import keep as keep_lock
from uze.sources.manifest import read_manifest, render_manifest, updated_manifest
from uze.sources.markers import Sides, has_markers
from uze.sources.spec import Source, selection
from uze.state.context import Created, ScopeContext

if TYPE_CHECKING:
    from uze.state.receipts import Receipt
    from uze.transaction import Transaction

T = TypeVar("T")
MANIFEST = "uze.toml"
LOCK = "uze.lock"


class Pin(msgspec.Struct, frozen=True):
    """What one install resolved: the source as declared, and where its bytes came from."""

    declared: str  # the canonical source string uze.toml holds
    source: str  # the lock's `source`: `git+<url>` or the folder as declared
    ref: str = ""
    subdirectory: str = ""
    commit: str = ""
    marketplace: str = ""
    reproducible: bool = True
    plugin: str = ""  # the plugin of the marketplace at the source's root (adr/0075)
    skills: tuple[str, ...] = ()  # only these skills (adr/0076)


def scope_files(ctx: ScopeContext) -> tuple[Path, Path]:
    """(uze.toml, uze.lock) of this scope."""
    root = ctx.location.project if ctx.scope == "project" else ctx.paths.uze_home
    return root / MANIFEST, root / LOCK


def _where(ctx: ScopeContext, path: Path) -> str:
    return ctx.location.display(path)


def _unlinked_files(ctx: ScopeContext) -> tuple[Path, Path]:
    """`scope_files`, read and written only as plain files: raises LinkRefused when either, or
    a folder above it, is a link in the project (a link to a file in HOME is never read or
    written through)."""
    files = scope_files(ctx)
    for path in files:
        ctx.roots.check_links(path, itself=True)
    return files


def read_pair(ctx: ScopeContext) -> tuple[dict[str, str], dict[str, LockedPackage]]:
    """The scope's declarations (name -> source) and pins (name -> LockedPackage), validated."""
    manifest, lock = _unlinked_files(ctx)
    return read_manifest(manifest, _where(ctx, manifest)), read_lock(lock, _where(ctx, lock))


class Merged(msgspec.Struct, frozen=True):
    """A file whose merge conflict `read_merged` resolved: its path, clean bytes, and what was
    taken from one side of the merge."""

    path: Path
    data: bytes
    taken: list[str]


def _resolved(ctx: ScopeContext, path: Path, read: Callable[[Path, str], dict[str, T]],
              resolve: Callable[[bytes, str, Sides | None], merge.Resolved[T]],
              clean: list[Merged]) -> dict[str, T]:
    try:
        raw = path.read_bytes()
    except OSError:  # absent, a folder, unreadable: the reader says which
        return read(path, _where(ctx, path))
    if not has_markers(raw):
        return read(path, _where(ctx, path))
    from uze.sources.stages import index_sides

    found = resolve(raw, _where(ctx, path), index_sides(ctx.paths, path))
    clean.append(Merged(path, found.clean, found.taken))
    return found.entries


def read_merged(ctx: ScopeContext) -> tuple[dict[str, str], dict[str, LockedPackage],
                                            list[Merged]]:
    """`read_pair`, with a merge's conflict markers in either file resolved package by package
    (ADR 0063), and the clean bytes to write for each file that had them. Raises UzeError, before
    anything is written, when both sides changed one package."""
    manifest, lock = _unlinked_files(ctx)
    clean: list[Merged] = []
    declared = _resolved(ctx, manifest, read_manifest, merge.resolve_manifest, clean)
    pins = _resolved(ctx, lock, read_lock, merge.resolve_lock, clean)
    return declared, pins, clean


def folder_pin(source: Source, ctx: ScopeContext, cwd: Path) -> tuple[Path, Pin]:
    """The folder a folder source names, and its pin: relative to the project in project scope
    (`reproducible` only inside it; a folder elsewhere in HOME as `~/...`, so the project's
    files never name this user's home), absolute in user scope."""
    text = source.location
    path = ctx.paths.home / text[2:] if text.startswith("~/") else cwd / text
    path = Path(os.path.normpath(path.absolute()))
    if ctx.scope == "user":
        chosen = selection(source.plugin, source.skills)
        return path, Pin(path.as_posix() + chosen, path.as_posix(), plugin=source.plugin,
                         skills=source.skills)
    inside = path.is_relative_to(ctx.location.project)
    rel = Path(os.path.relpath(path, ctx.location.project)).as_posix()
    declared = "./" + rel if inside else rel
    if not inside and path.is_relative_to(ctx.paths.home):
        declared = "~/" + path.relative_to(ctx.paths.home).as_posix()
    declared = "." if declared == "./." else declared
    chosen = selection(source.plugin, source.skills)
    return path, Pin(declared + chosen, declared, reproducible=inside, plugin=source.plugin,
                     skills=source.skills)


def check_inside(ctx: ScopeContext, folder: Path, named: str) -> None:
    """Refuse, in project scope, a folder that uze.toml or uze.lock names (`named` says how)
    outside the project, through a link too: the next commit would publish what uze copied
    from it. Such a folder is installed only when typed on the command line (ADR 0057)."""
    if ctx.scope != "project" or folder.resolve().is_relative_to(ctx.location.project.resolve()):
        return
    raise UzeError(f"{named} is a folder outside the project; uze.toml and uze.lock may name "
                   "only folders inside it", hint="to install a folder of your own from "
                   "there, type it: uze install PATH; otherwise take it out of uze.toml")


def git_pin(source: Source, commit: str) -> Pin:
    """The pin of a git source at `commit`."""
    return Pin(source.canonical(), "git+" + source.location, source.ref, source.subdirectory,
               commit, plugin=source.plugin, skills=source.skills)


def locked(receipt: Receipt, pin: Pin) -> LockedPackage:
    """The lock entry for an installed receipt from `pin`."""
    return LockedPackage(
        name=receipt.name, version=receipt.version, source=pin.source, ref=pin.ref,
        subdirectory=pin.subdirectory, commit=pin.commit, tree=receipt.tree,
        marketplace=pin.marketplace, plugin=pin.plugin, skills=list(pin.skills),
        harnesses=sorted(receipt.harnesses), reproducible=pin.reproducible,
        disabled=sorted(o.locked() for o in receipt.disabled),
        settings=dict(receipt.settings),
    )


def source_of(pin: LockedPackage) -> Source:
    """The source a pin was resolved from (its ref, not its commit; a marketplace plugin's
    own source), with the plugin and skills it chose."""
    skills = tuple(pin.skills)
    if pin.source.startswith("git+"):
        return Source("git", pin.source[4:], pin.ref, pin.subdirectory, plugin=pin.plugin,
                      skills=skills)
    return Source("folder", pin.source, plugin=pin.plugin, skills=skills)


def _version_key(version: str) -> tuple[int, ...] | None:
    parts = version.split("-")[0].split("+")[0].split(".")
    return tuple(int(p) for p in parts) if all(p.isdigit() for p in parts) else None


def _is_folder(pin: LockedPackage) -> bool:
    return not pin.source.startswith("git+") and not pin.marketplace


def moved_origin(old: LockedPackage, new: LockedPackage) -> bool:
    """Whether `new` comes from another source than `old` (folder to folder is not: a local
    package being developed moves between folders)."""
    if _is_folder(old) and _is_folder(new):
        return False
    return (old.source, old.subdirectory, old.marketplace, old.plugin) != \
        (new.source, new.subdirectory, new.marketplace, new.plugin)


def provenance(old: LockedPackage | None, new: LockedPackage, replace: bool) -> list[str]:
    """Refuse a package installed from another source (unless `replace`; another ref of the
    same source is an update, another folder an upgrade from the user's own files); notes for
    the user."""
    if old is None:
        return []
    if moved_origin(old, new) and not replace:
        raise UzeError(
            f"{new.name} is installed from {old.declared()}; this is {new.declared()}",
            hint="to install this one instead, run the same command with --replace",
        )
    before, after = _version_key(old.version), _version_key(new.version)
    if before is not None and after is not None and after < before:
        return [f"{new.name}: downgrade {old.version} -> {new.version}"]
    return []


def write_file(tx: Transaction, ctx: ScopeContext, created: Created, path: Path, data: bytes,
               empty: bytes) -> bool:
    """Write `data` at `path`; remove the file instead when it is `empty` and uze made it.
    Whether `data` is written."""
    target = _where(ctx, path)
    made_by_uze = ctx.scope == "user" or target in created.files
    if data == empty and made_by_uze:
        tx.remove(path)
        created.files.discard(target)
        return False
    if path.exists() and path.read_bytes() == data:
        return False
    if not path.exists() and ctx.scope == "project":
        created.files.add(target)
    tx.write(path, data)
    return True


def write_lock(tx: Transaction, ctx: ScopeContext, created: Created, path: Path,
               pins: Iterable[LockedPackage]) -> None:
    """`write_file` of the lock of `pins`; once the commit wrote it, its parse is kept for the
    next command (`lockfile.keep`, ADR 0114)."""
    data = dump_lock(pins)
    if write_file(tx, ctx, created, path, data, dump_lock([])):
        tx.on_commit(functools.partial(keep_lock, data))


def record(tx: Transaction, ctx: ScopeContext, created: Created, entry: LockedPackage,
           declared: str) -> None:
    """Declare `entry.name` as `declared` in uze.toml and pin `entry` in uze.lock."""
    manifest, lock = _unlinked_files(ctx)
    raw = manifest.read_bytes() if manifest.exists() else None
    current = read_manifest(manifest, _where(ctx, manifest))
    if current.get(entry.name) != declared:
        data = updated_manifest(raw, entry.name, declared, _where(ctx, manifest))
        write_file(tx, ctx, created, manifest, data, render_manifest({}))
    pins = read_lock(lock, _where(ctx, lock))
    pins[entry.name] = entry
    write_lock(tx, ctx, created, lock, pins.values())


def repin(tx: Transaction, ctx: ScopeContext, created: Created, receipt: Receipt) -> None:
    """Keep the switches of `receipt` (`uze disable`, ADR 0087) in its uze.lock pin, if it has
    one; nothing else of the pin changes."""
    lock = _unlinked_files(ctx)[1]
    pins = read_lock(lock, _where(ctx, lock))
    old = pins.get(receipt.name)
    disabled = sorted(o.locked() for o in receipt.disabled)
    if old is None or old.disabled == disabled:
        return
    pins[receipt.name] = msgspec.structs.replace(old, disabled=disabled)
    write_lock(tx, ctx, created, lock, pins.values())


def forget(tx: Transaction, ctx: ScopeContext, created: Created, name: str) -> None:
    """Take `name` out of uze.toml and uze.lock (removing either once uze's own and empty)."""
    manifest, lock = _unlinked_files(ctx)
    if manifest.exists() and name in read_manifest(manifest, _where(ctx, manifest)):
        data = updated_manifest(manifest.read_bytes(), name, None, _where(ctx, manifest))
        write_file(tx, ctx, created, manifest, data, render_manifest({}))
    pins = read_lock(lock, _where(ctx, lock))
    if name in pins:
        del pins[name]
        write_lock(tx, ctx, created, lock, pins.values())
