"""Exactly once per harness (issue 31 item 5, adr/0070), on the real binaries, both scopes.

A Claude-native plugin Claude Code gets whole (adr/0041) keeps its skills' frontmatter `name`
in the package; OpenCode scans Claude Code's skill root recursively, so the plugin copy would
be a second listing beside OpenCode's own. Installed for Claude Code, Codex, Gemini CLI and
OpenCode at once, each harness's own listing shows every skill and command exactly once, under
the label `uze status` records, and nothing else of the package:

* `claude -p /context`: `plan-kit:brainstorming`, `plan-kit:plan-kit` (skills), `plan-kit:tidy`;
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
    (dest / "commands").mkdir()
    (dest / "commands" / "tidy.md").write_text(
        "---\ndescription: Tidy the named files (uze exactly-once probe)\n---\nTidy $ARGUMENTS.\n",
        encoding="utf-8")
    return dest


def _claude(lab: Lab) -> Seen:
    events = probes.claude_events(lab.run("claude", *probes.CLAUDE_CONTEXT).stdout)
    init, _markdown = probes.claude_context(events)
    skills = init.get("skills") or []  # a skill is a slash command too: counted once
    names = [*skills, *(c for c in init.get("slash_commands") or [] if c not in skills)]
    return Seen(probes.count(names), json.dumps(names))


def _codex_skills(lab: Lab) -> Seen:
    params: dict[str, object] = {"cwds": [str(lab.sandbox.project)]}
    (result,) = lab.rpc("codex", probes.CODEX_APP_SERVER, [("skills/list", params)])
    return probes.codex_skills(result["data"][0])  # type: ignore[index]


def _opencode(lab: Lab) -> Seen:
    skills = probes.opencode_skills(lab.run("opencode", *probes.OPENCODE_SKILLS).stdout)
    config = json.loads(lab.run("opencode", "debug", "config").stdout)
    commands = [f"/{name}" for name in config.get("command") or {}]
    return Seen(skills.counts + probes.count(commands), f"{skills.evidence}\n{commands}")


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
# What each listing must show of the package, each exactly once (`/name`: a command).
EXPECTED = {
    "claude_code": {f"{NAME}:brainstorming", f"{NAME}:{NAME}", f"{NAME}:tidy"},
    "codex": {f"{NAME}-brainstorming", NAME, f"{NAME}-tidy"},
    "gemini_cli": {f"{NAME}-brainstorming", NAME, f"/{NAME}-tidy"},
    "opencode": {f"{NAME}-brainstorming", NAME, f"/{NAME}-tidy"},
}


def _ours(harness: str, seen: Seen) -> dict[str, int]:
    """The listed names that belong to the package: its labels and its skills' own names."""
    mine = ("brainstorming", "tidy", NAME)
    return {name: n for name, n in seen.counts.items()
            if name.lstrip("/") in mine or name.lstrip("/").startswith(f"{NAME}")}


def _rows(lab: Lab, scope: str) -> dict[tuple[str, str], dict[str, Any]]:
    status = json.loads(lab.uze("status", NAME, "--json", "--scope", scope).stdout)
    return {(p["kind"], p["harness"]): p for p in status["packages"][0]["projections"]
            if p["resource"] in ("brainstorming", "tidy")}


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
        labels = {rows[(kind, harness)]["label"] for kind in ("skill", "command")}
        assert labels <= {n.lstrip("/") for n in EXPECTED[harness]}, (harness, labels)
        assert rows[("skill", harness)]["route"] == "native", rows[("skill", harness)]

    # the command as a user-only skill: Codex's model is not offered it (the row says how)
    codex = rows[("command", "codex")]
    assert codex["route"] != "native" and "allow_implicit_invocation: false" in codex["reason"]
    offered = lab.run("codex", *probes.CODEX_PROMPT_INPUT).stdout
    assert f"{NAME}-brainstorming" in offered and f"{NAME}-tidy" not in offered, offered[:6000]

    lab.uze("uninstall", NAME, "--scope", scope)
    for harness in HARNESSES:
        assert not _ours(harness, LISTINGS[harness](lab)), harness
