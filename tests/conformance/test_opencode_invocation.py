"""Issue 33 item 5 on the real opencode binary (adr/0084): what keeps a skill from OpenCode's
model while its user can still run it as `/<skill>`.

A skill folder `.opencode/skills/<name>/SKILL.md` is written by hand (no uze) with one encoding
at a time; one turn against the scripted model shows whether the model is offered the skill
(OpenCode 1.18.33 lists skills in its system message), and `opencode run --command <name>`
shows whether the user can still invoke it (its body reaches the model as the user's message).
Only the documented permission (`permission.skill.<name> = "deny"` in opencode.json) keeps it
from the model; the `metadata` map and Claude's `disable-model-invocation` change nothing. Then
the same with a package's user-only skill that uze delivers, in both scopes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.behaviour import DRIVERS, main_request
from tests.conformance.lab import Lab, model_run, prepare_user_state, require
from tests.conformance.model_server import ModelServer, Request, Script, model_server
from tests.conftest import Sandbox
from tests.helpers import build_tree

PACKAGE = "kit"

pytestmark = pytest.mark.conformance

NAME = "kit-ship"
BODY = "Ship marker 4b7e: bump the version and tag."


def _skill(frontmatter: str) -> str:
    return (f"---\nname: {NAME}\ndescription: Tag and publish a release.\n{frontmatter}---\n"
            f"{BODY}\n")


def _requests(lab: Lab, model: ModelServer, *args: str) -> list[Request]:
    model.clear()
    model.script = Script()
    run, env = model_run(lab, "opencode", model.url, "Say hello.")
    if args:
        run = (*run[:-1], *args)  # the prompt (last) replaced by --command NAME ARGS
    lab.run("opencode", *run, env=env)
    return [r for r in model.logged() if r.api == "openai"]


def _offered(requests: list[Request]) -> int:
    """How often the first request offering tools lists the skill to the model (as the
    behaviour contracts read OpenCode's requests: its system message's skill list)."""
    driver = DRIVERS["opencode"]
    return driver.read(main_request(requests, driver.api).body).skills[NAME]


def _user_ran(requests: list[Request]) -> bool:
    return any(BODY in r.text() for r in requests)


ENCODINGS = {
    "plain": ("", None),
    # the Agent Skills `metadata` map, OpenCode's documented place for its own behaviour
    "metadata.opencode": ('metadata:\n  opencode: \'{"invoke": {"model": false, "user": true}}\'\n'
                          '  opencode/model: "false"\n  opencode/slash: "true"\n', None),
    # Claude Code's key, which OpenCode is asked to honour (opencode issue 11972)
    "disable-model-invocation": ("disable-model-invocation: true\n", None),
    # the documented permission: "deny: skill hidden from agent, access rejected"
    "permission.skill deny": ("", {"permission": {"skill": {NAME: "deny"}}}),
}


@pytest.mark.parametrize("encoding", list(ENCODINGS))
def test_which_encoding_keeps_the_skill_from_the_model_and_leaves_it_to_the_user(
        sandbox: Sandbox, encoding: str) -> None:
    require("opencode")
    prepare_user_state(sandbox)
    frontmatter, config = ENCODINGS[encoding]
    build_tree(sandbox.project, {f".opencode/skills/{NAME}/SKILL.md": _skill(frontmatter)})
    if config is not None:
        (sandbox.project / "opencode.json").write_text(json.dumps(config), encoding="utf-8")
    lab = Lab(sandbox, Path("/nonexistent"))
    with model_server() as model:
        offered = _offered(_requests(lab, model))
        ran = _user_ran(_requests(lab, model, "--command", NAME, "now"))
    print(f"RESULT {encoding}: offered to the model={offered}, user ran it={ran}")
    assert (offered, ran) == EXPECTED[encoding]


EXPECTED = {
    "plain": (1, True),
    "metadata.opencode": (1, True),
    "disable-model-invocation": (1, True),
    "permission.skill deny": (0, True),
}


@pytest.mark.parametrize("scope", ["project", "user"])
def test_uze_keeps_a_user_only_skill_from_opencodes_model_and_leaves_it_to_the_user(
        sandbox: Sandbox, scope: str) -> None:
    require("opencode")
    prepare_user_state(sandbox)
    package = build_tree(sandbox.root / PACKAGE, {
        "plugin.json": json.dumps({"name": PACKAGE}),
        "skills/ship/SKILL.md": "---\nname: ship\ndescription: Tag and publish a release.\n"
                                f"invoke:\n  model: false\n  user: true\n---\n{BODY}\n"})
    lab = Lab(sandbox, package)
    lab.uze("install", str(package), "--harness", "opencode", "--scope", scope, "--trust")
    status = json.loads(lab.uze("status", PACKAGE, "--json", "--scope", scope).stdout)
    (row,) = status["packages"][0]["projections"]
    assert (row["resource"], row["route"], row["label"]) == ("ship", "adapted", NAME), row
    with model_server() as model:
        assert _offered(_requests(lab, model)) == 0
        assert _user_ran(_requests(lab, model, "--command", NAME, "now"))
