"""What uze owns in one scope, as its receipts record it: folders and files it created, entries
and hook groups in config files, and regions in instruction files (ADR 0095). Export leaves
all of it out: it is uze's to reinstall, not the user's to carry."""

from __future__ import annotations

from pathlib import Path

import msgspec

from uze.state.context import ScopeContext


class Owned(msgspec.Struct, frozen=True):
    """Everything uze wrote in the scope, by absolute path.

    `paths`: folders and whole files (anything at or below one is uze's); `entries`: config
    entries by (file, key path); `markers`: per config file, the wrapper commands of the hook
    groups uze added (a group running one is uze's); `regions`: per instructions file, each
    region id with the separator uze added before it (so removing it gives back the user's
    bytes, `uze.projections.region.remove_region`)."""

    paths: frozenset[Path]
    entries: frozenset[tuple[Path, tuple[str, ...]]]
    markers: dict[Path, tuple[str, ...]]
    regions: dict[Path, tuple[tuple[str, str], ...]]

    def owns_path(self, path: Path) -> bool:
        """Whether `path` is, or is inside, a folder or file uze wrote."""
        return any(path == owned or path.is_relative_to(owned) for owned in self.paths)

    def owns_entry(self, path: Path, key_path: tuple[str, ...]) -> bool:
        """Whether the config entry at `key_path` of `path` is one uze added."""
        return (path, key_path) in self.entries

    def owns_group(self, path: Path, commands: tuple[str, ...]) -> bool:
        """Whether a hook group of `path` running `commands` is one uze added (it runs one of
        uze's wrappers)."""
        markers = self.markers.get(path, ())
        return any(marker in command for marker in markers for command in commands)


def owned_by_uze(ctx: ScopeContext) -> Owned:
    """What every receipt of the scope records (each receipt checked as `uze status` checks
    it; a damaged one raises ReceiptUnreadable). In project scope `.uze/` is uze's whole."""
    paths: set[Path] = set()
    entries: set[tuple[Path, tuple[str, ...]]] = set()
    markers: dict[Path, list[str]] = {}
    regions: dict[Path, list[tuple[str, str]]] = {}
    if ctx.scope == "project":
        paths.add(ctx.location.project / ".uze")
    for receipt in ctx.receipts(links=False):
        for artifact in receipt.artifacts:
            where = ctx.location.resolve(artifact.target)
            if artifact.type in ("tree", "file"):
                paths.add(where)
            elif artifact.type == "entry":
                entries.add((where, tuple(artifact.key_path)))
            elif artifact.type == "element":
                markers.setdefault(where, []).append(artifact.marker)
            elif artifact.type == "region":
                regions.setdefault(where, []).append((artifact.region, artifact.lead))
    return Owned(frozenset(paths), frozenset(entries),
                 {path: tuple(found) for path, found in markers.items()},
                 {path: tuple(found) for path, found in regions.items()})
