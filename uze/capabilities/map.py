"""Capability rows, read top to bottom: (harness, kind, feature) -> route, reason, source.

Sources name the section of docs/reference/harnesses.md (or real-harness-probes.md, or a
test of ours) the row rests on. A harness or feature with no row is unsupported, with a reason,
never silently native.
"""

from __future__ import annotations

from typing import Final

import msgspec

from uze.vocabulary import Route


class Capability(msgspec.Struct, frozen=True):
    """How one harness carries one feature of one resource kind."""

    route: Route
    reason: str
    source: str


def _c(route: Route, reason: str, source: str) -> Capability:
    return Capability(route, reason, source)


_NATIVE_POLICY = "native"
_AS_SKILL = ("{harness} has no command files uze writes: delivered as a skill only the user "
             "invokes ($ARGUMENTS is not substituted)")
CAPABILITIES: Final[dict[tuple[str, str, str], Capability]] = {
    # --- Claude Code (harnesses.md 1) -------------------------------------------------------
    ("claude_code", "instructions", "base"): _c(
        "adapted", "Claude Code reads CLAUDE.md, not AGENTS.md: the text is copied into a "
        "CLAUDE.md region", "harnesses.md 1.1"),
    ("claude_code", "skill", "base"): _c("native", "", "harnesses.md 1.2"),
    ("claude_code", "skill", "invoke.user_only"): _c("native", "", "harnesses.md 1.3"),
    ("claude_code", "skill", "invoke.model_only"): _c("native", "", "harnesses.md 1.3"),
    ("claude_code", "agent", "base"): _c("native", "", "harnesses.md 1.4"),
    ("claude_code", "mcp", "base"): _c("native", "", "harnesses.md 1.5, probes 2.1"),
    ("claude_code", "hook", "base"): _c("native", "", "harnesses.md 1.6 (per group: uze/hooks)"),
    ("claude_code", "hook", "protocol.claude"): _c(
        "native", "", "harnesses.md 1.6 (groups verbatim; uze/hooks/claude.py), "
        "tests/conformance/test_claude_hooks.py"),
    ("claude_code", "command", "base"): _c(
        "native", "", "harnesses.md 1, tests/conformance (claude -p /context slash_commands)"),
    # --- Codex (harnesses.md 2, real-harness-probes.md 3) -----------------------------------
    ("codex", "command", "base"): _c(
        "adapted", _AS_SKILL.format(harness="Codex"),
        "harnesses.md 2.3, tests/conformance (codex app-server skills/list)"),
    ("codex", "instructions", "base"): _c("native", "", "harnesses.md 2.1"),
    ("codex", "skill", "base"): _c("native", "", "harnesses.md 2.2"),
    ("codex", "skill", "invoke.user_only"): _c(
        "adapted", "user-only policy written as agents/openai.yaml "
        "policy.allow_implicit_invocation: false", "harnesses.md 2.3"),
    ("codex", "skill", "invoke.model_only"): _c(
        "degraded", "Codex cannot hide a skill from $ mentions and /skills: users can still "
        "invoke this model-only skill", "harnesses.md 2.3"),
    ("codex", "mcp", "base"): _c("native", "", "harnesses.md 2.5, probes 3.1"),
    ("codex", "hook", "base"): _c(
        "adapted", "Codex runs it only after the user trusts it in /hooks (hook trust gate)",
        "harnesses.md 2.6"),
    ("codex", "hook", "protocol.claude"): _c(
        "adapted", "Claude-protocol hooks run by uze's translating wrapper (Claude hook JSON in, "
        "the answer as Codex's decision) on PreToolUse, PostToolUse, Stop, SessionStart, "
        "UserPromptSubmit; a "
        "PreToolUse shell guard is degraded (unified_exec); trust gate as for every hook",
        "adr/0034, tests/conformance/test_claude_hooks.py (per group: uze/hooks/claude.py)"),
    ("codex", "mcp", "project"): _c(
        "adapted", "written to .codex/config.toml, which Codex reads only when the project is "
        "trusted in the user's config.toml", "probes 3.1"),
    ("codex", "agent", "base"): _c(
        "adapted", "generated as a Codex agent TOML file (developer_instructions = body); "
        "project agents load only in a trusted project", "harnesses.md 2.4, probes 3.1"),
    # --- OpenCode (harnesses.md 3, probes 5) ------------------------------------------------
    ("opencode", "instructions", "base"): _c("native", "", "harnesses.md 3.1"),
    ("opencode", "skill", "base"): _c("native", "", "harnesses.md 3.2"),
    ("opencode", "skill", "invoke.user_only"): _c(
        "degraded", "OpenCode has no switch that stops the model from invoking a skill: the "
        "model can still run this user-only skill", "harnesses.md 3.3"),
    ("opencode", "skill", "invoke.model_only"): _c(
        "degraded", "every OpenCode skill is also a /command: users can still invoke this "
        "model-only skill", "harnesses.md 3.3"),
    ("opencode", "mcp", "base"): _c("native", "", "harnesses.md 3.5, probes 5.1"),
    ("opencode", "agent", "base"): _c(
        "native", "", "harnesses.md 3.4 (mode: subagent)"),
    ("opencode", "hook", "base"): _c(
        "adapted", "OpenCode has no command hooks: a generated plugin uze-<package>.js runs the "
        "hook wrappers (block = throw in tool.execute.before; no ask, no allow)",
        "harnesses.md 3.6, probes 5.4, tests/conformance (per group: uze/hooks)"),
    ("opencode", "command", "base"): _c(
        "adapted", "an OpenCode command (.opencode/commands)",
        "harnesses.md 3, tests/conformance (opencode debug config: command)"),
    ("opencode", "hook", "protocol.claude"): _c(
        "adapted", "Claude-protocol PreToolUse hooks run by uze's translating wrapper from the "
        "generated plugin uze-<package>.js (a block throws in tool.execute.before); its other "
        "events only observe, so Claude-protocol groups on them are unsupported",
        "adr/0034, tests/conformance/test_claude_hooks.py (per group: uze/hooks/claude.py)"),
    # --- Gemini CLI (harnesses.md 4) --------------------------------------------------------
    ("gemini_cli", "instructions", "base"): _c(
        "adapted", "Gemini CLI reads GEMINI.md, not AGENTS.md: the text is copied into a "
        "GEMINI.md region", "harnesses.md 4.1"),
    ("gemini_cli", "skill", "base"): _c("native", "", "harnesses.md 4.2"),
    ("gemini_cli", "skill", "invoke.user_only"): _c(
        "degraded", "Gemini CLI has no invocation switch: the model can still activate this "
        "user-only skill (after a consent prompt)", "harnesses.md 4.3"),
    ("gemini_cli", "skill", "invoke.model_only"): _c(
        "native", "", "harnesses.md 4.2 (skills are activated by the model)"),
    ("gemini_cli", "agent", "base"): _c("native", "", "harnesses.md 4.4"),
    ("gemini_cli", "mcp", "base"): _c("native", "", "harnesses.md 4.5, probes 4.1"),
    ("gemini_cli", "hook", "base"): _c("native", "", "harnesses.md 4.6 (renamed events)"),
    ("gemini_cli", "hook", "protocol.claude"): _c(
        "adapted", "Claude-protocol hooks run by uze's translating wrapper (Claude hook JSON in, "
        "the answer as Gemini CLI's decision) on PreToolUse, PostToolUse, Stop, SessionStart, "
        "UserPromptSubmit",
        "adr/0034, tests/conformance/test_claude_hooks.py (per group: uze/hooks/claude.py)"),
    ("gemini_cli", "mcp", "project"): _c(
        "adapted", "written to .gemini/settings.json, which Gemini CLI reads only in a trusted "
        "folder", "probes 4.1"),
    ("gemini_cli", "command", "base"): _c(
        "adapted", _AS_SKILL.format(harness="Gemini CLI"),
        "harnesses.md 4.2, tests/conformance (gemini skills list)"),
    # --- Antigravity (harnesses.md 5: mostly third-party, unverified) -----------------------
    ("antigravity", "instructions", "base"): _c(
        "native", "", "harnesses.md 5.1 (unverified: third-party)"),
    ("antigravity", "skill", "base"): _c("native", "", "harnesses.md 5.2 (unverified)"),
    ("antigravity", "skill", "invoke.user_only"): _c(
        "degraded", "Antigravity documents no invocation policy: the model can still run this "
        "user-only skill", "harnesses.md 5.2"),
    ("antigravity", "skill", "invoke.model_only"): _c(
        "degraded", "Antigravity documents no invocation policy: users can still run this "
        "model-only skill", "harnesses.md 5.2"),
    ("antigravity", "mcp", "base"): _c("native", "", "harnesses.md 5.4 (unverified)"),
    ("antigravity", "hook", "base"): _c(
        "adapted", "named entries in hooks.json; the format is unverified third-party "
        "documentation (agy drops the whole file on any schema error)",
        "harnesses.md 5.5 (unverified; per group: uze/hooks)"),
    ("antigravity", "command", "base"): _c(
        "adapted", _AS_SKILL.format(harness="Antigravity"), "harnesses.md 5.2 (unverified)"),
    ("antigravity", "hook", "protocol.claude"): _c(
        "unsupported", "Claude-protocol hook; no translation to antigravity", "adr/0034"),
    # --- Kimi Code (harnesses.md 6.1) -------------------------------------------------------
    ("kimi_code", "instructions", "base"): _c("native", "", "harnesses.md 6.1"),
    ("kimi_code", "skill", "base"): _c("native", "", "harnesses.md 6.1"),
    ("kimi_code", "skill", "invoke.user_only"): _c(
        "adapted", "user-only policy written as Kimi Code's disableModelInvocation: true",
        "harnesses.md 6.1"),
    ("kimi_code", "skill", "invoke.model_only"): _c(
        "degraded", "Kimi Code has no model-only switch: users can still invoke this skill",
        "harnesses.md 6.1"),
    ("kimi_code", "agent", "base"): _c("native", "", "harnesses.md 6.1"),
    ("kimi_code", "mcp", "base"): _c("native", "", "harnesses.md 6.1"),
    ("kimi_code", "hook", "base"): _c("native", "", "harnesses.md 6.1 (user config only)"),
    ("kimi_code", "command", "base"): _c(
        "adapted", _AS_SKILL.format(harness="Kimi Code"), "harnesses.md 6.1 (not yet verified)"),
    ("kimi_code", "hook", "protocol.claude"): _c(
        "unsupported", "Claude-protocol hook; no translation to kimi_code", "adr/0034"),
    # --- DeepSeek Harness (harnesses.md 7) --------------------------------------------------
    ("deepseek_harness", "instructions", "base"): _c("native", "", "harnesses.md 7"),
    ("deepseek_harness", "skill", "base"): _c("native", "", "harnesses.md 7"),
    ("deepseek_harness", "skill", "invoke.user_only"): _c("native", "", "harnesses.md 7"),
    ("deepseek_harness", "skill", "invoke.model_only"): _c("native", "", "harnesses.md 7"),
    ("deepseek_harness", "command", "base"): _c(
        "adapted", _AS_SKILL.format(harness="DeepSeek Harness"), "harnesses.md 7"),
}

