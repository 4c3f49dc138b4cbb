"""How `uze doctor --probe` reads one listing for an item (adr/0048): a Claude Code plugin's
skill in a project is listed only in a trusted workspace, and the scratch copy doctor lists in
is not one, so it is reported not probed with that reason, never missing. An item a harness
hides because the user has not trusted the project is denied with the harness's own words
(ADR 0085, CAP-021)."""

from __future__ import annotations

import json
import subprocess
from collections import Counter

import pytest

from uze.doctor.probe_run import NOT_TRUSTED, OFF, OFF_LISTED, Expected, _in_plugin, _item
from uze.doctor.probes import PROBES, UNTRUSTED, Seen, codex_untrusted, gemini_untrusted

LISTED = {"skill": Seen(Counter({"kit:plan": 1}), "kit:plan")}
NOTHING = {"skill": Seen(Counter(), "")}


@pytest.mark.parametrize(("scope", "in_scratch", "listing", "state"), [
    ("project", True, NOTHING, "unverified"),  # the scratch copy is not trusted
    ("project", False, LISTED, "found"),
    ("user", True, LISTED, "found"),  # a user's plugins load in any folder
    ("user", True, NOTHING, "missing"),
])
def test_a_plugin_skill_in_an_untrusted_scratch_copy_is_not_probed(
    scope: str, in_scratch: bool, listing: dict[str, Seen], state: str
) -> None:
    expected = Expected(scope, "kit", "skill", "kit:plan", in_plugin=True)  # type: ignore[arg-type]
    item = _item(expected, "claude", ("-p /context", listing, in_scratch))
    assert item.state == state
    assert (item.note == NOT_TRUSTED) == (state == "unverified")


def test_only_claude_codes_skills_commands_and_agents_are_in_a_plugin() -> None:
    assert _in_plugin("claude_code", "skill") and _in_plugin("claude_code", "agent")
    assert not _in_plugin("claude_code", "mcp") and not _in_plugin("claude_code", "instructions")
    assert not _in_plugin("opencode", "skill") and not _in_plugin("codex", "agent")


# What the real binaries print in a project the user has not trusted (seen with codex 0.171.0
# app-server `config/read` and gemini 0.61.0 `skills list`, probes 3.1 and 4.1).
CODEX_REASON = ("To load project-local config, hooks, and exec policies, add /p as a trusted "
                "project in /h/.codex/config.toml.")
GEMINI_STDERR = (
    "Skipping project agents due to untrusted folder. To enable, ensure that the project root "
    "is trusted.\nRipgrep is not available. Falling back to GrepTool.\n"
    "Project hooks disabled because the folder is not trusted.\n")


def _done(stdout: str = "", stderr: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.CompletedProcess(["x"], 0, stdout, stderr)


def test_the_harnesses_own_words_for_an_untrusted_project_are_read() -> None:
    layers = {"layers": [
        {"name": {"type": "sessionFlags"}},
        {"name": {"type": "project", "dotCodexFolder": "/p/.codex"},
         "disabledReason": CODEX_REASON},
        {"name": {"type": "user", "file": "/h/.codex/config.toml"}}]}
    answers = [{"data": [{"skills": [], "errors": []}]}, {"data": [{"hooks": []}]}, layers]
    assert codex_untrusted(_done(json.dumps(answers))) == CODEX_REASON
    trusted = [*answers[:2], {"layers": [{"name": {"type": "project"}}]}]
    assert codex_untrusted(_done(json.dumps(trusted))) == ""
    assert gemini_untrusted(_done(stderr=GEMINI_STDERR)) == (
        "Skipping project agents due to untrusted folder. To enable, ensure that the project "
        "root is trusted. Project hooks disabled because the folder is not trusted.")
    assert gemini_untrusted(_done(stderr="Ripgrep is not available.\n")) == ""


@pytest.mark.parametrize(("scope", "listing", "state"), [
    ("project", NOTHING, "denied"),  # hidden by the harness until the workspace is trusted
    ("project", LISTED, "found"),  # listed anyway: found
    ("user", NOTHING, "missing"),  # a user's items do not depend on the project's trust
])
def test_an_item_an_untrusted_project_hides_is_denied_with_the_harness_words_never_missing(
    scope: str, listing: dict[str, Seen], state: str
) -> None:
    expected = Expected(scope, "kit", "skill", "kit:plan")  # type: ignore[arg-type]
    item = _item(expected, "gemini", ("skills list", listing, False), GEMINI_STDERR)
    assert item.state == state
    assert (item.note == f"{UNTRUSTED}: {GEMINI_STDERR}") == (state == "denied")
    unprobed = _item(Expected(scope, "kit", "agent", "a"), "gemini",  # type: ignore[arg-type]
                     None, "Skipping project agents due to untrusted folder.")
    assert unprobed.state == "unverified"
    assert unprobed.note.endswith("Skipping project agents due to untrusted folder.") == (
        scope == "project")


def test_only_the_kinds_a_harness_hides_when_untrusted_are_gated() -> None:
    assert PROBES["codex app-server"].gated == ("agent", "mcp", "hook")  # skills still load
    assert PROBES["gemini skills list"].gated == ("skill", "agent", "hook")
    assert all(not p.gated for name, p in PROBES.items()
               if name not in ("codex app-server", "gemini skills list"))


def test_codex_does_not_count_a_skill_its_own_switch_turned_off() -> None:
    """codex 0.171.0 app-server skills/list: `enabled: false` for a `[[skills.config]]` switch
    (adr/0098); such a skill is not discovered as on."""
    skills = {"skills": [
        {"name": "kit-hello", "scope": "user", "path": "/h/.agents/skills/kit-hello",
         "enabled": False},
        {"name": "kit-bye", "scope": "user", "path": "/h/.agents/skills/kit-bye",
         "enabled": True},
        {"name": "kit-old", "scope": "repo", "path": "/p/.agents/skills/kit-old"}],
        "errors": []}
    answers = [{"data": [skills]}, {"data": [{"hooks": []}]}]
    seen = PROBES["codex app-server"].read(_done(json.dumps(answers)))["skill"]
    assert seen.counts == {"kit-bye": 1, "kit-old": 1}
    assert '"kit-hello",\n   "user",\n   "/h/.agents/skills/kit-hello",\n   false' in (
        seen.evidence)


@pytest.mark.parametrize(("listing", "state", "note"), [
    (NOTHING, "disabled", OFF), (LISTED, "found", OFF_LISTED)])
def test_a_switched_off_item_not_listed_is_disabled_never_missing(
    listing: dict[str, Seen], state: str, note: str
) -> None:
    expected = Expected("user", "kit", "skill", "kit:plan", off=True)
    item = _item(expected, "codex", ("app-server", listing, False))
    assert (item.state, item.note) == (state, note)
