"""The harness registry: canonical ids and the modules that deliver to them."""

from __future__ import annotations

from typing import Final

from uze.errors import UnknownHarness
from uze.harnesses import (
    antigravity,
    claude_code,
    codex,
    deepseek_harness,
    gemini_cli,
    kimi_code,
    opencode,
)
from uze.harnesses.base import Harness, Location

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
HARNESS_IDS: Final = tuple(REGISTRY)


def parse_harnesses(value: str) -> tuple[str, ...]:
    """`a,b` or `all` -> canonical ids in registry order. Raises UnknownHarness."""
    if value.strip() == "all":
        return HARNESS_IDS
    names = [part.strip() for part in value.split(",") if part.strip()]
    for name in names:
        if name not in REGISTRY:
            raise UnknownHarness(name, HARNESS_IDS)
    return tuple(h for h in HARNESS_IDS if h in names)


def detect_harnesses(loc: Location) -> tuple[str, ...]:
    """The harnesses whose presence shows in the project or on this machine."""
    return tuple(h.id for h in REGISTRY.values() if h.detect(loc))


__all__ = ["HARNESS_IDS", "REGISTRY", "Harness", "Location", "detect_harnesses", "parse_harnesses"]
