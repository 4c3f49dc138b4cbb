"""Claude Code's plugin folder for a package uze projects capability by capability.

A package Claude Code does not get whole (a portable package, or a Claude-native one uze read
only in part: `uze.plan.claude_plugin`) still reaches Claude Code as one `@skills-dir` plugin,
so its resources are listed as `<package>:<name>` like a native plugin's (ADR 0048): a folder
`<skill root>/<package>/` with a generated `.claude-plugin/plugin.json` (name, version,
description from the package), the skills under `skills/<skill>/`, the commands under
`commands/` and the agents under `agents/`. Measured with claude 2.1.197: a plugin's skill is
listed by its folder whatever its frontmatter `name` says, an agent by its frontmatter `name`.
A skill here has no frontmatter `name`: OpenCode 1.18.33, which scans
`.claude/skills/**/SKILL.md`, lists no skill without one, so it never sees this copy under the
skill's bare name (two packages' `review` would collide there) and gets its own copy elsewhere
(`uze.plan.planner`). MCP servers, hooks and instructions stay where uze puts them for Claude
Code without a plugin. Pure.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from uze.capabilities import Capability
from uze.location import Location
from uze.package import Agent, Command, Package
from uze.plan import claude_plugin
from uze.plan.model import PlannedTree


class GeneratedPlugin(msgspec.Struct):
    """The plugin folder being planned: its files and the harnesses that read them."""

    harness: str  # the harness that loads it as a plugin
    path: Path
    target: str
    note: str  # what the route reason adds for that harness ("" in user scope)
    files: dict[str, bytes]
    executables: set[str] = msgspec.field(default_factory=set)
    users: list[str] = msgspec.field(default_factory=list)

    def add(self, prefix: str, files: dict[str, bytes], executables: frozenset[str],
            harnesses: tuple[str, ...]) -> None:
        """Put `files` (relative to `prefix`) in the plugin, read by `harnesses`."""
        for rel, data in files.items():
            self.files[f"{prefix}/{rel}"] = data
        self.executables |= {f"{prefix}/{rel}" for rel in executables}
        self.users += [h for h in harnesses if h not in self.users]

    def add_command(self, command: Command, data: bytes) -> str:
        """A command file: Claude Code lists `commands/a/b.md` as `<package>:a:b`. Returns its
        path in the plugin."""
        return self._add_file("/".join(("commands", *command.subdirs, f"{command.name}.md")),
                              data)

    def add_agent(self, agent: Agent, data: bytes) -> str:
        """An agent file: its subfolders are part of its label, as for a command. Returns its
        path in the plugin."""
        return self._add_file("/".join(("agents", *agent.subdirs, f"{agent.name}.md")), data)

    def _add_file(self, rel: str, data: bytes) -> str:
        self.add(rel.rpartition("/")[0], {rel.rpartition("/")[2]: data}, frozenset(),
                 (self.harness,))
        return rel

    def route(self, cap: Capability) -> Capability:
        """`cap` for the harness that loads the plugin, its reason saying what loading needs."""
        reason = "; ".join(filter(None, [cap.reason, self.note]))
        return Capability(cap.route, reason, cap.source)

    def artifact(self) -> PlannedTree | None:
        """The folder to write, or None when nothing but the manifest would be in it."""
        if len(self.files) == 1:
            return None
        return PlannedTree(self.path, self.target, dict(self.files), frozenset(self.executables),
                           tuple(self.users))


def manifest(package: Package) -> bytes:
    """The generated `.claude-plugin/plugin.json`: the package's name, version, description."""
    document: dict[str, str] = {"name": package.name, "version": package.version}
    if package.manifest.description:
        document["description"] = package.manifest.description
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode()


def start(loc: Location, package: Package, harness: str) -> GeneratedPlugin:
    """An empty plugin (its manifest only) for `package` in `loc`, loaded by `harness`."""
    path = claude_plugin.folder(loc, package)
    note = claude_plugin.loader(harness).project_note if loc.scope == "project" else ""
    return GeneratedPlugin(harness, path, loc.display(path), note,
                           {".claude-plugin/plugin.json": manifest(package)})


def skill_prefix(name: str) -> str:
    """Where a skill's folder sits in the plugin."""
    return f"skills/{name}"
