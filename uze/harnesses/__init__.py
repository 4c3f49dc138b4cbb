"""The harness registry: the one list of harness ids. Each id names its module,
`uze/harnesses/<id>.py`, whose `HARNESS` object holds everything uze knows about that harness.

Adding a harness is one module plus one line in `HARNESS_IDS` (docs/design.md, "Adding a
harness"; adr/0035). Importing this package is cheap: a module is imported the first time
`REGISTRY` is asked for it, so `--harness` is checked before anything heavy loads (adr/0016).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Final

from uze.errors import UnknownHarness, UsageError
from uze.location import Location

if TYPE_CHECKING:
    from uze.harnesses.base import Harness

# The registry, in the order uze lists harnesses everywhere. One line per harness.
HARNESS_IDS: Final[tuple[str, ...]] = (
    "claude_code",
    "codex",
    "opencode",
    "gemini_cli",
    "antigravity",
    "kimi_code",
    "deepseek_harness",
)


class _Registry(Mapping[str, "Harness"]):
    """id -> Harness, in registry order; each module is imported on first use."""

    def __getitem__(self, harness_id: str) -> Harness:
        if harness_id not in HARNESS_IDS:
            raise KeyError(harness_id)
        harness: Harness = importlib.import_module(f"uze.harnesses.{harness_id}").HARNESS
        if harness.id != harness_id:
            raise RuntimeError(f"uze/harnesses/{harness_id}.py declares the id {harness.id!r}")
        return harness

    def __contains__(self, harness_id: object) -> bool:
        return harness_id in HARNESS_IDS  # without importing the module

    def __iter__(self) -> Iterator[str]:
        return iter(HARNESS_IDS)

    def __len__(self) -> int:
        return len(HARNESS_IDS)


REGISTRY: Final[Mapping[str, Harness]] = _Registry()


def harness_id(name: str) -> str | None:
    """The canonical id `name` stands for: an id, or the name of a harness's binary (`claude`
    for claude_code, `gemini` for gemini_cli: what a user types to start it); else None."""
    if name in HARNESS_IDS:
        return name
    return next((h for h in HARNESS_IDS if REGISTRY[h].binary == name), None)


def parse_harnesses(value: str) -> tuple[str, ...]:
    """`a,b` or `all` -> canonical ids in registry order; each name an id or its binary's name
    (`harness_id`).

    Raises UnknownHarness (with the closest id), and UsageError for an empty list or an empty
    name in it (`,,`).
    """
    if value.strip() == "all":
        return HARNESS_IDS
    names = [part.strip() for part in value.split(",")]
    if not all(names):
        example = ",".join(HARNESS_IDS[:2])
        raise UsageError(
            f"--harness {value!r} names no harness" if not any(names)
            else f"--harness {value!r} has an empty name in its list",
            hint=f"name them: --harness {example} (or --harness all)",
        )
    ids = set()
    for name in names:
        found = harness_id(name)
        if found is None:
            raise UnknownHarness(name, HARNESS_IDS)
        ids.add(found)
    return tuple(h for h in HARNESS_IDS if h in ids)


def project_outputs(loc: Location) -> frozenset[str]:
    """The names at the project root under which uze writes in project scope: `.uze`, uze.toml,
    uze.lock and each harness's files and folders. A package read from the project itself skips
    them, or every install would read back what the last one wrote."""
    found: list[Path] = [loc.project / ".uze", loc.project / "uze.toml", loc.project / "uze.lock"]
    for h in REGISTRY.values():
        found += [h.instructions.file(loc), *h.skills.roots(loc), *h.instructions.also_reads(loc)]
        found += [loc.project / marker for marker in h.markers]
        found += [h.agents.folder(loc)] if h.agents else []
        found += [h.mcp.file(loc)] if h.mcp else []
    return frozenset(p.relative_to(loc.project).parts[0] for p in found
                     if p.is_relative_to(loc.project) and p != loc.project)


def detect_harnesses(loc: Location) -> tuple[str, ...]:
    """The harnesses whose presence shows in the project or on this machine."""
    return tuple(h.id for h in REGISTRY.values() if h.detect(loc))


__all__ = [
    "HARNESS_IDS", "REGISTRY", "Location", "detect_harnesses", "parse_harnesses",
    "project_outputs",
]
