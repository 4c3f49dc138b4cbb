"""The package as uze sees it: immutable values built by the reader, never written back."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import msgspec

from uze.package.claude_hooks import ClaudeHookGroup, ClaudeHooks
from uze.package.hooks import HookGroup, HookHandler, HooksFile
from uze.package.manifest import Manifest, McpServer
from uze.package.tools import Tool
from uze.package.tree import PackageFile

__all__ = [
    "Agent",
    "ClaudeHookGroup",
    "ClaudeHooks",
    "Command",
    "HookGroup",
    "HookHandler",
    "HooksFile",
    "InvokePolicy",
    "Manifest",
    "McpServer",
    "Package",
    "PackageFile",
    "Setting",
    "Skill",
    "Tool",
]


class InvokePolicy(msgspec.Struct, frozen=True):
    """Who may start a skill: the model on its own, the user by name, or both."""

    model: bool = True
    user: bool = True


class Skill(msgspec.Struct, frozen=True):
    """A skill is a whole folder (`skills/<name>/`, or "" for a package that is one skill);
    `files` lists every file in it, sorted."""

    name: str
    folder: str
    files: tuple[str, ...]
    invoke: InvokePolicy
    has_invoke_key: bool
    frontmatter: Mapping[str, object]

    def inner(self, relpath: str) -> str:
        """`relpath` (one of `files`) relative to the skill folder."""
        return relpath[len(self.folder) + 1 :] if self.folder else relpath

    @property
    def skill_md(self) -> str:
        """The package path of the skill's SKILL.md."""
        return f"{self.folder}/SKILL.md" if self.folder else "SKILL.md"


class Agent(msgspec.Struct, frozen=True):
    """An agent definition `agents/**/<name>.md`: frontmatter, body and per-harness fields.
    `tools_from` names the envelope manifest whose harness's tool names its `tools` use (a
    Gemini CLI extension's agent says `read_file`; the planner translates, uze.plan.agent_tools);
    "" for Claude Code's names, the portable format's."""

    name: str
    relpath: str
    frontmatter: Mapping[str, object]
    body: str
    harness: Mapping[str, Mapping[str, object]]
    subdirs: tuple[str, ...] = ()
    tools_from: str = ""


class Command(msgspec.Struct, frozen=True):
    """One user-invoked prompt: `name` (valid), its file, frontmatter and body; `subdirs` are
    the folders between the commands root and the file. `converted` says how a command not
    written in Claude Code's Markdown (a Gemini CLI TOML command) was read into its terms
    ("" for a Markdown command: its file is the command as written)."""

    name: str
    relpath: str
    frontmatter: Mapping[str, object]
    body: str
    subdirs: tuple[str, ...] = ()
    converted: str = ""

    @property
    def description(self) -> str:
        """The `description`, else the body's first non-empty line (as Claude Code shows it)."""
        given = self.frontmatter.get("description")
        if isinstance(given, str) and given.strip():
            return given.strip()
        return next((line.strip() for line in self.body.splitlines() if line.strip()), "")


class Instructions(msgspec.Struct, frozen=True):
    """The package's standing instructions: the files they come from, the text uze delivers
    into each harness's instructions file, and where the files are named ("" for a portable
    package's own AGENTS.md; `gemini-extension.json contextFileName` for a Gemini CLI
    extension's context files, whose `@` imports are inlined in `text`)."""

    files: tuple[str, ...]
    text: bytes
    source: str = ""
    imports: tuple[str, ...] = ()  # the files whose text `text` inlines, in first-seen order

    @property
    def name(self) -> str:
        """The resource name: the file, or the files joined by `+`."""
        return "+".join(self.files)

    def describe(self) -> str:
        """The files and, for named context, the manifest key that names them."""
        return f"{', '.join(self.files)} ({self.source})" if self.source else self.name


class Setting(msgspec.Struct, frozen=True):
    """One plugin setting (Claude Code `userConfig`, Gemini CLI extension `settings`;
    uze.package.settings): `key` is what `--set` and `${user_config.KEY}` name, `env` the
    variable a harness reads where no value is written (always for a `sensitive` one),
    `default` the author's value as text, `source` the manifest key that declares it."""

    key: str
    title: str
    description: str
    sensitive: bool
    env: str
    default: str | None
    source: str
    written: bool = False  # its value is written where it is used (uze.package.settings.ready)
    given: str | None = None  # the value the user gave (--set, the terminal, uze.lock; ADR 0103)

    def describe(self) -> str:
        """How it is delivered, in one line (never a value)."""
        how = ("its value (--set, else the default) is written where the package uses it"
               if self.written else f"each harness reads ${self.env} where it runs"
               + ("; uze never takes or writes a sensitive value" if self.sensitive else ""))
        sensitive = ", sensitive" if self.sensitive else ""
        return f"setting {self.key} ({self.title}{sensitive}; {self.source}): {how}"


class Package(msgspec.Struct, frozen=True):
    """A valid package: its manifest, every file, and the resources found in them."""

    root: Path
    manifest: Manifest
    files: Mapping[str, PackageFile]
    instructions: Instructions | None
    skills: tuple[Skill, ...]
    agents: tuple[Agent, ...]
    mcp_servers: tuple[McpServer, ...]
    hooks: HooksFile | None
    warnings: tuple[str, ...] = ()
    claude_hooks: ClaudeHooks | None = None
    commands: tuple[Command, ...] = ()
    tools: tuple[Tool, ...] = ()  # tools.json: served by one generated MCP server (adr/0083)
    settings: tuple[Setting, ...] = ()

    @property
    def is_empty(self) -> bool:
        """Whether the package carries no resource at all (no instructions, skill, agent,
        command, MCP server, tool or hook group): installing it would deliver nothing."""
        groups = self.claude_hooks.groups if self.claude_hooks is not None else ()
        return not (self.instructions or self.skills or self.agents or self.commands
                    or self.mcp_servers or self.tools or self.hooks is not None or groups)

    @property
    def name(self) -> str:
        """The package name from plugin.json."""
        return self.manifest.name

    @property
    def version(self) -> str:
        """The package version from plugin.json ("0.0.0" when absent)."""
        return self.manifest.version
