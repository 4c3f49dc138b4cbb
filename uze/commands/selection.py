"""A package folder narrowed to what was chosen: a marketplace entry's own manifest and component
lists (adr/0075) and `--skill NAME` (adr/0076). Applied to a temporary copy, never to the source;
the copy is what is installed, stored and pinned (its tree digest is the lock's).

A `strict: false` entry is the plugin's manifest, and each of its `skills`/`commands`/`agents`
lists is exactly what is delivered of that kind: the kind's default folder (`skills/`,
`commands/`, `agents/`) keeps only what a list names (Claude Code 2.1.197 lists only the four
skills `document-skills` names of the seventeen in anthropics/skills). A strict entry's lists
add to the plugin's own manifest, as Claude Code merges them (measured, 2.1.197). Every listed
path is read, like any manifest path, by `uze.package.layout`: one that leaves the plugin is
refused, one that names nothing there is a warning.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import Any, Final

from uze import fs
from uze.errors import UzeError, did_you_mean
from uze.sources.catalog import LISTS, Entry

_MANIFEST: Final = Path(".claude-plugin") / "plugin.json"
Ignore = Callable[[str, list[str]], set[str]]


def _listed(value: Any) -> list[str]:
    """The relative paths a component field names (a path or a list of them), normalised;
    what is not a safe relative path is left to the package reader, which names it."""
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    found = []
    for item in items:
        if not isinstance(item, str):
            continue
        path = PurePosixPath(item.replace("${CLAUDE_PLUGIN_ROOT}/", "./"))
        if not path.is_absolute() and ".." not in path.parts:
            found.append("/".join(p for p in path.parts if p != "."))
    return found


def _covered(rel: str, listed: list[str]) -> bool:
    """Whether `rel` is a listed path, inside one, or a folder on the way to one."""
    return any(p == "" or rel == p or rel.startswith(p + "/") or p.startswith(rel + "/")
               for p in listed)


def _only_listed(lists: dict[str, Any]) -> Ignore:
    """copytree's ignore: in the default folder of each listed kind, what no list names."""
    kept = {kind: _listed(value) for kind, value in lists.items()
            if kind in LISTS and isinstance(value, str | list)}

    def ignore(_folder: str, names: list[str], *, at: str = "") -> set[str]:
        dropped = set()
        for name in names:
            rel = f"{at}/{name}" if at else name
            kind = rel.split("/", 1)[0]
            if kind in kept and rel != kind and not _covered(rel, kept[kind]):
                dropped.add(name)
        return dropped

    return ignore


def _relative_ignore(root: Path, inner: Callable[..., set[str]]) -> Ignore:
    def ignore(folder: str, names: list[str]) -> set[str]:
        at = Path(folder).relative_to(root).as_posix()
        dropped = {".git"} & set(names) if at == "." else set()
        return dropped | inner(folder, names, at="" if at == "." else at)

    return ignore


def _copy(folder: Path, target: Path, inner: Callable[..., set[str]]) -> None:
    shutil.copytree(folder, target, symlinks=True, ignore=_relative_ignore(folder, inner))


def _write_manifest(copy: Path, manifest: dict[str, Any]) -> None:
    body = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
    fs.atomic_write(copy / _MANIFEST, body.encode(), durable=False)


def _own_manifest(folder: Path) -> dict[str, Any] | None:
    """The plugin's `.claude-plugin/plugin.json` as an object, None when absent or unreadable
    (the reader then reports it)."""
    path = folder / _MANIFEST
    if not path.is_file() or path.is_symlink():
        return None
    try:
        data = json.loads(path.read_bytes())
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _merged(own: dict[str, Any] | None, entry: Entry) -> dict[str, Any]:
    """A strict entry's lists added to the plugin's own manifest (a plugin without one gets
    one named after the entry, as Claude Code names it)."""
    base: dict[str, Any] = dict(own) if own is not None else {"name": entry.name}
    for kind, value in entry.lists.items():
        mine = base.get(kind)
        mine_list = [mine] if isinstance(mine, str) else mine if isinstance(mine, list) else []
        given = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        base[kind] = [*mine_list, *(item for item in given if item not in mine_list)]
    return base


def _entry_copy(folder: Path, copy: Path, entry: Entry) -> None:
    """Copy `folder` to `copy` as `entry` makes it (see the module docstring)."""
    if entry.strict:
        own = _own_manifest(folder)
        _copy(folder, copy, lambda _f, _n, at: set())
        if own is not None or not (folder / _MANIFEST).exists():  # else the reader refuses it
            _write_manifest(copy, _merged(own, entry))
        return
    if (folder / _MANIFEST).exists():
        raise UzeError(f"{entry.name}: a strict: false entry, but the plugin ships its own "
                       ".claude-plugin/plugin.json", hint="ask the marketplace to fix the entry")
    _copy(folder, copy, _only_listed(entry.lists))
    _write_manifest(copy, entry.manifest)


def _needs_copy(entry: Entry | None) -> bool:
    return entry is not None and (not entry.strict or bool(entry.lists))


@contextlib.contextmanager
def narrowed(folder: Path, entry: Entry | None = None, skills: tuple[str, ...] = ()
             ) -> Iterator[Path]:
    """`folder` as `entry` (a catalog entry, or None) and `skills` (the `--skill` names, or
    every skill) make it: `folder` itself when nothing narrows it, or when it is not a folder or
    nests too deeply to copy (the reader then refuses it, naming the problem). Raises UzeError
    for a `strict: false` entry whose plugin ships its own manifest, and for a skill name the
    package does not have (naming those it has)."""
    from uze.package.tree import folder_too_deep

    if not (_needs_copy(entry) or skills) or folder.is_symlink() or not folder.is_dir() \
            or folder_too_deep(folder):
        yield folder
        return
    with tempfile.TemporaryDirectory(prefix="uze-entry-") as scratch:
        current = folder  # each copy keeps the folder's name: a bare package's name
        if entry is not None and _needs_copy(entry):
            current = Path(scratch) / "entry" / folder.name
            _entry_copy(folder, current, entry)
        if skills:
            chosen = Path(scratch) / "chosen" / folder.name
            _skills_copy(current, chosen, skills)
            current = chosen
        yield current


def _skills_copy(folder: Path, copy: Path, wanted: tuple[str, ...]) -> None:
    """Copy `folder` to `copy` without the skills `wanted` does not name; a manifest `skills`
    list loses the folders that are gone."""
    from uze.package import read_package

    package = read_package(folder)
    names = {skill.name: skill.folder for skill in package.skills}
    missing = [name for name in wanted if name not in names]
    if missing:
        have = ", ".join(sorted(names)) or "none"
        raise UzeError(f"{package.name} has no skill {missing[0]} (its skills: {have})",
                       hint=did_you_mean(missing[0], names) + "name one of its skills")
    gone = sorted(f for name, f in names.items() if name not in wanted)

    def ignore(_folder: str, entries: list[str], *, at: str = "") -> set[str]:
        return {n for n in entries if (f"{at}/{n}" if at else n) in gone}

    _copy(folder, copy, ignore)
    own = _own_manifest(copy)
    if own is None or not isinstance(own.get("skills"), str | list):
        return
    kept = [item for item in ([own["skills"]] if isinstance(own["skills"], str)
                              else own["skills"])
            if not any(_covered_by(p, gone) for p in _listed(item))]
    if kept != own["skills"]:
        _write_manifest(copy, {**own, "skills": kept})


def _covered_by(path: str, folders: list[str]) -> bool:
    return any(path == f or path.startswith(f + "/") for f in folders)
