"""The harness registry: canonical ids and the modules that deliver to them."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from uze.harness_ids import HARNESS_IDS, parse_harnesses
from uze.harnesses import (
    antigravity,
    claude_code,
    codex,
    deepseek_harness,
    gemini_cli,
    kimi_code,
    opencode,
)
from uze.harnesses.base import Harness
from uze.location import Location

REGISTRY: Final[dict[str, Harness]] = {
    h.id: h
    for h in (
        claude_code.HARNESS,
        codex.HARNESS,
        opencode.HARNESS,
        gemini_cli.HARNESS,
        antigravity.HARNESS,
        kimi_code.HARNESS,
        deepseek_harness.HARNESS,
    )
}
if tuple(REGISTRY) != HARNESS_IDS:  # one list of ids: uze.harness_ids, checked here at import
    raise RuntimeError(f"uze.harness_ids.HARNESS_IDS is not the registry order {tuple(REGISTRY)}")


def project_outputs(loc: Location) -> frozenset[str]:
    """The names at the project root under which uze writes in project scope: `.uze`, uze.toml,
    uze.lock and each harness's files and folders. A package read from the project itself skips
    them, or every install would read back what the last one wrote."""
    found: list[Path] = [loc.project / ".uze", loc.project / "uze.toml", loc.project / "uze.lock"]
    for h in REGISTRY.values():
        found += [h.instructions_file(loc), *h.skill_roots(loc), *h.also_reads(loc)]
        found += [loc.project / marker for marker in h.markers]
        found += [h.agents.folder(loc)] if h.agents else []
        found += [h.mcp.file(loc)] if h.mcp else []
    return frozenset(p.relative_to(loc.project).parts[0] for p in found
                     if p.is_relative_to(loc.project) and p != loc.project)


def detect_harnesses(loc: Location) -> tuple[str, ...]:
    """The harnesses whose presence shows in the project or on this machine."""
    return tuple(h.id for h in REGISTRY.values() if h.detect(loc))


__all__ = [
    "HARNESS_IDS", "REGISTRY", "Harness", "Location", "detect_harnesses", "parse_harnesses",
    "project_outputs",
]
