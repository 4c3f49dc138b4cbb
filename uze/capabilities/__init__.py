"""The capability map: for each (resource kind, feature, harness) a route tier and its reason.

Data, not branches: projectors look routes up here; `uze check` prints them resolved.
"""

from __future__ import annotations

from uze.capabilities.hooks import HOOK_EVENTS, HookEvent, hook_event
from uze.capabilities.map import CAPABILITIES, Capability, lookup

__all__ = ["CAPABILITIES", "HOOK_EVENTS", "Capability", "HookEvent", "hook_event", "lookup"]
