"""One portable package -> one folder per publishing harness, each in that harness's own plugin
format (ADR 0097, which puts them in separate folders; ADR 0091 for the manifests). Pure.

An envelope folder holds what its harness loads and nothing it would misread:

- every package file but AGENTS.md where the harness loads no instructions from a plugin,
  the portable-only ones (`plugin.json`, `mcp.json`, `hooks.json`,
  `tools.json`: a folder with `plugin.json` is read by uze as the portable package, not as the
  envelope) and the agents, which are rendered per harness as install renders them
  (`uze.plan.agents.render_agent`);
- the Claude Code plugin (the harness with `claude_plugins`): `.claude-plugin/plugin.json`
  (no `agents` key: claude 2.1.x refuses a folder there and lists agents named as files
  without their subfolders; its default `agents/` lists `agents/team/planner.md` as
  `<package>:team:planner`, as uze's own plugin folder does), `.mcp.json` with
  `${CLAUDE_PLUGIN_ROOT}`, each agent in Claude's form at its own path;
- the Codex plugin (the harness whose envelope is `.codex-plugin/plugin.json`): the manifest
  with `skills` and `mcpServers: ./.mcp.json`, a server naming the package root run in the
  plugin (`cwd: "."`, the root as `.`: Codex expands no `${CLAUDE_PLUGIN_ROOT}` there); no
  agents and no commands (not part of the Codex plugin format uze reads, ADR 0068);
- the Gemini CLI extension (envelope `gemini-extension.json`): the manifest with
  `contextFileName` and `mcpServers` (`${extensionPath}`, `httpUrl`/`url`), each Markdown
  command as the TOML command install writes, each agent in Gemini's form as a flat
  `agents/<subdirs>-<name>.md` (Gemini CLI 0.61.0 loads only `agents/*.md`, no subfolders).

Each carries the package's hooks as install delivers them (`uze.packing.hooks`). Each
envelope says what it leaves out, one line each (`Envelope.skipped`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

import msgspec

from uze.errors import UzeError
from uze.harnesses import REGISTRY
from uze.harnesses.base import Harness
from uze.package import Agent, Package
from uze.package.layout import (
    CLAUDE_MANIFEST,
    CODEX_MANIFEST,
    GEMINI_MANIFEST,
    PORTABLE_MANIFEST,
)
from uze.packing.files import PackedFile, json_bytes
from uze.packing.hooks import envelope_hooks
from uze.plan.agents import render_agent
from uze.plan.labels import own_name
from uze.projections.frontmatter import edit_frontmatter

CLAUDE_MCP: Final = ".mcp.json"
INSTRUCTIONS: Final = "AGENTS.md"  # a portable package's instructions
PORTABLE_ONLY: Final = frozenset({PORTABLE_MANIFEST, "mcp.json", "hooks.json", "tools.json"})
_PRESENTATION: Final = ("author", "homepage", "repository", "license", "keywords")
_ROOT_MARKERS: Final = ("${PLUGIN_ROOT}", "${CLAUDE_PLUGIN_ROOT}")
CLAUDE_ROOT: Final = "${CLAUDE_PLUGIN_ROOT}"
GEMINI_ROOT: Final = "${extensionPath}"


class Envelope(msgspec.Struct, frozen=True):
    """One harness's plugin folder: its folder name in OUT (the harness id), its manifest's
    path inside it, its files, and what it leaves out of the package (one line each)."""

    harness: str
    manifest: str
    files: tuple[PackedFile, ...]
    skipped: tuple[str, ...] = ()


def claude_harness() -> Harness:
    """The harness that loads a Claude Code plugin folder whole."""
    return next(h for h in REGISTRY.values() if h.claude_plugins is not None)


def envelope_harness(manifest: str) -> Harness:
    """The harness whose own package format has the manifest `manifest` (by the registry's
    envelopes, never by id: issue 29)."""
    for harness in REGISTRY.values():
        if harness.envelope is not None and harness.envelope.manifest == manifest:
            return harness
    raise AssertionError(f"no harness reads {manifest}")  # the registry's bug


def rooted(value: Any, root: str, *, command: bool = False) -> Any:
    """`value` with the package root markers (and a `command` starting with `./`) as `root`."""
    if isinstance(value, str):
        for marker in _ROOT_MARKERS:
            value = value.replace(marker, root)
        return f"{root}/{value[2:]}" if command and value.startswith("./") else value
    if isinstance(value, list):
        return [rooted(item, root) for item in value]
    if isinstance(value, dict):
        return {key: rooted(item, root, command=key == "command") for key, item in value.items()}
    return value


def _servers(package: Package) -> dict[str, Any]:
    """The package's mcp.json servers as written (validated by the reader), by name."""
    raw = package.files.get("mcp.json")
    if raw is None:
        return {}
    servers = json.loads(raw.data).get("mcpServers", {})
    return dict(servers) if isinstance(servers, dict) else {}


