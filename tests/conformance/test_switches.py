"""`uze disable` / `uze enable` on the real binaries, both scopes (issue 33 item 6, adr/0087).

A portable package with two skills, installed for Claude Code, Codex and OpenCode:

* `uze disable NAME --harness claude_code`: `claude plugin list` shows `NAME@skills-dir`
  `disabled` (its own `enabledPlugins` switch) and `claude -p /context` lists neither skill;
  Codex and OpenCode still list both;
* `uze disable NAME:hello --harness codex,opencode` (the skill folder both read): Codex's
  `skills/list` and `opencode debug skill` no longer list `NAME-hello`, still `NAME-bye`;
* `uze enable NAME`: every listing shows both skills again, and the project and home hold the
  bytes they held after install (the receipt's add counters aside).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.evidence import EvidenceRun
from tests.conformance.lab import Lab, prepare_user_state, require
from tests.conftest import Sandbox
from tests.helpers import tree_bytes
from uze.doctor import probes

pytestmark = pytest.mark.conformance
NAME = "switch-kit"
HARNESSES = ("claude_code", "codex", "opencode")
SKILLS = ("hello", "bye")


def build_package(dest: Path) -> Path:
    """A portable package: plugin.json and two skills."""
    dest.mkdir(parents=True)
    (dest / "plugin.json").write_text(json.dumps({"name": NAME, "version": "1.0.0"}),
                                      encoding="utf-8")
    for skill in SKILLS:
        (dest / "skills" / skill).mkdir(parents=True)
        (dest / "skills" / skill / "SKILL.md").write_text(
            f"---\nname: {skill}\ndescription: Say {skill} (uze switch probe)\n---\n{skill}.\n",
            encoding="utf-8")
    return dest


def _claude(lab: Lab) -> set[str]:
    init, _ = probes.claude_context(probes.claude_events(
        lab.run("claude", *probes.CLAUDE_CONTEXT).stdout))
    return {s for s in init.get("skills") or [] if s.startswith(f"{NAME}:")}


def _claude_plugin(lab: Lab) -> str:
    """The status line `claude plugin list` prints under NAME@skills-dir."""
    out = lab.run("claude", "plugin", "list").stdout
    block = out.split(f"{NAME}@skills-dir", 1)[1]
    return next(line.strip() for line in block.splitlines() if "Status:" in line)


def _codex(lab: Lab) -> set[str]:
    params: dict[str, object] = {"cwds": [str(lab.sandbox.project)]}
    (result,) = lab.rpc("codex", probes.CODEX_APP_SERVER, [("skills/list", params)])
    seen = probes.codex_skills(result["data"][0])  # type: ignore[index]
    return {s for s in seen.counts if s.startswith(NAME)}


def _opencode(lab: Lab) -> set[str]:
    seen = probes.opencode_skills(lab.run("opencode", *probes.OPENCODE_SKILLS).stdout)
    return {s for s in seen.counts if s.startswith(NAME)}


def _listed(lab: Lab) -> dict[str, set[str]]:
    return {"claude_code": _claude(lab), "codex": _codex(lab), "opencode": _opencode(lab)}


# What uze writes for these harnesses (the binaries keep their own state beside it).
_OURS = (".claude/skills", ".claude/settings.json", ".agents", ".codex/skills", ".opencode",
         ".config/opencode", "uze.toml", "uze.lock")


def _state(sandbox: Sandbox) -> dict[str, dict[str, bytes | str]]:
    return {name: {k: v for k, v in tree_bytes(root).items() if k.startswith(_OURS)}
            for name, root in (("project", sandbox.project), ("home", sandbox.home))}


@pytest.mark.parametrize("scope", ("project", "user"))
def test_disable_and_enable_switch_what_the_real_binaries_list(
        sandbox: Sandbox, evidence: EvidenceRun, scope: str) -> None:
    for binary in ("claude", "codex", "opencode"):
        require(binary)
    prepare_user_state(sandbox)
    lab = Lab(sandbox, build_package(sandbox.root / "packages" / NAME))
    lab.uze("install", str(lab.package), "--harness", ",".join(HARNESSES), "--scope", scope)
    every = {"claude_code": {f"{NAME}:{s}" for s in SKILLS},
             "codex": {f"{NAME}-{s}" for s in SKILLS},
             "opencode": {f"{NAME}-{s}" for s in SKILLS}}
    assert _listed(lab) == every
    assert _claude_plugin(lab) == "Status: ✔ loaded"
    installed = _state(sandbox)

    lab.uze("disable", NAME, "--harness", "claude_code", "--scope", scope)

    with evidence.check("claude_code", "skill.discovery", scope):
        assert _claude_plugin(lab) == "Status: ✘ disabled"
        assert _listed(lab) == every | {"claude_code": set()}

    lab.uze("disable", f"{NAME}:hello", "--harness", "codex,opencode", "--scope", scope)

    for harness in ("codex", "opencode"):
        with evidence.check(harness, "skill.discovery", scope):
            assert _listed(lab)[harness] == {f"{NAME}-bye"}

    lab.uze("enable", NAME, "--scope", scope)

    assert _listed(lab) == every
    assert _claude_plugin(lab) == "Status: ✔ loaded"
    assert _state(sandbox) == installed
