"""Render a portable agent for one harness: Markdown frontmatter or Codex TOML. Pure."""

from __future__ import annotations

import msgspec

from uze.harnesses.base import AgentFormat
from uze.package import Agent
from uze.plan.agent_tools import (
    TOOL_KEYS,
    ToolFields,
    in_claude_names,
    tool_source,
    translate_tools,
)
from uze.projections.frontmatter import plain_dump

PORTABLE_KEYS = frozenset({"name", "description", "harness"})
# Keys that change how an agent looks, never what it does: left out with a note, not degraded.
COSMETIC = frozenset({"color", "version"})


class RenderedAgent(msgspec.Struct, frozen=True):
    """The bytes to write, the fields the harness would not read (named in the reason), the
    restrictions it cannot enforce (`lost`: degraded) and what was translated (`notes`)."""

    data: bytes
    dropped: tuple[str, ...]
    lost: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def _fields(agent: Agent, harness: str, fmt: AgentFormat) -> tuple[dict[str, object], list[str],
                                                                 ToolFields]:
    """The extra frontmatter keys for `harness`, the keys dropped, and the tool restriction.

    A harness with `claude_keys` (Claude Code) reads a Claude agent file as it is: every
    top-level key is kept (`tools`, `model`, `color`, `permissionMode`...; keys it does not
    know it ignores). Elsewhere the tool allowlist is translated (`uze.plan.agent_tools`) and other
    Claude keys are dropped. An agent in another harness's words (`Agent.tools_from`) keeps, for
    that harness, each key it reads as written; for the others its tools are first read into
    Claude's names.
    """
    block = dict(agent.harness.get(harness, {}))
    source = tool_source(agent)
    frontmatter, read = (agent.frontmatter, ToolFields({})) if source is None else \
        in_claude_names(agent, source)
    own = {key: value for key, value in frontmatter.items() if key not in PORTABLE_KEYS}
    tools = read
    if source is not None and source.id == harness:  # written in this harness's own words
        own = {key: value for key, value in agent.frontmatter.items() if key not in PORTABLE_KEYS}
        kept = {key: value for key, value in own.items() if key in fmt.allowed}
        dropped = [key for key in own if key not in fmt.allowed]
        tools = ToolFields({})
    elif fmt.claude_keys:
        kept = dict(own)
        dropped = []
    else:
        translated = translate_tools(harness, frontmatter)
        tools = ToolFields(translated.fields, (*read.lost, *translated.lost),
                           (*read.notes, *translated.notes))
        kept = dict(tools.fields)
        dropped = [key for key in own if key not in TOOL_KEYS]
    kept |= {key: value for key, value in block.items() if key in fmt.allowed}
    dropped += [f"harness.{harness}.{key}" for key in block if key not in fmt.allowed]
    return kept, sorted(dropped), tools


def render_agent(agent: Agent, harness: str, fmt: AgentFormat,
                 name: str) -> RenderedAgent:
    """The agent file for `harness`; fields it would reject are dropped and listed. Its name is
    `name` (`uze.plan.labels`: the flat name, or its own in a plugin folder)."""
    label = name
    extra, dropped, tools = _fields(agent, harness, fmt)
    description = str(agent.frontmatter.get("description", ""))
    if fmt.suffix == ".toml":
        import tomlkit  # here: only a Codex agent needs it (ADR 0013)

        document = tomlkit.document()
        document.add("name", label)
        document.add("description", description)
        for key, value in extra.items():
            document.add(key, value)
        document.add("developer_instructions", tomlkit.string(agent.body, multiline=True))
        return RenderedAgent(tomlkit.dumps(document).encode(), tuple(dropped), tools.lost,
                             tools.notes)
    head: dict[str, object] = {"name": label} if fmt.name_key else {}
    head |= {"description": description, **fmt.fixed, **extra}
    front = plain_dump(head)
    if front is None:
        import yaml  # start-up: YAML loads only for an agent header that is not plain text

        front = yaml.safe_dump(head, sort_keys=False, allow_unicode=True)
    return RenderedAgent(f"---\n{front}---\n{agent.body}".encode(), tuple(dropped), tools.lost,
                         tools.notes)
