"""A folder whose parts are owned one by one: Claude Code's plugin folder (ADR 0065).

Every package reaches Claude Code as one plugin folder (ADR 0048), one tree artifact. Its
skills, commands and agents are separate resources: a projection's target names the part of
the folder that holds it (`.claude/skills/kit/skills/review`), and its state is that of its
own files plus the plugin's manifest, which decides how every part loads; a row whose target
is the folder itself (a native plugin's MCP servers and hooks) reads the rest of the folder.
Editing one skill therefore marks that skill drifted, not the package.

Removing such a folder while the user has edited some of it removes every file still as uze
wrote it, the manifest included, and keeps only the edited files (and any the user added): the
folder is no longer a plugin, so Claude Code stops loading a package that was uninstalled.
"""

from __future__ import annotations

import stat
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Final, TypeGuard

from uze.projections import tree
from uze.projections.statcache import DigestCache
from uze.vocabulary import LiveState

if TYPE_CHECKING:
    from uze.state.context import ScopeContext
    from uze.state.receipts import Artifact, TreeArtifact
    from uze.transaction import Transaction

MANIFEST: Final = ".claude-plugin/plugin.json"


def is_parted(record: Artifact) -> TypeGuard[TreeArtifact]:
    """Whether `record` is a plugin folder (it holds a Claude Code plugin manifest), whose
    parts are inspected and removed one by one."""
    return record.type == "tree" and MANIFEST in record.files


def owner(target: str, keys: Collection[str]) -> tuple[str, str] | None:
    """(artifact key, part) of a projection `target`: the key itself with part "", or the
    longest key that is a folder above it, with the path below; None when neither."""
    if target in keys:
        return target, ""
    key = target
    while "/" in key:  # the folders above it, nearest first: the longest key that is one
        key = key.rpartition("/")[0]
        if key in keys:
            return key, target[len(key) + 1:]
    return None


def _within(rel: str, part: str) -> bool:
    return rel == part or rel.startswith(f"{part}/")


def _live(folder: Path, hashes: DigestCache) -> dict[str, str | None]:
    """Each file below `folder` -> its digest (None for a link, never followed)."""
    return {rel: None if stat.S_ISLNK(st.st_mode) else hashes.digest(path, st)
            for rel, (path, st) in hashes.files(folder).items()}


def _state(files: dict[str, str], live: dict[str, str | None], rels: set[str]) -> LiveState:
    """`missing` when none of `rels` is there, `matched` when each holds what uze wrote (and
    nothing was added), else `drifted`."""
    if rels and not rels & live.keys():
        return "missing"
    return "matched" if all(live.get(rel) == files.get(rel) for rel in rels) else "drifted"


def states(ctx: ScopeContext, record: TreeArtifact, parts: Collection[str]) -> dict[str, LiveState]:
    """The live state of each part of the folder ("" is the rest: what uze wrote outside every
    other part).

    A part reads its own files (recorded, or added since: a new file in a skill's folder
    changes the skill) and the manifest; a file the user added outside every part changes no
    resource. The folder gone (or replaced by a file or a link) is that state for every part."""
    folder = ctx.location.resolve(record.target)
    whole = tree.inspect(folder, record.files, ctx.hashes)
    if whole in ("missing", "conflict", "matched"):
        return dict.fromkeys(parts, whole)
    live = _live(folder, ctx.hashes)
    every = live.keys() | record.files.keys()
    named = [p for p in parts if p]
    out: dict[str, LiveState] = {}
    for part in parts:
        if part:
            out[part] = _state(record.files, live, {r for r in every if _within(r, part)})
            if out[part] == "matched" and live.get(MANIFEST) != record.files.get(MANIFEST):
                out[part] = "drifted"
        else:
            rest = {rel for rel in record.files if not any(_within(rel, p) for p in named)}
            out[part] = _state(record.files, live, rest)
    return out


EDITED: Final = "edited"
ADDED: Final = "added"


def kept(ctx: ScopeContext, record: TreeArtifact) -> dict[str, str]:
    """What removing the folder leaves, sorted: each file uze wrote that now holds other bytes
    (or is a link) -> `EDITED`, each file it never wrote -> `ADDED`."""
    return _kept(record, _live(ctx.location.resolve(record.target), ctx.hashes))


def _kept(record: TreeArtifact, live: dict[str, str | None]) -> dict[str, str]:
    return {rel: EDITED if rel in record.files else ADDED for rel, digest in sorted(live.items())
            if digest is None or record.files.get(rel) != digest}


def trim_detail(left: Collection[str]) -> str:
    """What removing a plugin folder with edits in it does (`left`: the files it keeps)."""
    if MANIFEST in left:
        return ("every file still as uze wrote it removed; the edited files kept, the plugin "
                "manifest among them, so Claude Code still loads what is left")
    return ("every file still as uze wrote it removed, the plugin manifest included (Claude "
            "Code no longer loads it); the edited files kept")


def trim(tx: Transaction, ctx: ScopeContext, record: TreeArtifact) -> dict[str, str]:
    """Remove every file of the folder still as uze wrote it, then each folder left empty;
    return what was kept (`kept`). Files the user added are never touched."""
    folder = ctx.location.resolve(record.target)
    live = _live(folder, ctx.hashes)
    for rel, digest in sorted(record.files.items()):
        if live.get(rel) == digest:
            tx.remove(folder / rel)
    inner = {rel for path in record.files for rel in _parents(path)}
    for rel in sorted(inner, key=lambda r: r.count("/"), reverse=True):
        tx.remove_dir(folder / rel)
    tx.remove_dir(folder)
    return _kept(record, live)


def _parents(rel: str) -> list[str]:
    """`a/b/c.md` -> `a/b`, `a`."""
    out = []
    while "/" in rel:
        rel = rel.rpartition("/")[0]
        out.append(rel)
    return out
