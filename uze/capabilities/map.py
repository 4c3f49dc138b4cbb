"""Capability rows, gathered from the harness modules: (harness, kind, feature) -> route,
reason, source.

Each row lives in its harness's module (`uze/harnesses/<id>.py`, `CAPABILITIES`); sources name
the section of docs/reference/harnesses.md (or real-harness-probes.md, or a test of ours) the
row rests on. A harness or feature with no row is unsupported, with a reason, never silently
native.
"""

from __future__ import annotations

from typing import Final

from uze.harnesses import REGISTRY
from uze.harnesses.base import Capability

CAPABILITIES: Final[dict[tuple[str, str, str], Capability]] = {
    (h.id, kind, feature): row
    for h in REGISTRY.values()
    for (kind, feature), row in h.capabilities.items()
}

# Kinds with no row for a harness: why, in one line (shown instead of a generic message).
UNSUPPORTED: Final[dict[tuple[str, str], str]] = {
    (h.id, kind): why for h in REGISTRY.values() for kind, why in h.unsupported.items()
}


def lookup(harness: str, kind: str, feature: str = "base") -> Capability:
    """The capability row, or an unsupported row that says why."""
    found = CAPABILITIES.get((harness, kind, feature))
    if found is not None:
        return found
    if feature != "base" and (harness, kind, "base") in CAPABILITIES:
        return Capability("unsupported", f"{harness} cannot express {kind} {feature}", "none")
    why = UNSUPPORTED.get((harness, kind),
                          f"uze does not deliver {kind} resources to {harness} yet")
    return Capability("unsupported", why, "none")


__all__ = ["CAPABILITIES", "UNSUPPORTED", "Capability", "lookup"]
