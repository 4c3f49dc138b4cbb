"""Codex CLI: AGENTS.md, `.agents/skills/<name>/`, policy in agents/openai.yaml (harnesses.md 2)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final

from uze.harnesses import mcp
from uze.harnesses.base import (
    AS_SKILL,
    SAME_EVENTS,
    AgentFormat,
    Capability,
    DoctorFacts,
    Envelope,
    Harness,
    HookProtocol,
    HookTarget,
    Instructions,
    McpTarget,
    Power,
    ProjectForms,
    SkillDialect,
    Skills,
    TrustFacts,
    cap,
    hook_events,
)
from uze.harnesses.skill_switches import SkillOff
from uze.paths import Paths

if TYPE_CHECKING:
    from uze.package import InvokePolicy, McpServer

OPENAI_YAML = "agents/openai.yaml"


def codex_home(paths: Paths) -> Path:
    """`$CODEX_HOME`, else ~/.codex."""
    return paths.env_dir("CODEX_HOME", paths.home / ".codex")


def _openai_yaml(existing: bytes | None) -> bytes:
    """The skill's openai.yaml with policy.allow_implicit_invocation set to false."""
    import yaml  # here: the registry imports this module, and only this policy needs YAML
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


def _mcp_env(server: McpServer) -> tuple[dict[str, object], str]:
    """`env` (literal values) and `env_vars` (a variable passed on under its own name:
    `KEY = "${KEY}"`); a reference inside a value or under another name has no Codex form."""
    literal = {k: v for k, v in server.env.items() if not mcp.REF.search(v)}
    forwarded = [k for k, v in server.env.items() if v == f"${{{k}}}"]
    other = [k for k, v in server.env.items() if mcp.REF.search(v) and k not in forwarded]
    out: dict[str, object] = {}
    if literal:
        out["env"] = literal
    if forwarded:
        out["env_vars"] = forwarded
    problem = (f"Codex passes a variable to a server only under its own name (env_vars), and "
               f"expands no ${{...}} in env values ({', '.join(other)})" if other else "")
    return out, problem


def _mcp_remote(server: McpServer) -> mcp.Translated:
    if mcp.remote_kind(server) == "sse":
        return mcp.skip("Codex speaks stdio and streamable HTTP only, not SSE")
    value: dict[str, object] = {"url": server.url}
    plain, by_env = {}, {}
    for name, header in server.headers.items():
        if name.lower() == "authorization" and (m := mcp.BEARER.match(header)):
            value["bearer_token_env_var"] = m.group(1)
        elif m := mcp.WHOLE_REF.match(header):
            by_env[name] = m.group(1)
        elif mcp.REF.search(header):
            return mcp.skip(f"Codex cannot expand ${{...}} inside header {name!r}")
        else:
            plain[name] = header
    value |= ({"http_headers": plain} if plain else {}) | (
        {"env_http_headers": by_env} if by_env else {})
    return mcp.Translated(value)


def mcp_dialect(server: McpServer) -> mcp.Translated:
    """`[mcp_servers.<name>]` in config.toml (harnesses.md 2.5)."""
    if server.url:
        out = _mcp_remote(server)
    else:
        env, problem = _mcp_env(server)
        if problem:
            return mcp.skip(problem)
        value: dict[str, object] = {"command": server.command, "args": list(server.args), **env}
        if server.cwd:
            value["cwd"] = server.cwd
        out = mcp.Translated(value)
        if any(mcp.REF.search(text) for text in (server.command or "", *server.args,
                                                 server.cwd or "")):
            out.degraded.append("Codex's expansion of ${VAR} in a server's command, args or "
                                "cwd is unverified")
    if out.value is not None and not server.enabled:
        out.value["enabled"] = False
    if out.value is not None and server.codex_keys:  # a Codex plugin's own keys, as it gave them
        out.value.update({k: v for k, v in server.codex_keys.items() if k not in out.value})
    return out


