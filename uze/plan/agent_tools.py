"""An agent's tool allowlist (Claude's `tools` / `disallowedTools`) in each harness's terms. Pure.

A restriction is kept where the harness can enforce it, as its `AgentFormat` says
(`allow`/`deny`): OpenCode's `tools` map (`"*": false` then each allowed tool), Gemini CLI's
and Kimi Code's `tools` lists (harnesses.md 3.4, 4.4, 6.1). Claude tool names are
translated through the portable aliases of `uze.hooks.tools` (Claude `Read` -> Gemini
`read_file`, ...); a Claude tool with no counterpart is left out, which only narrows the list.
Where a harness has no allowlist (Codex), or no denylist, the restriction is lost: the caller
routes the agent `degraded` with "tool allowlist not enforced", never `native`.

An agent that came in another harness's envelope (`Agent.tools_from`: a Gemini CLI extension's
agent lists `read_file`, `run_shell_command`) names that harness's tools: `in_claude_names`
reads them into Claude's through the harness's own table (`hook_protocol.claude_tools`), and a
name with no counterpart is named in a `lost` reason (degraded), never dropped in silence.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import msgspec

from uze.harnesses import REGISTRY
from uze.harnesses.base import CLAUDE_TOOLS, Harness
from uze.hooks.tools import TOOL_NAMES
from uze.package import Agent

LOST: Final = "tool allowlist not enforced"
TOOL_KEYS: Final = ("tools", "disallowedTools")


class ToolFields(msgspec.Struct, frozen=True):
    """The frontmatter keys that carry the restriction, what was lost, and what was changed."""

    fields: dict[str, object]
    lost: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def claude_tools(value: object) -> list[str]:
    """Claude's `tools` value (a comma-separated string or a list) as a list of names."""
    items = value.split(",") if isinstance(value, str) else value if isinstance(value, list) else []
    return [str(item).strip() for item in items if str(item).strip()]


def _native(harness: str, names: list[str]) -> tuple[list[str], list[str]]:
    """The harness's names for Claude's `names`, and the Claude names with no counterpart."""
    table = TOOL_NAMES.get(harness, {})
    fmt = REGISTRY[harness].agents
    own_names = fmt is not None and fmt.claude_tool_names
    found: list[str] = []
    missing: list[str] = []
    for name in names:
        aliases = set(CLAUDE_TOOLS.get(name, ()))
        matches = [native for native, kinds in table.items() if aliases & set(kinds)]
        if own_names and name in table:
            matches = [name]  # the harness reads Claude's own names
        if not matches:
            missing.append(name)
        found += [m for m in matches if m not in found]
    return found, missing


def translate_tools(harness: str, frontmatter: Mapping[str, object]) -> ToolFields:
    """The agent's `tools` / `disallowedTools` for `harness` (not Claude Code, which reads
    them as they are)."""
    fields: dict[str, object] = {}
    lost: list[str] = []
    notes: list[str] = []
    fmt = REGISTRY[harness].agents
    allow, deny = (fmt.allow, fmt.deny) if fmt is not None else (None, None)
    allowed = claude_tools(frontmatter.get("tools"))
    denied = claude_tools(frontmatter.get("disallowedTools"))
    if allowed:
        names, missing = _native(harness, allowed)
        how = allow
        if how is None:
            lost.append(f"{LOST} (tools: {', '.join(allowed)})")
        else:
            fields["tools"] = {"*": False, **dict.fromkeys(names, True)} if how == "map" else names
            notes.append(f"tools translated to {harness}'s names: {', '.join(names) or 'none'}")
            if missing:
                notes.append(f"no {harness} tool for {', '.join(missing)}: left out")
    if denied:
        names, _missing = _native(harness, denied)
        how = deny
        if how is None:
            lost.append(f"tool denylist not enforced (disallowedTools: {', '.join(denied)})")
        elif how == "map":
            tools = fields.get("tools")
            base = dict(tools) if isinstance(tools, dict) else {}
            fields["tools"] = {**base, **dict.fromkeys(names, False)}
        else:
            fields["disallowedTools"] = names
    return ToolFields(fields, tuple(lost), tuple(notes))


def tool_source(agent: Agent) -> Harness | None:
    """The harness whose tool names the agent's `tools` use: the one whose own package format
    (`envelope.manifest`) the agent came in; None for Claude's names (the portable format's)."""
    if not agent.tools_from:
        return None
    return next((h for h in REGISTRY.values()
                 if h.envelope is not None and h.envelope.manifest == agent.tools_from), None)


def in_claude_names(agent: Agent, source: Harness) -> tuple[dict[str, object], ToolFields]:
    """The agent's frontmatter with `tools` / `disallowedTools` in Claude's names, read through
    `source`'s table, and what that reading lost and changed. A name with no counterpart is left
    out and named in `lost`; a list left with no name at all is dropped (no restriction a
    harness could enforce), its loss named too."""
    table = source.hook_protocol.claude_tools
    frontmatter = dict(agent.frontmatter)
    lost: list[str] = []
    notes: list[str] = []
    for key in TOOL_KEYS:
        names = claude_tools(frontmatter.get(key))
        if not names:
            continue
        found = list(dict.fromkeys(table[name] for name in names if name in table))
        unknown = [name for name in names if name not in table]
        if found:
            frontmatter[key] = found
            notes.append(f"{key} read from {source.id}'s names: {', '.join(found)}")
        else:
            del frontmatter[key]
        if unknown:
            what = f"{key}: no counterpart for {source.id}'s {', '.join(unknown)}"
            lost.append(f"{LOST if key == 'tools' else 'tool denylist not enforced'} ({what})"
                        if not found else f"left out of {what}")
    return frontmatter, ToolFields({}, tuple(lost), tuple(notes))
