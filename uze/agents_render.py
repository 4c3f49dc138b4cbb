"""Render a portable agent for one harness: Markdown frontmatter or Codex TOML. Pure."""

from __future__ import annotations

import msgspec
import yaml

from uze.harnesses.base import AgentFormat
from uze.package import Agent

PORTABLE_KEYS = frozenset({"name", "description", "harness"})


class RenderedAgent(msgspec.Struct, frozen=True):
    """The bytes to write and the fields the harness would not read (named in the reason)."""

    data: bytes
    dropped: tuple[str, ...]


def agent_label(package: str, agent: Agent) -> str:
    """`<package>-<subdirs>-<name>`: stable and unique across packages."""
    return "-".join((package, *agent.subdirs, agent.name))


def _fields(agent: Agent, harness: str, fmt: AgentFormat) -> tuple[dict[str, object], list[str]]:
    block = dict(agent.harness.get(harness, {}))
    kept = {key: value for key, value in block.items() if key in fmt.allowed}
    dropped = [f"harness.{harness}.{key}" for key in block if key not in fmt.allowed]
    dropped += [key for key in agent.frontmatter if key not in PORTABLE_KEYS]
    return kept, sorted(dropped)


def render_agent(package: str, agent: Agent, harness: str, fmt: AgentFormat) -> RenderedAgent:
    """The agent file for `harness`; fields it would reject are dropped and listed."""
    label = agent_label(package, agent)
    extra, dropped = _fields(agent, harness, fmt)
    description = str(agent.frontmatter.get("description", ""))
    if fmt.suffix == ".toml":
        import tomlkit  # here: only a Codex agent needs it (ADR 0013)

        document = tomlkit.document()
        document.add("name", label)
        document.add("description", description)
        for key, value in extra.items():
            document.add(key, value)
        document.add("developer_instructions", tomlkit.string(agent.body, multiline=True))
        return RenderedAgent(tomlkit.dumps(document).encode(), tuple(dropped))
    head: dict[str, object] = {"name": label} if fmt.name_key else {}
    head |= {"description": description, **fmt.fixed, **extra}
    front = yaml.safe_dump(head, sort_keys=False, allow_unicode=True)
    return RenderedAgent(f"---\n{front}---\n{agent.body}".encode(), tuple(dropped))
