"""Capability rows, read top to bottom: harness, kind, feature -> route, reason, source.

Sources name the section of ../shared/reference/harnesses.md the row rests on. A harness or
feature with no row is unsupported ("uze does not deliver ... yet"), never silently native.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

Route = Literal["native", "adapted", "degraded", "unsupported"]


@dataclass(frozen=True, slots=True)
class Capability:
    """How one harness carries one feature of one resource kind."""

    route: Route
    reason: str
    source: str


def _row(route: Route, reason: str, source: str) -> Capability:
    return Capability(route, reason, source)


CAPABILITIES: Final[dict[tuple[str, str, str], Capability]] = {
    # --- Claude Code -------------------------------------------------------------------------
    ("claude_code", "instructions", "base"): _row(
        "adapted",
        "Claude Code reads CLAUDE.md, not AGENTS.md: the instructions are copied into a "
        "CLAUDE.md region",
        "harnesses.md 1.1",
    ),
    ("claude_code", "skill", "base"): _row("native", "", "harnesses.md 1.2"),
    ("claude_code", "skill", "invoke.user_only"): _row(
        "native", "", "harnesses.md 1.3 (disable-model-invocation: true)"
    ),
    ("claude_code", "skill", "invoke.model_only"): _row(
        "native", "", "harnesses.md 1.3 (user-invocable: false)"
    ),
    # --- Codex -------------------------------------------------------------------------------
    ("codex", "instructions", "base"): _row("native", "", "harnesses.md 2.1"),
    ("codex", "skill", "base"): _row("native", "", "harnesses.md 2.2"),
    ("codex", "skill", "invoke.user_only"): _row(
        "adapted",
        "user-only policy written as agents/openai.yaml policy.allow_implicit_invocation: false",
        "harnesses.md 2.3",
    ),
    ("codex", "skill", "invoke.model_only"): _row(
        "degraded",
        "Codex cannot hide a skill from $ mentions and /skills: users can still invoke this "
        "model-only skill",
        "harnesses.md 2.3",
    ),
}


def lookup(harness: str, kind: str, feature: str = "base") -> Capability:
    """The capability row, or an unsupported row naming what is missing."""
    found = CAPABILITIES.get((harness, kind, feature))
    if found is not None:
        return found
    if feature != "base" and CAPABILITIES.get((harness, kind, "base")) is not None:
        return Capability("unsupported", f"{harness} cannot express {kind} {feature}", "none")
    return Capability("unsupported", f"uze does not deliver {kind} resources to {harness} yet", "none")
