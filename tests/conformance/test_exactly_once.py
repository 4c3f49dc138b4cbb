"""Exactly once per harness (issue 31 item 5, adr/0070), on the real binaries, both scopes.

A Claude-native plugin Claude Code gets whole (adr/0041) keeps its skills' frontmatter `name`
in the package; OpenCode scans Claude Code's skill root recursively, so the plugin copy would
be a second listing beside OpenCode's own. Installed for Claude Code, Codex, Gemini CLI and
OpenCode at once, each harness's own listing shows every skill and command exactly once, under
the label `uze status` records, and nothing else of the package; its agent too, named with the
package's prefix and never given it twice:

* `claude -p /context`: `plan-kit:brainstorming`, `plan-kit:plan-kit` (skills), `plan-kit:tidy`,
  the agent `plan-kit:plan-kit-reader` (Claude Code's label for a plugin agent by its `name`);
* `opencode agent list` and Codex's spawn_agent roles: `plan-kit-reader`;
* `opencode debug skill`: `plan-kit-brainstorming` and `plan-kit` (the package named once),
  no `brainstorming` from the plugin copy, no command offered as a skill (`debug config`
  `command` lists `plan-kit-tidy`);
* `gemini skills list`: the two skills, and its TOML command `/plan-kit-tidy` (expanded by
  `gemini -p`), not also a skill;
* `codex` app-server `skills/list`: the two skills and `plan-kit-tidy`, the command as a
  user-only skill in `.codex/skills` (not `.agents/skills`, which OpenCode and Gemini CLI read),
  and Codex's model input does not name it.

The package is written here (no copy of a published plugin).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.contracts import Oracle, Seen
from tests.conformance.evidence import EvidenceRun
from tests.conformance.lab import Lab, prepare_user_state, require
from tests.conformance.oracles import REAL_HARNESSES
from tests.conftest import Sandbox
from uze.doctor import probes

pytestmark = pytest.mark.conformance
NAME = "plan-kit"
AGENT = f"{NAME}-reader"  # already names the package: `plan-kit-reader`, never doubled
HARNESSES = ("claude_code", "codex", "gemini_cli", "opencode")
BINARIES = {"claude_code": "claude", "codex": "codex", "gemini_cli": "gemini",
            "opencode": "opencode"}


def build_plugin(dest: Path) -> Path:
    """A Claude-layout plugin: a skill named by its frontmatter, a skill named as the package,
    one command (its body takes the arguments, which `gemini -p "/<command> ARG"` shows)."""
    (dest / ".claude-plugin").mkdir(parents=True)
    manifest = {"name": NAME, "version": "1.0.0", "description": "Planning helpers."}
    (dest / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest), encoding="utf-8")
    for skill, what in (("brainstorming", "Explore ideas first"), (NAME, "Plan the work")):
        (dest / "skills" / skill).mkdir(parents=True)
        (dest / "skills" / skill / "SKILL.md").write_text(
            f"---\nname: {skill}\ndescription: {what} (uze exactly-once probe)\n---\n{what}.\n",
            encoding="utf-8")
    (dest / "agents").mkdir()
    (dest / "agents" / "reader.md").write_text(
        f"---\nname: {AGENT}\ndescription: Reads files (uze exactly-once probe)\n---\nRead.\n",
        encoding="utf-8")
    (dest / "commands").mkdir()
    (dest / "commands" / "tidy.md").write_text(
        "---\ndescription: Tidy the named files (uze exactly-once probe)\n---\nTidy $ARGUMENTS.\n",
        encoding="utf-8")
    return dest


def _claude(lab: Lab) -> Seen:
    events = probes.claude_events(lab.run("claude", *probes.CLAUDE_CONTEXT).stdout)
    init, _markdown = probes.claude_context(events)
    skills = init.get("skills") or []  # a skill is a slash command too: counted once
    names = [*skills, *(c for c in init.get("slash_commands") or [] if c not in skills),
             *(f"@{a}" for a in init.get("agents") or [])]
    return Seen(probes.count(names), json.dumps(names))


def _codex_skills(lab: Lab) -> Seen:
    params: dict[str, object] = {"cwds": [str(lab.sandbox.project)]}
    (result,) = lab.rpc("codex", probes.CODEX_APP_SERVER, [("skills/list", params)])
    skills = probes.codex_skills(result["data"][0])  # type: ignore[index]
    agents = probes.codex_agents(json.loads(lab.run("codex", *probes.CODEX_PROMPT_INPUT).stdout))
    roles = probes.count(f"@{name}" for name in agents.counts.elements())
    return Seen(skills.counts + roles, f"{skills.evidence}\n{agents.evidence}")


def _opencode(lab: Lab) -> Seen:
    skills = probes.opencode_skills(lab.run("opencode", *probes.OPENCODE_SKILLS).stdout)
    config = json.loads(lab.run("opencode", "debug", "config").stdout)
    commands = [f"/{name}" for name in config.get("command") or {}]
    agents = probes.opencode_agents(lab.run("opencode", *probes.OPENCODE_AGENTS).stdout)
    roles = probes.count(f"@{name}" for name in agents.counts.elements())
    return Seen(skills.counts + probes.count(commands) + roles,
                f"{skills.evidence}\n{commands}\n{agents.evidence}")


def _gemini(lab: Lab) -> Seen:
    skills = probes.gemini_skills(lab.run("gemini", *probes.GEMINI_SKILLS).stdout)
    oracle = REAL_HARNESSES["gemini_cli"].entry("command", "project")
    assert isinstance(oracle, Oracle)
    commands = oracle.read(lab)  # each TOML command gemini -p expands (either scope)
    listed = probes.count(f"/{name}" for name in commands.counts.elements())
    return Seen(skills.counts + listed, f"{skills.evidence}\n{commands.evidence}")


LISTINGS: dict[str, Callable[[Lab], Seen]] = {
    "claude_code": _claude,
    "codex": _codex_skills,
    "gemini_cli": _gemini,
    "opencode": _opencode,
}
# What each listing must show of the package, each exactly once (`/name`: a command, `@name`:
# an agent; Gemini CLI has no offline agent listing, tests/conformance/oracles.py).
EXPECTED = {
    "claude_code": {f"{NAME}:brainstorming", f"{NAME}:{NAME}", f"{NAME}:tidy",
                    f"@{NAME}:{AGENT}"},
    "codex": {f"{NAME}-brainstorming", NAME, f"{NAME}-tidy", f"@{AGENT}"},
    "gemini_cli": {f"{NAME}-brainstorming", NAME, f"/{NAME}-tidy"},
    "opencode": {f"{NAME}-brainstorming", NAME, f"/{NAME}-tidy", f"@{AGENT}"},
}


def _ours(harness: str, seen: Seen) -> dict[str, int]:
    """The listed names that belong to the package: its labels and its skills' own names."""
    mine = ("brainstorming", "tidy", "reader", NAME)
    return {name: n for name, n in seen.counts.items()
            if name.lstrip("/@") in mine or name.lstrip("/@").startswith(f"{NAME}")}