def _gemini_server(server: dict[str, Any]) -> dict[str, Any]:
    """A server in Gemini CLI's dialect: `httpUrl` (streamable HTTP) or `url` (SSE)."""
    entry = {key: value for key, value in server.items() if key not in ("type", "enabled")}
    if "url" in server and server.get("type", "http") == "http":
        entry["httpUrl"] = entry.pop("url")
    return entry


def _identity(package: Package, raw: dict[str, Any]) -> dict[str, Any]:
    head: dict[str, Any] = {"name": package.name, "version": package.version}
    if isinstance(raw.get("description"), str):
        head["description"] = raw["description"]
    return head


def _copied(package: Package, leave: frozenset[str]) -> list[PackedFile]:
    """The package's files an envelope carries as they are: all but the portable-only files,
    the skills and agents (rendered per harness) and `leave`."""
    rendered = {agent.relpath for agent in package.agents}
    rendered |= {rel for skill in package.skills for rel in skill.files}
    return [PackedFile(path, item.data, item.executable)
            for path, item in sorted(package.files.items())
            if path not in PORTABLE_ONLY and path not in rendered and path not in leave]


def _skills(package: Package, harness: Harness, *, in_plugin: bool) -> list[PackedFile]:
    """Each skill's files in `harness`'s dialect (its invocation keys and extra files, as
    install writes them). `in_plugin` (Claude Code): without `invoke` and `name`, as in uze's
    own Claude Code plugin folder (a plugin's skill is listed by its folder, ADR 0048);
    elsewhere `invoke` stays (Gemini CLI and Codex load a skill that has it, and uze reads it
    back from the envelope)."""
    made = []
    for skill in package.skills:
        files = {skill.inner(rel): package.files[rel].data for rel in skill.files}
        executable = {skill.inner(rel) for rel in skill.files if package.files[rel].executable}
        dialect = harness.skills.dialect(skill.invoke)
        for rel, render in dialect.extra_files.items():
            files[rel] = render(files.get(rel))
        drop = ["invoke", "name"] if in_plugin else []
        if dialect.frontmatter or (in_plugin and (skill.has_invoke_key or
                                                  "name" in skill.frontmatter)):
            files["SKILL.md"] = edit_frontmatter(files["SKILL.md"], dict(dialect.frontmatter),
                                                 drop=drop)
        folder = skill.folder or f"skills/{skill.name}"
        made += [PackedFile(f"{folder}/{rel}", data, rel in executable)
                 for rel, data in sorted(files.items())]
    return made


def _agents(package: Package, harness: Harness, path: Callable[[Agent], tuple[str, str]]
            ) -> tuple[list[PackedFile], list[str]]:
    """Each agent rendered for `harness` at `path(agent)`, and the fields it drops."""
    fmt = harness.agents
    assert fmt is not None  # only harnesses that read agents get them
    made: list[PackedFile] = []
    notes: list[str] = []
    seen: dict[str, str] = {}
    for agent in package.agents:
        rel, name = path(agent)
        if rel in seen:
            raise UzeError(f"agents {seen[rel]} and {agent.relpath} would both be {rel} in the "
                           f"{harness.id} envelope", hint="rename one of the two agents")
        seen[rel] = agent.relpath
        rendered = render_agent(agent, harness.id, fmt, name)
        made.append(PackedFile(rel, rendered.data))
        if rendered.dropped:
            notes.append(f"{harness.id}: {agent.relpath}: fields it does not read: "
                         f"{', '.join(rendered.dropped)}")
    return made, notes


def _claude_agent(agent: Agent) -> tuple[str, str]:
    return "/".join(("agents", *agent.subdirs, f"{agent.name}.md")), own_name(agent)


def _gemini_agent(agent: Agent) -> tuple[str, str]:
    flat = "-".join((*agent.subdirs, own_name(agent)))
    return f"agents/{flat}.md", flat


def _codex_server(server: dict[str, Any]) -> dict[str, Any]:
    """A server as Codex starts a plugin's: it expands no `${CLAUDE_PLUGIN_ROOT}` (codex 0.171.0:
    "No such file or directory") but resolves a relative `cwd` in the plugin, so a server that
    names the package root runs there (`cwd: "."`) with the root as `.`."""
    entry = rooted(server, ".")
    if entry != rooted(server, "") and "cwd" not in entry:
        entry["cwd"] = "."
    return dict(entry)


def _plugin_servers(servers: dict[str, Any], codex: bool = False) -> list[PackedFile]:
    """`.mcp.json`: a Claude Code plugin's servers (`${CLAUDE_PLUGIN_ROOT}`), or a Codex
    plugin's (`_codex_server`)."""
    if not servers:
        return []
    return [PackedFile(CLAUDE_MCP, json_bytes({"mcpServers": {
        name: _codex_server(s) if codex else rooted(s, CLAUDE_ROOT)
        for name, s in servers.items()}}))]


