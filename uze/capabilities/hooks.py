"""Hook capabilities as data: per harness, each portable event's native name, whether it can
block, and which handler types run; hook delivery (uze/hooks/delivery.py) consults it.

Sources: harnesses.md 1.6, 2.6, 3.6, 4.6, 5.5, 6.1, 7 (section per harness).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import msgspec


class HookEvent(msgspec.Struct, frozen=True):
    """One portable event in one harness. `native` is None where the harness lacks it."""

    native: str | None
    can_block: bool
    handler_types: tuple[str, ...]


def _events(names: Mapping[str, str | None], blocking: set[str],
            types: tuple[str, ...]) -> dict[str, HookEvent]:
    return {
        portable: HookEvent(native, portable in blocking and native is not None,
                            types if native else ())
        for portable, native in names.items()
    }


_SAME = {"PreToolUse": "PreToolUse", "PostToolUse": "PostToolUse", "Stop": "Stop",
         "SessionStart": "SessionStart"}

HOOK_EVENTS: Final[dict[str, dict[str, HookEvent]]] = {
    "claude_code": _events(_SAME, {"PreToolUse", "Stop"},
                           ("command", "http", "mcp_tool", "prompt")),
    "codex": _events(_SAME, {"PreToolUse", "Stop"}, ("command",)),
    # OpenCode has no shell hooks: the generated plugin uze-<package>.js maps
    # tool.execute.before/after and the session.created/session.idle bus events; throwing in
    # tool.execute.before blocks (harnesses.md 3.6). All four fire in `opencode run` with the
    # real 1.18.33 (tests/conformance/test_opencode_hook_bridge.py).
    "opencode": _events(
        {"PreToolUse": "tool.execute.before", "PostToolUse": "tool.execute.after",
         "Stop": "session.idle", "SessionStart": "session.created"},
        {"PreToolUse"}, ("plugin",),
    ),
    "gemini_cli": _events(
        {"PreToolUse": "BeforeTool", "PostToolUse": "AfterTool", "Stop": "AfterAgent",
         "SessionStart": "SessionStart"},
        {"PreToolUse", "Stop"}, ("command",),
    ),
    # Antigravity: named hooks in hooks.json; PreToolUse decides (harnesses.md 5.5, unverified).
    "antigravity": _events(_SAME, {"PreToolUse"}, ("command", "prompt")),
    "kimi_code": _events(_SAME, {"PreToolUse", "Stop"}, ("command",)),
    # DeepSeek runs Claude-format hooks through its dsh-hooks-claude-code bridge plugin; uze
    # does not deliver there (one configPath per process: adr/0010).
    "deepseek_harness": _events(_SAME, {"PreToolUse", "Stop"}, ("command",)),
}


def hook_event(harness: str, portable: str) -> HookEvent:
    """The native form of a portable event, or an absent one (native None, cannot block)."""
    return HOOK_EVENTS.get(harness, {}).get(portable, HookEvent(None, False, ()))