# Kinds with no row for a harness: why, in one line (shown instead of a generic message).
UNSUPPORTED: Final[dict[tuple[str, str], str]] = {
    ("antigravity", "agent"): "Antigravity loads custom agents only from a plugin's agents/ "
    "folder (format unverified); uze does not generate Antigravity plugins",
    ("deepseek_harness", "hook"): "DeepSeek Harness runs hooks only through its "
    "dsh-hooks-claude-code bridge plugin, which takes ONE configPath per process in a profile's "
    "cordis.patch.yml: uze would edit the user's profile and two packages would clash "
    "(adr/0010)",
    ("deepseek_harness", "mcp"): "DeepSeek Harness takes MCP servers as dsh-mcp-client rows "
    "in a profile's cordis.patch.yml, which uze does not edit yet",
    ("deepseek_harness", "agent"): "DeepSeek Harness has no Markdown agents, only Cordis agent "
    "presets (agent.cordis.yml), which uze does not generate",
}


def lookup(harness: str, kind: str, feature: str = "base") -> Capability:
    """The capability row, or an unsupported row that says why."""
    found = CAPABILITIES.get((harness, kind, feature))
    if found is not None:
        return found
    if feature != "base" and (harness, kind, "base") in CAPABILITIES:
        return Capability("unsupported", f"{harness} cannot express {kind} {feature}", "none")
    why = UNSUPPORTED.get((harness, kind),
                          f"uze does not deliver {kind} resources to {harness} yet")
    return Capability("unsupported", why, "none")
