"""`uze disable` / `uze enable` on the real binaries, both scopes (issue 33 item 6, adr/0087).

A portable package with two skills, installed for Claude Code, Codex and OpenCode:

* `uze disable NAME --harness claude_code`: `claude plugin list` shows `NAME@skills-dir`
  `disabled` (its own `enabledPlugins` switch) and `claude -p /context` lists neither skill;
  Codex and OpenCode still list both;
* `uze disable NAME:hello --harness codex,opencode` (the skill folder both read): Codex's
  `skills/list` and `opencode debug skill` no longer list `NAME-hello`, still `NAME-bye`;
* `uze enable NAME`: every listing shows both skills again, and the project and home hold the
  bytes they held after install (the receipt's add counters aside).

The harnesses' own skill switches (adr/0098), with Codex, Gemini CLI and OpenCode reading one
`.agents/skills` copy:

* `uze disable NAME:hello --harness gemini_cli`: Gemini CLI's `skills.disabled` (both scopes):
  `gemini skills list` says `[Disabled]`, no model request offers it, the folder stays and Codex
  and OpenCode still list it;
* `uze disable NAME:hello --harness codex`: user scope, Codex's `[[skills.config]] enabled =
  false` in config.toml (skills/list `enabled: false`, not offered to the model); project scope,
  where codex 0.171.0 ignores that switch in .codex/config.toml, removal of the shared folder
  (for Gemini CLI too, whose switch is then not enough) is refused, naming the harnesses that
  read it, and nothing is written.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.evidence import EvidenceRun
from tests.conformance.lab import Lab, model_run, prepare_user_state, require
from tests.conformance.model_server import model_server
from tests.conftest import Sandbox
from tests.helpers import run_uze, tree_bytes
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


TRUSTED = {"GEMINI_CLI_TRUST_WORKSPACE": "true"}
SHARED = ("codex", "gemini_cli", "opencode")  # one .agents/skills copy in both scopes


def _enabled(lab: Lab) -> dict[str, set[str]]:
    """The package's skills each of Codex, Gemini CLI and OpenCode lists as on: Codex's
    skills/list with `enabled`, `gemini skills list` without `[Disabled]`."""
    params: dict[str, object] = {"cwds": [str(lab.sandbox.project)], "forceReload": True}
    (result,) = lab.rpc("codex", probes.CODEX_APP_SERVER, [("skills/list", params)])
    codex = {s["name"] for s in result["data"][0]["skills"]  # type: ignore[index]
             if s["name"].startswith(NAME) and s.get("enabled", True)}
    gemini = probes.gemini_skills(lab.run("gemini", *probes.GEMINI_SKILLS, env=TRUSTED).stdout)
    return {"codex": codex, "gemini_cli": {s for s in gemini.counts if s.startswith(NAME)},
            "opencode": _opencode(lab)}


def _offered(lab: Lab, binary: str, api: str) -> set[str]:
    """The package's skills a model request of one headless turn names (Gemini CLI: in its
    tools and system instruction; its first message lists the project's folders)."""
    with model_server() as model:
        args, env = model_run(lab, binary, model.url, "Say hi.")
        lab.run(binary, *args, env={**env, **TRUSTED})
        bodies = [r.body for r in model.logged(api)]
    if api == "gemini":
        bodies = [[b.get("tools"), b.get("systemInstruction")] for b in bodies]
    text = json.dumps(bodies)
    return {f"{NAME}-{s}" for s in SKILLS if f"{NAME}-{s}" in text}


@pytest.mark.parametrize("scope", ("project", "user"))
def test_a_skill_off_by_the_harness_own_switch_keeps_the_folder_the_others_read(
        sandbox: Sandbox, evidence: EvidenceRun, scope: str) -> None:
    for binary in ("codex", "gemini", "opencode"):
        require(binary)
    prepare_user_state(sandbox)
    lab = Lab(sandbox, build_package(sandbox.root / "packages" / NAME))
    lab.uze("install", str(lab.package), "--harness", ",".join(SHARED), "--scope", scope)
    both = {f"{NAME}-{s}" for s in SKILLS}
    assert _enabled(lab) == dict.fromkeys(SHARED, both)
    root = sandbox.project if scope == "project" else sandbox.home
    folder = root / ".agents" / "skills" / f"{NAME}-hello"
    settings = root / ".gemini" / "settings.json"
    switches = (settings, sandbox.home / ".codex" / "config.toml")
    installed = _state(sandbox), [p.read_bytes() if p.exists() else None for p in switches]

    lab.uze("disable", f"{NAME}:hello", "--harness", "gemini_cli", "--scope", scope)

    with evidence.check("gemini_cli", "skill.discovery", scope):
        assert _enabled(lab) == dict.fromkeys(SHARED, both) | {"gemini_cli": {f"{NAME}-bye"}}
        assert folder.is_dir()
        assert json.loads(settings.read_text(encoding="utf-8"))["skills"]["disabled"] == [
            f"{NAME}-hello"]
        assert _offered(lab, "gemini", "gemini") == {f"{NAME}-bye"}

    if scope == "project":  # codex 0.171.0 ignores [[skills.config]] in .codex/config.toml
        before = _state(sandbox)
        refused = run_uze("disable", f"{NAME}:hello", "--harness", "codex", "--scope", scope,
                          cwd=sandbox.project)
        assert refused.returncode == 1, refused
        said = refused.stderr  # Gemini CLI's switch joins the removal the codex one needs
        assert "codex, gemini_cli reads .agents/skills/switch-kit-hello with opencode" in said
        assert "hint: " in said and "Traceback" not in said
        assert _state(sandbox) == before
    else:
        lab.uze("disable", f"{NAME}:hello", "--harness", "codex", "--scope", scope)
        with evidence.check("codex", "skill.discovery", scope):
            assert _enabled(lab) == {"codex": {f"{NAME}-bye"}, "gemini_cli": {f"{NAME}-bye"},
                                     "opencode": both}
            assert folder.is_dir()
            config = (sandbox.home / ".codex" / "config.toml").read_text(encoding="utf-8")
            assert f'name = "{NAME}-hello"\nenabled = false' in config, config
            assert _offered(lab, "codex", "codex") == {f"{NAME}-bye"}

    lab.uze("enable", NAME, "--scope", scope)

    assert _enabled(lab) == dict.fromkeys(SHARED, both)
    assert (_state(sandbox), [p.read_bytes() if p.exists() else None for p in switches]
            ) == installed
