"""Read Claude-native hook and MCP files as their portable equivalents.

Claude's hooks file has the same three-level shape as portable hooks. What maps is kept:
the four shared events, and matchers that list tool names (read as `native:<tool>`).
What does not map is reported as a located issue, never silently dropped.
"""

from __future__ import annotations

import re
from typing import Final

from uze.package.hooks import HOOK_EVENTS, NATIVE_PREFIX
from uze.package.issues import issue, key_path

# Claude keys that carry no behaviour; accepted and left out of the portable value.
_IGNORED_TOP_KEYS: Final = frozenset({"description"})
_TOOL_MATCHER_EVENTS: Final = frozenset({"PreToolUse", "PostToolUse"})
_MATCH_ALL: Final = frozenset({"", "*"})
_TOOL_NAME: Final = re.compile(r"[A-Za-z0-9_]+")


def portable_hooks(raw: dict[str, object], location: str, issues: list[str]) -> dict[str, object]:
    """Translate a Claude `hooks/hooks.json` value into the portable shape."""
    result = {key: value for key, value in raw.items() if key not in _IGNORED_TOP_KEYS}
    events = raw.get("hooks")
    if not isinstance(events, dict):
        return result  # the portable check reports the shape
    portable: dict[str, object] = {}
    for event, groups in events.items():
        if event not in HOOK_EVENTS:
            issues.append(
                issue(
                    location,
                    key_path(["hooks", event]),
                    f"Claude event has no portable equivalent (use {', '.join(HOOK_EVENTS)})",
                )
            )
        elif isinstance(groups, list):
            portable[event] = [
                _portable_group(event, index, group, location, issues)
                for index, group in enumerate(groups)
            ]
        else:
            portable[event] = groups
    result["hooks"] = portable
    return result


def _portable_group(
    event: str, index: int, group: object, location: str, issues: list[str]
) -> object:
    if not isinstance(group, dict) or not isinstance(group.get("matcher"), str):
        return group
    converted = {key: value for key, value in group.items() if key != "matcher"}
    matcher, problem = _portable_matcher(event, group["matcher"])
    if problem:
        issues.append(issue(location, key_path(["hooks", event, index, "matcher"]), problem))
    if matcher is not None:
        converted["matcher"] = matcher
    return converted


def _portable_matcher(event: str, matcher: str) -> tuple[str | None, str | None]:
    if matcher in _MATCH_ALL:
        return None, None
    if event not in _TOOL_MATCHER_EVENTS:
        return None, f"{matcher!r} has no portable equivalent on {event}"
    tools = matcher.split("|")
    if all(_TOOL_NAME.fullmatch(tool) for tool in tools):
        return "|".join(f"{NATIVE_PREFIX}{tool}" for tool in tools), None
    return None, f"{matcher!r} is a pattern; a portable matcher lists tool names separated by |"


def portable_server(body: dict[str, object]) -> dict[str, object]:
    """Drop Claude's explicit `"type": "stdio"` from a command server (portable omits it)."""
    if "command" in body and body.get("type") == "stdio":
        return {key: value for key, value in body.items() if key != "type"}
    return body
