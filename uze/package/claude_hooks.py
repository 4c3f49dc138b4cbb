"""Hooks in Claude Code's own protocol, kept as Claude wrote them (docs/package-format.md).

A Claude-format hooks file (`hooks/hooks.json` in a Claude-native layout, or what the Claude
manifest's `hooks` key names or holds) has handlers that read Claude's hook JSON on stdin and
answer with exit 2 or a JSON decision. Reading them as portable `HOOK_*` handlers would lose
every answer, so they are kept verbatim, every key of every group, with their protocol in the
model. A group that is not even shaped as Claude's (not an object, no `hooks` list) is skipped
with a located warning; the rest of the package still installs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import msgspec

from uze.package.issues import issue, key_path

PROTOCOL: Final = "claude"


class ClaudeHookGroup(msgspec.Struct, frozen=True):
    """One group as Claude wrote it: `value` holds every key (`matcher`, `hooks`, ...).

    `name` is `<Event>-<index>` in the file it came from (prefixed when several files)."""

    name: str
    event: str
    value: Mapping[str, object]

    @property
    def commands(self) -> tuple[str, ...]:
        """The command line of each `command` handler, in order."""
        handlers = self.value.get("hooks")
        return tuple(
            str(h["command"]) for h in handlers if isinstance(h, dict) and "command" in h
        ) if isinstance(handlers, list) else ()


class ClaudeHooks(msgspec.Struct, frozen=True):
    """Every Claude-protocol group of a package, in file order, and where they came from."""

    groups: tuple[ClaudeHookGroup, ...]
    sources: tuple[str, ...]
    protocol: str = PROTOCOL


def _commandless(handlers: list[object]) -> int | None:
    """The index of the first handler that is not an object, or is a `command` handler
    without a non-empty command line (null, a number, ""), else None."""
    for index, handler in enumerate(handlers):
        if not isinstance(handler, dict):
            return index
        command = handler.get("command")
        if handler.get("type", "command") == "command" and (
                not isinstance(command, str) or not command.strip()):
            return index
    return None


def read_claude_hooks(
    raw: Mapping[str, object], location: str, prefix: str, warnings: list[str]
) -> list[ClaudeHookGroup]:
    """The groups of one Claude hooks value `{"hooks": {Event: [group, ...]}}` read from
    `location`; `prefix` starts each group's name when a package has more than one source."""
    events = raw.get("hooks")
    if not isinstance(events, dict):
        warnings.append(issue(location, "hooks", "must be a JSON object of events; skipped"))
        return []
    found: list[ClaudeHookGroup] = []
    for event, groups in events.items():
        if not isinstance(groups, list):
            warnings.append(issue(location, key_path(["hooks", event]),
                                  "must be a list of groups; skipped"))
            continue
        for index, group in enumerate(groups):
            where = key_path(["hooks", event, index])
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(group, dict) or not isinstance(handlers, list) or not handlers:
                warnings.append(issue(location, where, "must be an object with a non-empty "
                                      "`hooks` list; skipped"))
                continue
            empty = _commandless(handlers)
            if empty is not None:
                warnings.append(issue(location, f"{where}.hooks[{empty}]", "a command handler "
                                      "needs a `command` line (text); the group is skipped"))
                continue
            found.append(ClaudeHookGroup(f"{prefix}{event}-{index}", event, dict(group)))
    return found

