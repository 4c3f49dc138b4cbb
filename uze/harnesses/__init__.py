"""The harness registry: canonical ids and the modules that deliver to them."""

from __future__ import annotations

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


def detect_harnesses(loc: Location) -> tuple[str, ...]:
    """The harnesses whose presence shows in the project or on this machine."""
    return tuple(h.id for h in REGISTRY.values() if h.detect(loc))


__all__ = ["HARNESS_IDS", "REGISTRY", "Harness", "Location", "detect_harnesses", "parse_harnesses"]
