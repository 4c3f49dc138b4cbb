"""Trust: every command a package will run, with the digest of each package file it runs.

Collected while planning (pure). Install asks before the first install and again when the set
changes; a package with nothing executable asks nothing. Environment variables appear by name
only: a value is never shown or stored.
"""

from __future__ import annotations

import json
import re
from typing import Final

import msgspec

from uze.package import McpServer, Package
from uze.projections.digest import content_digest

_INLINE_SHELL: Final = re.compile(r"!`([^`\n]+)`")
_PACKAGE_PATH: Final = re.compile(
    r"(?:\$\{(?:CLAUDE_)?PLUGIN_ROOT\}/|\$(?:CLAUDE_)?PLUGIN_ROOT/|^\./)([^\s\"']+)")


class Execution(msgspec.Struct, frozen=True):
    """One thing that will run: an MCP server command (hooks join in their issue)."""

    kind: str
    name: str
    command: str
    args: tuple[str, ...]
    cwd: str
    env_names: tuple[str, ...]
    files: tuple[tuple[str, str], ...]  # (package path, blake3 digest) of files it runs

    def describe(self) -> str:
        """One line for a person: what runs, with which files and variable names."""
        line = " ".join([self.command, *self.args])
        parts = [f"{self.kind} {self.name}: {line}"]
        if self.cwd:
            parts.append(f"cwd {self.cwd}")
        if self.env_names:
            parts.append(f"env {', '.join(self.env_names)}")
        parts += [f"{path} blake3:{digest[:16]}" for path, digest in self.files]
        return "; ".join(parts)


def _files(package: Package, texts: list[str]) -> tuple[tuple[str, str], ...]:
    found = {m.group(1) for text in texts for m in _PACKAGE_PATH.finditer(text)}
    return tuple(
        (rel, content_digest(package.files[rel].data))
        for rel in sorted(found) if rel in package.files
    )


def _server(package: Package, server: McpServer) -> Execution:
    texts = [server.command or "", *server.args, server.cwd or ""]
    return Execution(
        "mcp", server.name, server.command or "", tuple(server.args), server.cwd or "",
        tuple(sorted(server.env)), _files(package, texts),
    )


def _handlers(package: Package, hooked: set[str]) -> list[Execution]:
    found: list[Execution] = []
    if package.hooks is None:
        return found
    for event, groups in package.hooks.hooks.items():
        for index, group in enumerate(groups):
            name = group.id or f"{event}-{index}"
            if name not in hooked:
                continue
            label = f"{name} ({event}, {group.effect}, {group.matcher or 'every tool'})"
            found += [
                Execution("hook", label, h.command, tuple(h.args or ()), "", (),
                          _files(package, [h.command, *(h.args or ())]))
                for h in group.hooks
            ]
    return found


def _claude_handlers(package: Package, hooked: set[str]) -> list[Execution]:
    """Each handler of each delivered Claude-protocol group: its command, or for a prompt,
    agent or http handler its whole JSON (what Claude Code will act on)."""
    found: list[Execution] = []
    groups = package.claude_hooks.groups if package.claude_hooks is not None else ()
    for group in groups:
        handlers = group.value.get("hooks")
        if group.name not in hooked or not isinstance(handlers, list):
            continue
        matcher = group.value.get("matcher") or "every tool"
        label = f"{group.name} ({group.event}, Claude protocol, {matcher})"
        for handler in handlers:
            command = handler.get("command") if isinstance(handler, dict) else None
            line = str(command) if command else json.dumps(handler, sort_keys=True)
            found.append(Execution("hook", label, line, (), "", (), _files(package, [line])))
    return found


def _skill_commands(package: Package, skills: set[str]) -> list[Execution]:
    """Claude Code runs `!`command`` lines of a SKILL.md when the skill is invoked, and
    `allowed-tools` lets the listed tools run without asking (harnesses.md 1.2)."""
    found: list[Execution] = []
    for skill in package.skills:
        if skill.name not in skills:
            continue
        text = package.files[skill.skill_md].data.decode("utf-8", "replace")
        found += [Execution("skill", f"{skill.name} (inline shell)", m.group(1).strip(),
                            (), "", (), ())
                  for m in _INLINE_SHELL.finditer(text)]
        granted = skill.frontmatter.get("allowed-tools")
        if granted:
            tools = granted if isinstance(granted, str) else ", ".join(map(str, granted))  # type: ignore[call-overload]
            found.append(Execution("skill", f"{skill.name} (allowed-tools)",
                                   f"runs without asking: {tools}",
                                   (), "", (), ()))
    return found


def _agent_commands(package: Package, agents: set[str]) -> list[Execution]:
    """Hooks and MCP servers an agent's `harness.claude_code` block declares run in Claude Code."""
    found: list[Execution] = []
    for agent in package.agents:
        block = agent.harness.get("claude_code", {})
        for key in ("hooks", "mcpServers"):
            if agent.name in agents and block.get(key):
                declared = json.dumps(block[key], sort_keys=True)
                found.append(Execution("agent", f"{agent.name} ({key})", declared, (), "", (), ()))
    return found


def executions(
    package: Package, delivered_mcp: set[str], hooked: set[str] = frozenset(),  # type: ignore[assignment]
    claude_skills: set[str] = frozenset(),  # type: ignore[assignment]
    claude_agents: set[str] = frozenset(),  # type: ignore[assignment]
) -> list[Execution]:
    """What the package will run: MCP servers, hook handlers, and what Claude skills and agents
    declare (inline shell, allowed-tools, frontmatter hooks and MCP servers)."""
    servers = [
        _server(package, server)
        for server in package.mcp_servers
        if server.command and server.name in delivered_mcp
    ]
    return (servers + _handlers(package, set(hooked)) + _claude_handlers(package, set(hooked))
            + _skill_commands(package, set(claude_skills))
            + _agent_commands(package, set(claude_agents)))


def trust_digest(found: list[Execution], tree: str) -> str:
    """One digest of the whole set and of the package's tree (every file, ADR 0021): an upgrade
    asks again when either changes. "" when nothing runs."""
    if not found:
        return ""
    listed = [msgspec.structs.asdict(e) for e in found]
    return content_digest(json.dumps({"runs": listed, "tree": tree}, sort_keys=True).encode())