def _rows(lab: Lab, scope: str) -> dict[tuple[str, str], dict[str, Any]]:
    status = json.loads(lab.uze("status", NAME, "--json", "--scope", scope).stdout)
    return {(p["kind"], p["harness"]): p for p in status["packages"][0]["projections"]
            if p["resource"] in ("brainstorming", "tidy", AGENT)}


@pytest.mark.parametrize("scope", ("project", "user"))
def test_a_whole_claude_plugin_is_listed_exactly_once_by_every_harness(
    sandbox: Sandbox, evidence: EvidenceRun, scope: str
) -> None:
    for binary in BINARIES.values():
        require(binary)
    prepare_user_state(sandbox)
    lab = Lab(sandbox, build_plugin(sandbox.root / "packages" / NAME))
    lab.uze("install", str(lab.package), "--harness", ",".join(HARNESSES), "--scope", scope,
            "--trust")
    rows = _rows(lab, scope)

    for harness in HARNESSES:
        with evidence.check(harness, "skill.discovery", scope):
            seen = LISTINGS[harness](lab)
            assert _ours(harness, seen) == dict.fromkeys(EXPECTED[harness], 1), (
                f"{harness} should list each of {sorted(EXPECTED[harness])} exactly once "
                f"and nothing else of {NAME}\n{seen.evidence[:6000]}")
        kinds = ("skill", "command") if harness == "gemini_cli" else ("skill", "command", "agent")
        labels = {rows[(kind, harness)]["label"] for kind in kinds}
        assert labels <= {n.lstrip("/@") for n in EXPECTED[harness]}, (harness, labels)
        assert rows[("skill", harness)]["route"] == "native", rows[("skill", harness)]

    # the command as a user-only skill: Codex's model is not offered it (the row says how)
    codex = rows[("command", "codex")]
    assert codex["route"] != "native" and "allow_implicit_invocation: false" in codex["reason"]
    offered = lab.run("codex", *probes.CODEX_PROMPT_INPUT).stdout
    assert f"{NAME}-brainstorming" in offered and f"{NAME}-tidy" not in offered, offered[:6000]

    lab.uze("uninstall", NAME, "--scope", scope)
    for harness in HARNESSES:
        assert not _ours(harness, LISTINGS[harness](lab)), harness