def _unread(package: Package, harness: Harness, shown: str) -> list[str]:
    """The note for the instructions a plugin of `harness` cannot carry."""
    if package.instructions is None:
        return []
    return [f"{harness.id}: {INSTRUCTIONS}: a {shown} plugin loads no instructions file"]


def claude_envelope(package: Package, raw: dict[str, Any], servers: dict[str, Any]) -> Envelope:
    """The Claude Code plugin: manifest, `.mcp.json`, Claude-form agents, the files."""
    harness = claude_harness()
    manifest: dict[str, Any] = {**_identity(package, raw),
                                **{key: raw[key] for key in _PRESENTATION if key in raw}}
    folders = {"skills": bool(package.skills), "commands": bool(package.commands)}
    manifest.update({key: f"./{key}/" for key, present in folders.items() if present})
    # Agents at the default `agents/`, not named: claude 2.1.x refuses a folder there ("Invalid
    # input") and lists agents named as files without their subfolders (`<p>:planner`).
    agents, notes = _agents(package, harness, _claude_agent)
    hooks, skipped = envelope_hooks(package, harness, CLAUDE_ROOT)
    notes += skipped
    files = [*_copied(package, frozenset({INSTRUCTIONS})), *agents, *hooks,
             *_skills(package, harness, in_plugin=True),
             PackedFile(CLAUDE_MANIFEST, json_bytes(manifest))]
    files += _plugin_servers(servers)
    return Envelope(harness.id, CLAUDE_MANIFEST, tuple(files),
                    (*notes, *_unread(package, harness, "Claude Code")))


def codex_envelope(package: Package, raw: dict[str, Any], servers: dict[str, Any]) -> Envelope:
    """The Codex plugin: manifest (skills, `.mcp.json`), the files but agents and commands."""
    harness = envelope_harness(CODEX_MANIFEST)
    manifest = _identity(package, raw)
    if package.skills:
        manifest["skills"] = "./skills/"
    commands = frozenset(command.relpath for command in package.commands)
    hooks, notes = envelope_hooks(package, harness, CLAUDE_ROOT)
    files = [*_copied(package, commands | {INSTRUCTIONS}), *hooks,
             *_skills(package, harness, in_plugin=False)]
    if servers:
        manifest["mcpServers"] = f"./{CLAUDE_MCP}"
    files += [*_plugin_servers(servers, codex=True),
              PackedFile(CODEX_MANIFEST, json_bytes(manifest))]
    why = "not in the Codex plugin format (skills, MCP servers, hooks; ADR 0068)"
    notes += [f"{harness.id}: {kind}: {why}"
              for kind, present in (("agents", package.agents), ("commands", package.commands))
              if present]
    return Envelope(harness.id, CODEX_MANIFEST, tuple(files),
                    (*notes, *_unread(package, harness, "Codex")))


def gemini_envelope(package: Package, raw: dict[str, Any], servers: dict[str, Any]) -> Envelope:
    """The Gemini CLI extension: manifest, TOML commands, Gemini-form flat agents, the files."""
    harness = envelope_harness(GEMINI_MANIFEST)
    manifest = _identity(package, raw)
    if package.instructions is not None:
        manifest["contextFileName"] = INSTRUCTIONS
    if servers:
        manifest["mcpServers"] = {name: _gemini_server(rooted(server, GEMINI_ROOT))
                                  for name, server in servers.items()}
    commands, markdown = [], set()
    surface = harness.commands
    assert surface is not None  # Gemini CLI has command files
    for command in package.commands:
        if command.converted or not command.relpath.endswith(".md"):
            continue
        data, _route, _reason = surface.render(command, package.files[command.relpath].data)
        commands.append(PackedFile(f"{command.relpath[:-3]}.toml", data))
        markdown.add(command.relpath)
    agents, notes = _agents(package, harness, _gemini_agent)
    hooks, skipped = envelope_hooks(package, harness, GEMINI_ROOT)
    notes += skipped
    files = [*_copied(package, frozenset(markdown)), *commands, *agents, *hooks,
             *_skills(package, harness, in_plugin=False),
             PackedFile(GEMINI_MANIFEST, json_bytes(manifest))]
    return Envelope(harness.id, GEMINI_MANIFEST, tuple(files), tuple(notes))


def envelopes(package: Package) -> list[Envelope]:
    """The three envelopes of `package`, in registry order of their harnesses."""
    raw = json.loads(package.files[PORTABLE_MANIFEST].data)
    servers = _servers(package)
    made = [build(package, raw, servers)
            for build in (claude_envelope, codex_envelope, gemini_envelope)]
    order = list(REGISTRY)
    return sorted(made, key=lambda envelope: order.index(envelope.harness))
