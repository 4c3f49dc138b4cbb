"""Codex CLI: AGENTS.md, `.agents/skills/<name>/`, policy in agents/openai.yaml (harnesses.md 2)."""

from __future__ import annotations

from pathlib import Path

import yaml

from uze import mcp_dialects
from uze.harnesses.base import AgentFormat, Harness, McpTarget, SkillDialect
from uze.package import InvokePolicy
from uze.paths import Paths

OPENAI_YAML = "agents/openai.yaml"


def codex_home(paths: Paths) -> Path:
    """`$CODEX_HOME`, else ~/.codex."""
    return paths.env_dir("CODEX_HOME", paths.home / ".codex")


def _openai_yaml(existing: bytes | None) -> bytes:
    """The skill's openai.yaml with policy.allow_implicit_invocation set to false."""
    data = yaml.safe_load(existing) if existing else None
    data = data if isinstance(data, dict) else {}
    policy = data.get("policy")
    data["policy"] = {**(policy if isinstance(policy, dict) else {}),
                      "allow_implicit_invocation": False}
    return yaml.safe_dump(data, sort_keys=False).encode()


def _skill_dialect(policy: InvokePolicy) -> SkillDialect:
    if not policy.model:
        return SkillDialect(extra_files={OPENAI_YAML: _openai_yaml})
    return SkillDialect()


HARNESS = Harness(
    id="codex",
    binary="codex",
    markers=(".codex",),
    home=codex_home,
    instructions_file=lambda loc: loc.pick("AGENTS.md", codex_home(loc.paths) / "AGENTS.md"),
    # .agents/skills is documented; .codex/skills and $CODEX_HOME/skills were listed by the
    # real codex 0.171 (probes 3.1); $CODEX_HOME/skills is the deprecated user root.
    skill_roots=lambda loc: (
        loc.pick(".agents/skills", loc.paths.home / ".agents" / "skills"),
        loc.pick(".codex/skills", codex_home(loc.paths) / "skills"),
    ),
    skill_dialect=_skill_dialect,
    mcp=McpTarget(
        lambda loc: loc.pick(".codex/config.toml", codex_home(loc.paths) / "config.toml"),
        "toml", lambda _loc, name: ("mcp_servers", name), mcp_dialects.codex,
    ),
    agents=AgentFormat(
        folder=lambda loc: loc.pick(".codex/agents", codex_home(loc.paths) / "agents"),
        suffix=".toml",
        allowed=frozenset({
            "model", "model_reasoning_effort", "sandbox_mode", "approval_policy",
            "nickname_candidates", "model_verbosity",
        }),
    ),
)
