"""The seven canonical harness ids and `--harness` parsing, without importing the harness
modules (the re-install shortcut checks `--harness` before anything heavy loads; ADR 0016)."""

from __future__ import annotations

from typing import Final

from uze.errors import UnknownHarness, UsageError

# Registry order; `uze.harnesses` refuses to import if its REGISTRY disagrees.
HARNESS_IDS: Final = (
    "claude_code", "codex", "opencode", "gemini_cli", "antigravity", "kimi_code",
    "deepseek_harness",
)


def parse_harnesses(value: str) -> tuple[str, ...]:
    """`a,b` or `all` -> canonical ids in registry order.

    Raises UnknownHarness, and UsageError for an empty list or an empty name in it (`,,`).
    """
    if value.strip() == "all":
        return HARNESS_IDS
    names = [part.strip() for part in value.split(",")]
    if not all(names):
        raise UsageError(
            f"--harness {value!r} names no harness" if not any(names)
            else f"--harness {value!r} has an empty name in its list",
            hint="name them: --harness claude_code,codex (or --harness all)",
        )
    for name in names:
        if name not in HARNESS_IDS:
            raise UnknownHarness(name, HARNESS_IDS)
    return tuple(h for h in HARNESS_IDS if h in names)