CAPABILITIES: Final[dict[tuple[str, str], Capability]] = {
    ("command", "base"): cap(
        "adapted", AS_SKILL.format(harness="Codex"),
        "harnesses.md 2.3, tests/conformance (codex app-server skills/list)"),
    ("instructions", "base"): cap("native", "", "harnesses.md 2.1"),
    ("skill", "base"): cap("native", "", "harnesses.md 2.2"),
    ("skill", "invoke.user_only"): cap(
        "adapted", "user-only policy written as agents/openai.yaml "
        "policy.allow_implicit_invocation: false", "harnesses.md 2.3"),
    ("skill", "invoke.model_only"): cap(
        "degraded", "Codex cannot hide a skill from $ mentions and /skills: users can still "
        "invoke this model-only skill", "harnesses.md 2.3"),
    ("mcp", "base"): cap("native", "", "harnesses.md 2.5, probes 3.1"),
    ("hook", "base"): cap(
        "adapted", "Codex runs it only after the user trusts it in /hooks (hook trust gate)",
        "harnesses.md 2.6"),
    ("hook", "protocol.claude"): cap(
        "adapted", "Claude-protocol hooks run by uze's translating wrapper (Claude hook JSON in, "
        "the answer as Codex's decision) on PreToolUse, PostToolUse, Stop, SubagentStop, "
        "SessionStart, UserPromptSubmit; a PreToolUse shell guard is degraded (unified_exec), "
        "and so is PostToolUse (`continue: false` does not stop Codex); trust gate as for "
        "every hook",
        "adr/0034, adr/0050, tests/conformance/test_claude_hooks.py, test_claude_hook_events.py "
        "(per group: uze/hooks/claude.py)"),
    ("mcp", "project"): cap(
        "adapted", "written to .codex/config.toml, which Codex reads only when the project is "
        "trusted in the user's config.toml", "probes 3.1"),
    ("agent", "base"): cap(
        "adapted", "generated as a Codex agent TOML file (developer_instructions = body); "
        "project agents load only in a trusted project", "harnesses.md 2.4, probes 3.1"),
}
# What codex 0.171.0 was seen doing with the capability map's other events (adr/0089;
# tests/conformance/test_claude_hook_events.py, test_claude_session_events.py,
# test_portable_events.py), shared by portable and Claude-protocol groups.
NO_NOTIFICATION: Final = (
    "Codex has no notification hook event (0.171.0's are PreToolUse, PermissionRequest, "
    "PostToolUse, PreCompact, PostCompact, SessionStart, SessionEnd, UserPromptSubmit, Stop, "
    "SubagentStart, SubagentStop)")
COMPACT_UNSEEN: Final = (
    "Codex 0.171.0 has a PreCompact hook event, but uze has not seen it run a wrapper: "
    "`codex exec` compacts only past model_auto_compact_token_limit, and a run forced to "
    "compact (the limit at 1) with uze's scripted model did not finish")
END_CLAMP: Final = ("Codex clamps a SessionEnd hook's timeout to 3 s: a handler still running "
                    "then is stopped")
# Seen: tests/conformance/test_portable_events.py (a hand-written prompt handler is skipped).
MODEL_SKIPPED: Final = ("Codex 0.171.0 skips {kind} hook handlers ('skipping {kind} hook ...: "
                        "{kind} hooks are not supported yet')")
HOOK_EVENTS: Final = hook_events(
    {**SAME_EVENTS, "UserPromptSubmit": "UserPromptSubmit", "SubagentStop": "SubagentStop",
     "SessionEnd": "SessionEnd"},
    {"PreToolUse", "Stop", "UserPromptSubmit", "SubagentStop"}, ("command",),
    why_not={"PreCompact": COMPACT_UNSEEN, "Notification": NO_NOTIFICATION},
    limits={"SessionEnd": END_CLAMP})

HOOKS: Final = HookTarget(
    file=lambda loc: loc.pick(".codex/hooks.json", codex_home(loc.paths) / "hooks.json"),
    role="codex hooks", fmt="json", effects=frozenset({"observe", "deny"}),
    trust_note="Codex runs it only after the user trusts it in /hooks (hook trust gate)",
    shell_gap="Codex's PreToolUse does not see every shell path (unified_exec)",
)
# Codex: PreToolUse sees neither every shell path (unified_exec) nor web search (2.6).
TOOLS: Final = {
    "Bash": ("shell",),
    "shell": ("shell",),
    "apply_patch": ("file.edit", "file.write"),
    "Edit": ("file.edit",),
    "Write": ("file.write",),
}


POWERS: Final = (
    Power("agent", "approval_policy", "grants", "harnesses.md 2.4"),
    Power("agent", "sandbox_mode", "grants", "harnesses.md 2.4"),
    Power("agent", "mcp_servers", "runs", "harnesses.md 2.4"),
    Power("agent", "hooks", "runs", "harnesses.md 2.4, 2.6"),
)


def trusted_hook_files(paths: Paths) -> set[str]:
    """The hook files Codex's user config.toml holds a `[hooks.state."<file>:<event>:..."]`
    record with a `trusted_hash` for (real-harness-probes.md 3.1). Whether that hash is still
    the hook's current one only Codex can say (its recipe is not documented)."""
    import tomllib  # here: only `uze status` with a delivered Codex hook reads it

    config = codex_home(paths) / "config.toml"
    try:
        state = tomllib.loads(config.read_text(encoding="utf-8")).get("hooks", {}).get("state", {})
    except (OSError, ValueError, AttributeError):
        return set()
    if not isinstance(state, dict):
        return set()
    return {key.rsplit(":", 3)[0] for key, value in state.items()
            if isinstance(value, dict) and value.get("trusted_hash")}


