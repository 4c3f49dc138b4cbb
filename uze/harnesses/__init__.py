"""The harness registry: canonical ids and the modules that deliver to them."""

from __future__ import annotations

from typing import Final

from uze.errors import UnknownHarness
from uze.harnesses import claude_code, codex
from uze.harnesses.base import Harness, Location

HARNESS_IDS: Final = (
    "claude_code",
    "codex",
    "opencode",
    "gemini_cli",
    "antigravity",
    "kimi_code",
    "deepseek_harness",
)

REGISTRY: Final[dict[str, Harness]] = {
    claude_code.HARNESS.id: claude_code.HARNESS,
    codex.HARNESS.id: codex.HARNESS,
}


def parse_harnesses(value: str) -> tuple[str, ...]:
    """`a,b` or `all` -> canonical ids in registry order. Raises UnknownHarness."""
    if value.strip() == "all":
        return HARNESS_IDS
    names = [part.strip() for part in value.split(",") if part.strip()]
    for name in names:
        if name not in HARNESS_IDS:
            raise UnknownHarness(name, HARNESS_IDS)
    return tuple(h for h in HARNESS_IDS if h in names)


def detect_harnesses(loc: Location) -> tuple[str, ...]:
    """The implemented harnesses whose presence shows in the project or on this machine."""
    return tuple(h.id for h in REGISTRY.values() if h.detect(loc))


__all__ = ["HARNESS_IDS", "REGISTRY", "Harness", "Location", "detect_harnesses", "parse_harnesses"]
