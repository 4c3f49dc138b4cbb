"""Per-harness drivers of the behaviour contracts: where a model request shows what it offers.

A `Driver` names the wire format a harness speaks to the scripted model (model_server.py), how
its model-visible MCP tools are named, what it must do after `uze install` that a user would do
(trust hooks, acknowledge agents) and how to read one logged request into `Offered`. Where each
thing sits in each request: real-harness-probes.md 2.4, 3.3, 4.3 and 5.3, checked against logs.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from tests.conformance.contracts import strings
from tests.conformance.lab import Lab, acknowledge_gemini_agents, trust_codex_hooks
from tests.conformance.model_server import Request, tool_names


@dataclass(frozen=True)
class Offered:
    """What one model request offers: the text instructions live in, skills, agents, tools."""

    instructions: str
    skills: Counter[str]
    agents: Counter[str]
    tools: Counter[str]


def _noop(_lab: Lab, _scope: str) -> None:
    return None


@dataclass(frozen=True)
class Driver:
    """One real harness as the behaviour contracts drive it.

    `user` says whether its run has a scripted user who is asked on an `ask` decision (and
    approves); `prepare` runs after install and before the first model turn.
    """

    harness: str
    api: str
    read: Callable[[dict[str, Any]], Offered]
    mcp_tool: Callable[[str, str], str]
    prepare: Callable[[Lab, str], None] = field(default=_noop)
    user: bool = False


def _text(values: Iterable[object]) -> str:
    return "\n".join(s for v in values for s in strings(v))


def dash_list(text: str, heading: str) -> Counter[str]:
    """The names of the `- name: ...` lines right after each `heading` (blank lines skipped)."""
    found: Counter[str] = Counter()
    for block in text.split(heading)[1:]:
        rows = block.lstrip("\n").splitlines()
        for row in rows:
            if not row.startswith("- "):
                break
            # the name ends at the first ":" before a space or the line's end: a plugin's
            # `kit:review: Review a change` is named `kit:review` (adr/0048)
            found[re.split(r":(?:\s|$)", row[2:], maxsplit=1)[0].strip()] += 1
    return found


def tagged(text: str, tag: str) -> Counter[str]:
    """The names in `<tag> <name>NAME</name>` elements."""
    return Counter(re.findall(rf"<{tag}>\s*<name>([^<]+)</name>", text))


def _claude(body: dict[str, Any]) -> Offered:
    """messages: CLAUDE.md in a <system-reminder>, skills and agents in a `system` entry."""
    text = _text(body.get("messages") or [])
    return Offered(
        text,
        dash_list(text, "The following skills are available for use with the Skill tool:"),
        dash_list(text, "Available agent types for the Agent tool:"),
        Counter(tool_names("claude", body)),
    )


def _codex(body: dict[str, Any]) -> Offered:
    """input: AGENTS.md user item, <skills_instructions>; agents as spawn_agent's roles."""
    items = body.get("input") or []
    user = strings([i.get("content") for i in items if i.get("role") == "user"])
    instructions = "\n".join(t for t in user if t.startswith("# AGENTS.md instructions"))
    roles = _text(body.get("tools") or []).partition("Available roles:")[2]
    return Offered(
        instructions,
        dash_list(_text(items), "### Available skills"),
        Counter(re.findall(r"^([\w.-]+): \{$", roles, flags=re.M)),
        Counter(tool_names("codex", body)),
    )


def _gemini(body: dict[str, Any]) -> Offered:
    """systemInstruction: <skill> and <subagent> lists; GEMINI.md in contents (project) or
    systemInstruction (user); MCP tools as functionDeclarations."""
    system = _text([body.get("systemInstruction")])
    return Offered(
        _text([body.get("contents"), body.get("systemInstruction")]),
        tagged(system, "skill"),
        tagged(system, "subagent"),
        Counter(tool_names("gemini", body)),
    )


def _opencode(body: dict[str, Any]) -> Offered:
    """messages[0] (system): "Instructions from: ..." and <skill>s; agents in the task tool."""
    system = _text(m.get("content") for m in body.get("messages") or []
                   if m.get("role") == "system")
    task = _text(t for t in body.get("tools") or []
                 if (t.get("function") or {}).get("name") == "task")
    return Offered(
        system,
        tagged(system, "skill"),
        dash_list(task, "Available agent types and the tools they have access to:"),
        Counter(tool_names("openai", body)),
    )


def _codex_prepare(lab: Lab, _scope: str) -> None:
    trust_codex_hooks(lab)


def _gemini_prepare(lab: Lab, scope: str) -> None:
    if scope == "project":
        acknowledge_gemini_agents(lab)


DRIVERS: Final[dict[str, Driver]] = {
    d.harness: d
    for d in (
        Driver("claude_code", "claude", _claude, lambda s, t: f"mcp__{s}__{t}", user=True),
        Driver("codex", "codex", _codex, lambda s, t: f"mcp__{s.replace('-', '_')}.{t}",
               _codex_prepare),
        Driver("gemini_cli", "gemini", _gemini, lambda s, t: f"mcp_{s}_{t}", _gemini_prepare),
        Driver("opencode", "openai", _opencode, lambda s, t: f"{s}_{t}"),
    )
}


def main_request(requests: list[Request], api: str) -> Request:
    """The first model call of a turn that offers tools (not a title, router or classifier)."""
    calls = [r for r in requests
             if r.api == api and isinstance(r.body, dict) and r.body.get("tools")]
    assert calls, f"no {api} model request with tools was logged: {[r.path for r in requests]}"
    return calls[0]