# A package's own Codex plugin manifest (probes 3.2). uze does not install it as a Codex plugin
# (ADR 0043); `skills` naming the default folder is read anyway, other component keys are not.
ENVELOPE: Final = Envelope(
    "uze delivers the package to Codex resource by resource, not as a Codex plugin",
    manifest=".codex-plugin/plugin.json", keys=("skills", "hooks", "mcpServers", "apps"),
    read_anyway={"skills": "skills"})


# Project scope (adr/0039, measured with codex 0.171.0 in tests/conformance/test_teammate.py):
# the app-server connects a `./`-relative MCP command and a relative `cwd` (servers start in
# the session's folder); hook commands run in the session's folder, so `./.uze/hooks/...`.
PROJECT_FORMS = ProjectForms(mcp=".", hook=".",
                             source="adr/0039, tests/conformance/test_teammate.py")


HOOK_PROTOCOL: Final = HookProtocol(
    events=HOOK_EVENTS,
    tools=TOOLS,
    answer="exit2_pretool",
    claude_events={"PreToolUse": "PreToolUse", "PostToolUse": "PostToolUse", "Stop": "Stop",
                   "SubagentStop": "SubagentStop", "SessionStart": "SessionStart",
                   "UserPromptSubmit": "UserPromptSubmit", "SessionEnd": "SessionEnd"},
    claude_refused={
        "Notification": f"Claude-protocol hook on Notification: {NO_NOTIFICATION}",
        "PreCompact": f"Claude-protocol hook on PreCompact: {COMPACT_UNSEEN}",
    },
    # Seen with the real codex 0.171.0 (tests/conformance/test_claude_hook_events.py).
    claude_limits={"PostToolUse": (
        "a `continue: false` answer does not stop Codex after the tool: its stopReason "
        "replaces the tool's output for the model and the turn goes on"),
        "SessionEnd": END_CLAMP},
    # Codex already names its shell tool `Bash`; `apply_patch` matches `Edit` (CX-docs).
    claude_tools={"Bash": "Bash", "shell": "Bash", "apply_patch": "Edit"},
    handler_why={kind: MODEL_SKIPPED.format(kind=kind) for kind in ("prompt", "agent")},
)


HARNESS = Harness(
    id="codex",
    binary="codex",
    project_forms=PROJECT_FORMS,
    envelope=ENVELOPE,
    markers=(".codex",),
    home=codex_home,
    instructions=Instructions(
        lambda loc: loc.pick("AGENTS.md", codex_home(loc.paths) / "AGENTS.md")),
    # .agents/skills is documented; .codex/skills and $CODEX_HOME/skills were listed by the
    # real codex 0.171 (probes 3.1); $CODEX_HOME/skills is the deprecated user root.
    skills=Skills(lambda loc: (
        loc.pick(".agents/skills", loc.paths.home / ".agents" / "skills"),
        loc.pick(".codex/skills", codex_home(loc.paths) / "skills"),
    ), dialect=_skill_dialect, off=SkillOff(
        # codex 0.171.0 honours `[[skills.config]] name = ... enabled = false` in the user
        # config.toml only: skills/list says enabled: false and the model is not offered it; in
        # the project's .codex/config.toml it is ignored (tests/conformance/test_switches.py)
        lambda loc: codex_home(loc.paths) / "config.toml" if loc.scope == "user" else None,
        "toml", ("skills", "config"), lambda name: {"name": name, "enabled": False})),
    mcp=McpTarget(
        lambda loc: loc.pick(".codex/config.toml", codex_home(loc.paths) / "config.toml"),
        "toml", lambda _loc, name: ("mcp_servers", name), mcp_dialect,
    ),
    agents=AgentFormat(
        folder=lambda loc: loc.pick(".codex/agents", codex_home(loc.paths) / "agents"),
        suffix=".toml",
        allowed=frozenset({
            "model", "model_reasoning_effort", "sandbox_mode", "approval_policy",
            "nickname_candidates", "model_verbosity",
        }),
    ),
    capabilities=CAPABILITIES,
    hooks=HOOKS,
    hook_protocol=HOOK_PROTOCOL,
    trust=TrustFacts(powers=POWERS, hook_trust=trusted_hook_files),
    doctor=DoctorFacts(
        probes=("codex app-server", "codex debug prompt-input", "codex mcp list")),
)
