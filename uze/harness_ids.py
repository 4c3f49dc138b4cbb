"""The seven canonical harness ids and `--harness` parsing, without importing the harness
modules (the re-install shortcut checks `--harness` before anything heavy loads; issue 8)."""

from __future__ import annotations

from typing import Final

from uze.errors import UnknownHarness

# Registry order; `uze.harnesses` refuses to import if its REGISTRY disagrees.
HARNESS_IDS: Final = (
    "claude_code", "codex", "opencode", "gemini_cli", "antigravity", "kimi_code",
    "deepseek_harness",
)


def parse_harnesses(value: str) -> tuple[str, ...]:
    """`a,b` or `all` -> canonical ids in registry order. Raises UnknownHarness."""
    if value.strip() == "all":
        return HARNESS_IDS
    names = [part.strip() for part in value.split(",") if part.strip()]
    for name in names:
        if name not in HARNESS_IDS:
            raise UnknownHarness(name, HARNESS_IDS)
    return tuple(h for h in HARNESS_IDS if h in names)
