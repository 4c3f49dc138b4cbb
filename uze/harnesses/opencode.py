"""OpenCode (V1, 1.18): AGENTS.md, skills from three roots, Markdown subagents (harnesses.md 3)."""

from __future__ import annotations

from pathlib import Path

from uze import mcp_dialects
from uze.harnesses.base import AgentFormat, Harness, McpTarget
from uze.harnesses.claude_code import config_dir as claude_dir
from uze.location import Location
from uze.paths import Paths


def config_dir(paths: Paths) -> Path:
    """$XDG_CONFIG_HOME/opencode (default ~/.config/opencode)."""
    return paths.xdg_config / "opencode"


def plugins_dir(loc: Location) -> Path:
    """Where OpenCode 1.x auto-loads plugin modules (probes 5.1): `.opencode/plugins/` or
    `~/.config/opencode/plugins/`. OPENCODE_CONFIG_DIR only adds a folder: with it set, the real
    opencode 1.18.33 still lists the plugin here in `debug config` (one copy, no duplicate)."""
    return loc.pick(".opencode/plugins", config_dir(loc.paths) / "plugins")


def _skill_roots(loc: Location) -> tuple[Path, ...]:
    home = loc.paths.home
    return (
        loc.pick(".opencode/skills", config_dir(loc.paths) / "skills"),
        loc.pick(".claude/skills", claude_dir(loc.paths) / "skills"),
        loc.pick(".agents/skills", home / ".agents" / "skills"),
    )


HARNESS = Harness(
    id="opencode",
    binary="opencode",
    markers=(".opencode", "opencode.json", "opencode.jsonc"),
    home=config_dir,
    instructions_file=lambda loc: loc.pick("AGENTS.md", config_dir(loc.paths) / "AGENTS.md"),
    skill_roots=_skill_roots,
    # Seen with the real opencode 1.18.33 (`opencode debug skill`): a name present in
    # .opencode/skills, .claude/skills and .agents/skills is listed once.
    dedupes_skills=True,
    # opencode.json is parsed as JSONC: OpenCode accepts comments and trailing commas there.
    mcp=McpTarget(
        lambda loc: loc.pick("opencode.json", config_dir(loc.paths) / "opencode.json"),
        "jsonc", lambda _loc, name: ("mcp", name), mcp_dialects.opencode,
    ),
    agents=AgentFormat(
        folder=lambda loc: loc.pick(".opencode/agents", config_dir(loc.paths) / "agents"),
        name_key=False,
        fixed={"mode": "subagent"},
        allowed=frozenset({
            "model", "temperature", "top_p", "maxSteps", "tools", "permission", "disable",
            "hidden", "color",
        }),
    ),
)
