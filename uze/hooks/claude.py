"""Claude-protocol hook groups, per harness: verbatim to Claude Code, reported elsewhere. Pure.

Claude Code reads the groups as its own: each goes into its settings' `hooks.<Event>` array
with every key kept (`matcher` regexes, `timeout`, `async`, `shell`, `if`, prompt handlers...)
and `${CLAUDE_PLUGIN_ROOT}` / `${PLUGIN_ROOT}` resolved to the package copy uze owns, since a
settings hook is not run as a plugin's. No other harness gets a group until a wrapper
translates its input into Claude's hook JSON and the Claude answer into its decision: the
route is `unsupported` with that reason, never `native` for something that would do nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import PurePath
from typing import Final, cast

from uze.package import ClaudeHookGroup

_ROOT_VARIABLE: Final = re.compile(r"\$\{(?:CLAUDE_)?PLUGIN_ROOT\}|\$(?:CLAUDE_)?PLUGIN_ROOT\b")


def untranslated_reason(harness: str) -> str:
    """Why `harness` gets no Claude-protocol group."""
    return f"Claude-protocol hook; no translation to {harness}"


def resolve_value(value: object, root: PurePath) -> object:
    """`value` with every `${CLAUDE_PLUGIN_ROOT}` and `${PLUGIN_ROOT}` in its strings (at any
    depth) replaced by `root`; everything else as it was."""
    if isinstance(value, str):
        return _ROOT_VARIABLE.sub(lambda _: str(root), value)
    if isinstance(value, list):
        return [resolve_value(item, root) for item in value]
    if isinstance(value, Mapping):
        return {key: resolve_value(item, root) for key, item in value.items()}
    return value


def claude_code_group(group: ClaudeHookGroup, root: PurePath) -> tuple[dict[str, object], str]:
    """The element for Claude Code's settings and its marker: the first handler's command (or
    prompt), resolved, by which an edited element is still recognised as this group's."""
    value = cast("dict[str, object]", resolve_value(dict(group.value), root))  # dict in, dict out
    handlers = value.get("hooks")
    first = handlers[0] if isinstance(handlers, list) and handlers else {}
    marker = ""
    if isinstance(first, dict):
        marker = str(first.get("command") or first.get("prompt") or first.get("url") or "")
    return value, marker or str(root)

