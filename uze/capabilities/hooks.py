"""Hook capabilities as data: per harness, each portable event's native name, whether it can
block, and which handler types run; hook delivery (uze/hooks/delivery.py) consults it.

Each harness declares its events in its module (`uze/harnesses/<id>.py`, `HOOK_EVENTS`).
"""

from __future__ import annotations

from typing import Final

from uze.harnesses import REGISTRY
from uze.harnesses.base import HookEvent

HOOK_EVENTS: Final[dict[str, dict[str, HookEvent]]] = {
    h.id: dict(h.hook_protocol.events) for h in REGISTRY.values()
}


def hook_event(harness: str, portable: str) -> HookEvent:
    """The native form of a portable event, or an absent one (native None, cannot block)."""
    return HOOK_EVENTS.get(harness, {}).get(portable, HookEvent(None, False, ()))


__all__ = ["HOOK_EVENTS", "HookEvent", "hook_event"]
