"""The readers of the harnesses' own listings (uze/doctor/probes.py) on output shaped like the real
binaries' (real-harness-probes.md; the conformance suite runs them on the real thing)."""

from __future__ import annotations

import json
import subprocess

import pytest

from uze.doctor.probe_run import DOCTOR_PROBES
from uze.doctor.probes import (
    claude_listed,
    claude_mcp,
    codex_agents,
    codex_mcp,
    gemini_mcp,
    gemini_project_hooks,
    gemini_skills,
    opencode_agents,
    opencode_mcp,
    opencode_skills,
    probe_env,
    regions_seen,
)


def test_regions_are_counted_per_package_with_or_without_a_region_id() -> None:
    text = (
        "mine\n<!-- uze:begin flow -->\na\n<!-- uze:end flow -->\n"
        "<!-- uze:begin flow/extra -->\nb\n<!-- uze:end flow/extra -->\n"
        "<!-- uze:begin other -->\n<!-- uze:end other -->\n<!-- uze:end flow -->\n"
    )
    assert regions_seen(text) == {"flow": 2, "other": 1}


def test_claude_counts_each_name_once_though_init_and_the_context_table_both_list_it() -> None:
    events = [
        {"type": "system", "subtype": "init", "skills": ["pkg-review", "pkg-user-only"]},
        {"type": "result", "result": "### Skills\n| Skill | Tokens |\n|---|---|\n"
         "| pkg-review | 10 |\n| pkg-model-only | 5 |\n\n### Other\n| x |\n"},
    ]
    seen = claude_listed(events, "Skills", "skills")
    assert seen.counts == {"pkg-review": 1, "pkg-user-only": 1, "pkg-model-only": 1}


def test_mcp_listings_count_servers_and_say_which_are_connected() -> None:
    claude = claude_mcp("docs: /x/server.sh - ✔ Connected\nsearch: http://h/mcp - ✗ Failed\n")
    assert (claude.counts, claude.connected) == ({"docs": 1, "search": 1}, frozenset({"docs"}))
    gemini = gemini_mcp("✓ docs: /x/s.sh (stdio) - Connected\n"
                        "✗ search (from pkg): u - Disconnected\n")
    assert (gemini.counts, gemini.connected) == ({"docs": 1, "search": 1}, frozenset({"docs"}))
    opencode = opencode_mcp("\x1b[0m●  ✓ docs \x1b[2mconnected\n"
                            "│      /x/s.sh\n●  ✗ search failed\n")
    assert opencode.counts == {"docs": 1, "search": 1}
    codex = codex_mcp(json.dumps([{"name": "docs", "enabled": True},
                                  {"name": "off", "enabled": False}]))
    assert (codex.counts, codex.connected) == ({"docs": 1}, None)


def test_skill_and_agent_listings_leave_out_built_ins_and_disabled_entries() -> None:
    skills = [{"name": "pkg-a", "location": "/p/.opencode/skills/pkg-a/SKILL.md"},
              {"name": "customize-opencode", "location": "<built-in>"}]
    assert opencode_skills(json.dumps(skills)).counts == {"pkg-a": 1}
    assert gemini_skills("pkg-a [Enabled]\n  desc\npkg-b [Disabled]\n").counts == {"pkg-a": 1}
    agents = "build (primary)\n  [perm]\npkg-reviewer (subagent)\n  [perm]\n"
    assert opencode_agents(agents).counts == {"build": 1, "pkg-reviewer": 1}
    items = [{"type": "function", "parameters": {
        "agent_type": "Available roles:\npkg-reviewer: {\n  desc\n}\ndefault: {\n}"}}]
    assert codex_agents(items).counts == {"pkg-reviewer": 1, "default": 1}


def test_gemini_names_project_hooks_only_inside_its_warning_block() -> None:
    out = ("WARNING: The following project-level hooks have been detected:\n"
           "  - pkg/no-force-push\n  - pkg/log-edits\n\n  - pkg/not-in-block\n")
    assert gemini_project_hooks(out, "pkg") == {"no-force-push": 1, "log-edits": 1}


def test_doctor_probes_read_what_their_command_prints() -> None:
    (skills, agents, mcp) = DOCTOR_PROBES["opencode"]
    done = subprocess.CompletedProcess(["opencode"], 0, json.dumps([
        {"name": "pkg-a", "location": "/p/x"}]), "")
    assert skills.read(done)["skill"].counts == {"pkg-a": 1}
    assert (skills.args, agents.args, mcp.args) == (
        ("debug", "skill"), ("agent", "list"), ("mcp", "list"))


def test_the_probe_environment_keeps_the_users_and_adds_only_offline_settings() -> None:
    env = probe_env({"HOME": "/h", "PATH": "/bin", "ANTHROPIC_API_KEY": "k"})
    assert (env["HOME"], env["PATH"], env["ANTHROPIC_API_KEY"]) == ("/h", "/bin", "k")
    assert env["ANTHROPIC_BASE_URL"].startswith("http://127.0.0.1:")
    assert env["DISABLE_AUTOUPDATER"] == "1" and env["npm_config_offline"] == "true"
    assert all(not v.startswith("https://") for v in env.values())


def test_every_probe_a_harness_names_is_one_the_doctor_has_and_none_is_left_unnamed() -> None:
    from uze.doctor.probes import PROBES, probes_of
    from uze.harnesses import REGISTRY

    named = [name for h in REGISTRY.values() for name in h.doctor.probes]
    assert sorted(named) == sorted(PROBES)
    assert all(probes_of(h.doctor.probes) for h in REGISTRY.values() if h.doctor.probes)
    with pytest.raises(KeyError, match="no such probe"):
        probes_of(("no such probe",))
