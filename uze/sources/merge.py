"""A merge's conflict in `uze.toml` or `uze.lock`, resolved package by package (ADR 0063).

Each side of the conflict (`markers.split_sides`) is read and validated as the whole file that
branch committed. Package by package: the same on both sides, it is kept; on one side only, or
changed on one side only, that side's entry is taken (the way pnpm and yarn merge their
lockfiles); changed on both sides to different entries, it is a true conflict, and nothing is
resolved: the error names every such package and both pins. The sides are the whole files git
keeps in its index for an unmerged file (`uze.sources.stages`, ADR 0073: stage 1 the base, 2
ours, 3 theirs), whatever `merge.conflictStyle` wrote; without them (no repository, the file
edited since the merge) they are put together from the markers. With the merge base (the
index, or `diff3`/`zdiff3` hunks), "changed" is measured against the base, so a package one
side removed stays removed; without it, a package on one side only is taken, and one that
differs on both sides is a conflict.

The clean bytes are the first side's file with the second side's entries applied (`uze.toml`:
through `manifest.updated_manifest`, which keeps that file's comments and layout; `uze.lock`:
generated again by `lockfile.dump_lock`). No pin moves that either side did not move.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, NamedTuple, TypeVar

from uze.errors import UzeError
from uze.sources.lockfile import LockedPackage, dump_lock, parse_lock
from uze.sources.manifest import parse_manifest, updated_manifest
from uze.sources.markers import Sides, split_sides

T = TypeVar("T")


class Resolved(NamedTuple, Generic[T]):
    """A resolved file: its entries by name, its clean bytes, and what was taken from one side
    (`name from LABEL`, or `name removed as LABEL has it`), for the report."""

    entries: dict[str, T]
    clean: bytes
    taken: list[str]


def _pick(ours: T | None, theirs: T | None, has_base: bool,
          before: T | None) -> tuple[bool, int]:
    """(resolved, side) for one package (`before`: its entry in the base): side 0 both agree,
    1 the first side's entry, 2 the second's (an entry None: not in the merged file)."""
    if ours == theirs:
        return True, 0
    if not has_base:
        return (True, 2) if ours is None else (True, 1) if theirs is None else (False, 0)
    if ours == before:
        return True, 2
    if theirs == before:
        return True, 1
    return False, 0


def merge_entries(sides: Sides, ours: dict[str, T], theirs: dict[str, T],
                  base: dict[str, T] | None, where: str,
                  show: Callable[[T | None], str]) -> tuple[dict[str, T], list[str]]:
    """Both sides' entries, by name (sorted), and what was taken from one side. Raises UzeError
    naming each package both sides changed, with each side's entry as `show` puts it."""
    merged: dict[str, T] = {}
    problems: list[str] = []
    taken: list[str] = []
    names = ours.keys() | theirs.keys() | (base.keys() if base is not None else set())
    for name in sorted(names):
        before = base.get(name) if base is not None else None
        resolved, side = _pick(ours.get(name), theirs.get(name), base is not None, before)
        entry = (theirs if side == 2 else ours).get(name)
        if not resolved:
            problems.append(f"{name}: {sides.ours_label} {show(ours.get(name))}, "
                            f"{sides.theirs_label} {show(theirs.get(name))}")
            continue
        if entry is not None:
            merged[name] = entry
        if side:
            label = sides.theirs_label if side == 2 else sides.ours_label
            taken.append(f"{name} from {label}" if entry is not None
                         else f"{name} removed as {label} has it")
    if problems:
        listed = ", ".join(p.split(":", 1)[0] for p in problems)
        raise UzeError(
            f"{where}: both sides of the merge changed {listed}; nothing was written",
            hint=f"in {where}, keep one side's entry for each package named above and delete "
                 "the conflict markers around it, then run `uze install`",
            details=problems)
    return merged, taken


def sides_of(raw: bytes, where: str, index: Sides | None) -> tuple[Sides, bool]:
    """The sides to resolve, and whether they are git's own (`index`: the stages git keeps of
    the file, `uze.sources.stages`): git's when the working file holds no line that neither
    branch committed (else somebody edited it since the merge, and its markers are read), with
    the labels the markers give. Raises UzeError on markers out of order."""
    marked = split_sides(raw, where)
    if index is None:
        return marked, False
    committed = set(index.ours.splitlines()) | set(index.theirs.splitlines())
    if not set(marked.ours.splitlines()) | set(marked.theirs.splitlines()) <= committed:
        return marked, False
    return index._replace(ours_label=marked.ours_label, theirs_label=marked.theirs_label), True


def _read_sides(sides: Sides, where: str, parse: Callable[[bytes, str], dict[str, T]],
                whole: bool = False) -> tuple[dict[str, T], dict[str, T], dict[str, T] | None]:
    """Each side read and validated as the file that branch committed, and the merge base when
    it reads back (`zdiff3` moves lines both sides share out of a hunk, so the base put
    together from its hunks may not be the base: then it is not used). `whole`: the sides are
    the files git keeps (nothing interleaved; an error is that branch's own)."""
    def side(raw: bytes, label: str) -> dict[str, T]:
        if whole:
            return parse(raw, f"{where} ({label} side of the merge)")
        try:
            return parse(raw, f"{where} ({label} side of the merge)")
        except UzeError as exc:
            # Lines git merged on its own sit outside the hunks, so a side put together from
            # them may mix both branches' entries (a package twice, one's fields in another).
            raise UzeError(f"{exc.message}: git's merge interleaved the two sides' entries, so "
                           "uze cannot tell which lines are whose; nothing was written",
                           hint=f"take one side (`git checkout --ours {where}`), then run "
                                "`uze install` again; merge.conflictStyle diff3 helps git "
                                "keep entries apart") from None

    base = None
    if sides.base is not None:
        try:
            base = side(sides.base, "base")
        except UzeError:  # zdiff3 moves lines both sides share out of the hunk: no base then
            base = None
    return side(sides.ours, sides.ours_label), side(sides.theirs, sides.theirs_label), base


def resolve_manifest(raw: bytes, where: str, index: Sides | None = None) -> Resolved[str]:
    """The declarations of a conflicted uze.toml, and its clean bytes (`index`: git's stages
    of it, read in preference to the markers: `sides_of`)."""
    sides, whole = sides_of(raw, where, index)
    ours, theirs, base = _read_sides(sides, where, parse_manifest, whole)

    def show(source: str | None) -> str:
        return f"declares {source}" if source is not None else "removes it"

    merged, taken = merge_entries(sides, ours, theirs, base, where, show)
    clean = sides.ours
    for name in sorted(ours.keys() | merged.keys()):
        if ours.get(name) != merged.get(name):
            clean = updated_manifest(clean, name, merged.get(name), where)
    return Resolved(merged, clean, taken)


def _show_pin(pin: LockedPackage | None) -> str:
    if pin is None:
        return "removes it"
    return f"pins {pin.declared()}" + (f" at {pin.commit[:12]}" if pin.commit else "") + \
        f" (version {pin.version}, tree {pin.tree[:12]})"


def resolve_lock(raw: bytes, where: str, index: Sides | None = None
                 ) -> Resolved[LockedPackage]:
    """The pins of a conflicted uze.lock, and its clean bytes (`index`: as `resolve_manifest`)."""
    sides, whole = sides_of(raw, where, index)
    ours, theirs, base = _read_sides(sides, where, parse_lock, whole)
    merged, taken = merge_entries(sides, ours, theirs, base, where, _show_pin)
    return Resolved(merged, dump_lock(merged.values()), taken)
