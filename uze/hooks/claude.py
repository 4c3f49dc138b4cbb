"""Claude-protocol hook groups, per harness: verbatim to Claude Code, translated or reported
elsewhere. Pure.

Claude Code reads the groups as its own: each goes into its settings' `hooks.<Event>` array
with every key kept (`matcher` regexes, `timeout`, `async`, `shell`, `if`, prompt handlers...)
and `${CLAUDE_PLUGIN_ROOT}` / `${PLUGIN_ROOT}` resolved to the package copy uze owns, since a
settings hook is not run as a plugin's (a harness with `hook_protocol.claude_verbatim`). Harnesses
with `claude_events` (Gemini CLI, Codex, OpenCode) get a generated wrapper (the
`claude` protocol of `uze.hooks.wrapper_script`) that turns their native hook input into
Claude's hook JSON and the handler's Claude answer into their own decision: route `adapted`
(adr/0034). Events and handlers a harness cannot honour, and every other harness, are
`unsupported` with the reason, never `native` for something that would do nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import PurePath
from typing import Final, cast

from uze.harnesses import REGISTRY
from uze.package import ClaudeHookGroup

_ROOT_VARIABLE: Final = re.compile(r"\$\{(?:CLAUDE_)?PLUGIN_ROOT\}|\$(?:CLAUDE_)?PLUGIN_ROOT\b")


# Per harness with a translating wrapper: each Claude event it carries -> its native event
# (`claude_events` of its module). Only events whose native form the real binary has shown to
# run a wrapper (the portable conformance tests and tests/conformance/test_claude_hooks.py).
CLAUDE_EVENTS: Final[dict[str, dict[str, str]]] = {
    h.id: dict(h.hook_protocol.claude_events)
    for h in REGISTRY.values() if h.hook_protocol.claude_events
}
TRANSLATED: Final = (
    "Claude-protocol hook run by uze's wrapper: {harness}'s hook input becomes Claude's hook "
    "JSON, the handler's answer (exit 2, decision, permissionDecision, additionalContext, "
    "continue, systemMessage) becomes {harness}'s decision; a PostToolUse block reaches the "
    "model as context beside the tool's output, as in Claude Code; a permissionDecision `ask` "
    "blocks (it cannot ask), `allow` and updatedInput are not applied"
)


def untranslated_reason(harness: str) -> str:
    """Why `harness` gets no Claude-protocol group at all."""
    return f"Claude-protocol hook; no translation to {harness}"


def claude_problem(harness: str, group: ClaudeHookGroup) -> str | None:
    """Why `harness` cannot run `group` through the translating wrapper, or None."""
    events = CLAUDE_EVENTS.get(harness)
    if events is None:
        return untranslated_reason(harness)
    refused = REGISTRY[harness].hook_protocol.claude_refused.get(group.event)
    if refused is not None:
        return refused
    if group.event not in events:
        return f"Claude-protocol hook on {group.event}: no translation to {harness} for it yet"
    value = group.value.get("hooks")
    handlers: list[object] = value if isinstance(value, list) else []
    kinds = {str(h.get("type", "command")) for h in handlers if isinstance(h, dict)}
    other = sorted(kinds - {"command"})
    if other or len(group.commands) != len(handlers):
        return (f"Claude-protocol hook with {', '.join(other) or 'malformed'} handlers: "
                f"the wrapper runs only command handlers on {harness}")
    return None


def resolve_value(value: object, root: PurePath | str) -> object:
    """`value` with every `${CLAUDE_PLUGIN_ROOT}` and `${PLUGIN_ROOT}` in its strings (at any
    depth) replaced by `root`; everything else as it was."""
    if isinstance(value, str):
        return _ROOT_VARIABLE.sub(lambda _: str(root), value)
    if isinstance(value, list):
        return [resolve_value(item, root) for item in value]
    if isinstance(value, Mapping):
        return {key: resolve_value(item, root) for key, item in value.items()}
    return value


def claude_code_group(
    group: ClaudeHookGroup, root: PurePath | str
) -> tuple[dict[str, object], str]:
    """The element for Claude Code's settings and its marker: the first handler's command (or
    prompt), resolved, by which an edited element is still recognised as this group's."""
    value = cast("dict[str, object]", resolve_value(dict(group.value), root))  # dict in, dict out
    handlers = value.get("hooks")
    first = handlers[0] if isinstance(handlers, list) and handlers else {}
    marker = ""
    if isinstance(first, dict):
        marker = str(first.get("command") or first.get("prompt") or first.get("url") or "")
    return value, marker or str(root)

