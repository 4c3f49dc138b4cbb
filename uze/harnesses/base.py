"""What a harness module provides: where things go in that harness and how to dialect them."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from uze.location import Location
from uze.paths import Paths
from uze.vocabulary import ConfigFormat

if TYPE_CHECKING:
    from uze.package import InvokePolicy



class SkillDialect(msgspec.Struct, frozen=True):
    """Harness-specific additions to a skill: frontmatter keys and extra generated files."""

    frontmatter: Mapping[str, object] = msgspec.field(default_factory=dict)
    extra_files: Mapping[str, Callable[[bytes | None], bytes]] = msgspec.field(default_factory=dict)


class AgentFormat(msgspec.Struct, frozen=True):
    """How a harness reads agents: file per agent, Markdown or TOML, and the keys it accepts.

    `fixed` keys are always written (e.g. OpenCode `mode: subagent`); `name_key` is False where
    the file name is the identity; `allowed` lists the `harness:` block keys the harness reads.
    """

    folder: Callable[[Location], Path]
    suffix: Literal[".md", ".toml"] = ".md"
    name_key: bool = True
    fixed: Mapping[str, object] = msgspec.field(default_factory=dict)
    allowed: frozenset[str] = frozenset()


class McpTarget(msgspec.Struct, frozen=True):
    """Where a harness keeps MCP servers: one config file, its format, the key of an entry."""

    file: Callable[[Location], Path]
    fmt: ConfigFormat
    key: Callable[[Location, str], tuple[str, ...]]
    dialect: Callable[[Any], Any]


def _no_policy(_policy: InvokePolicy) -> SkillDialect:
    return SkillDialect()


class Harness(msgspec.Struct, frozen=True):
    """One harness: detection, locations and dialect. A new harness is one module + one line.

    `skill_roots` lists every root the harness reads (preferred first); `dedupes_skills` is
    True where the real harness was seen listing a name once though it sat in two roots;
    `also_reads` names instruction files it reads besides its own (DeepSeek reads CLAUDE.md).
    """

    id: str
    binary: str
    markers: tuple[str, ...]
    home: Callable[[Paths], Path]
    instructions_file: Callable[[Location], Path]
    skill_roots: Callable[[Location], tuple[Path, ...]]
    skill_dialect: Callable[[InvokePolicy], SkillDialect] = _no_policy
    agents: AgentFormat | None = None
    mcp: McpTarget | None = None
    dedupes_skills: bool = False
    also_reads: Callable[[Location], tuple[Path, ...]] = lambda _loc: ()

    def detect(self, loc: Location) -> bool:
        """Whether the harness shows in the project, in the user's home or on PATH."""
        return (
            any((loc.project / marker).exists() for marker in self.markers)
            or self.home(loc.paths).is_dir()
            or shutil.which(self.binary, path=loc.paths.env.get("PATH", "")) is not None
        )


def invoke_feature(policy: InvokePolicy) -> str:
    """The capability feature an invocation policy needs."""
    if not policy.model:
        return "invoke.user_only"
    if not policy.user:
        return "invoke.model_only"
    return "base"
