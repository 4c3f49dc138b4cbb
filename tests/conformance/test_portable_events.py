"""The capability map's other events in portable hooks, on the real harnesses with the scripted
model (adr/0089).

A portable package (written here) has a logging group on UserPromptSubmit (effect `deny`: it
exits 3 when the turn sets UZE_PROMPT_BLOCK), SessionEnd, PreCompact and Notification, and on
Claude Code a `prompt` handler on Stop. One `-p` turn in which the model runs a shell command:

* UserPromptSubmit ran through uze's wrapper with the prompt in HOOK_INPUT, and a turn whose
  handler denies never sends the prompt to the model;
* SessionEnd ran once where it is delivered (Codex `degraded`: a 3 s timeout, asserted in
  the reason, the run shows it firing);
* PreCompact ran only where it is delivered `degraded` (Gemini CLI: before each request);
* Notification never ran (no headless turn asks a confirmation);
* Claude Code ran the Stop `prompt` handler: the scripted model got the prompt with the hook
  input in place of `$ARGUMENTS`.

Each row is what `uze status` reports: unsupported groups carry the reason and never ran.
Both scopes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.behaviour import DRIVERS
from tests.conformance.lab import Lab, model_run, prepare_user_state, require
from tests.conformance.model_server import Script, model_server
from tests.conformance.oracles import REAL_HARNESSES
from tests.conformance.test_behaviour import PROMPT, exists, status_cells
from tests.conformance.test_claude_hook_events import turn
from tests.conftest import Sandbox

pytestmark = pytest.mark.conformance
NAME = "portable-events"
COMMAND = "touch uze-portable-events"
JUDGE = "UZE_JUDGE_PROMPT: is the task done? Input: $ARGUMENTS"
_LOG = """#!/bin/sh
printf '%s\\t%s\\n' "$HOOK_EVENT" "$HOOK_INPUT" >> "$UZE_PORTABLE_SEEN"
if [ "$HOOK_EVENT" = UserPromptSubmit ] && [ -n "$UZE_PROMPT_BLOCK" ]; then
  echo UZE_PROMPT_DENIED >&2
  exit 3
fi
exit 0
"""
# Per harness: each group's route as uze must report it.
ROUTES = {
    "claude_code": {"prompt-guard": "native", "end-log": "native", "compact-log": "native",
                    "notify-log": "native", "judge": "adapted"},
    "gemini_cli": {"prompt-guard": "native", "end-log": "native", "compact-log": "degraded",
                   "notify-log": "unsupported", "judge": "unsupported"},
    "codex": {"prompt-guard": "adapted", "end-log": "degraded", "compact-log": "unsupported",
              "notify-log": "unsupported", "judge": "unsupported"},
}


def build(dest: Path) -> Path:
    dest.mkdir(parents=True)
    manifest = {"name": NAME, "version": "1.0.0", "description": "Portable events."}
    (dest / "plugin.json").write_text(json.dumps(manifest), encoding="utf-8")
    (dest / "log.sh").write_text(_LOG, encoding="utf-8")
    (dest / "log.sh").chmod(0o755)
    log = [{"type": "command", "command": "${PLUGIN_ROOT}/log.sh"}]
    hooks = {"hooks": {
        "UserPromptSubmit": [{"id": "prompt-guard", "effect": "deny", "hooks": log}],
        "SessionEnd": [{"id": "end-log", "hooks": log}],
        "PreCompact": [{"id": "compact-log", "hooks": log}],
        "Notification": [{"id": "notify-log", "hooks": log}],
        "Stop": [{"id": "judge", "effect": "deny",
                  "hooks": [{"type": "prompt", "prompt": JUDGE, "timeout": 60}]}],
    }}
    (dest / "hooks.json").write_text(json.dumps(hooks, indent=2), encoding="utf-8")
    return dest


def seen(path: Path, event: str) -> list[dict[str, object]]:
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [json.loads(line.split("\t", 1)[1] or "{}") for line in lines
            if line.split("\t", 1)[0] == event]


@pytest.mark.parametrize("scope", ("project", "user"))
@pytest.mark.parametrize("harness_id", ("claude_code", "gemini_cli", "codex"))
def test_portable_events_fire_through_the_wrapper_as_their_tier_says(
    sandbox: Sandbox, harness_id: str, scope: str
) -> None:
    harness = REAL_HARNESSES[harness_id]
    require(harness.binary)
    prepare_user_state(sandbox)
    lab = Lab(sandbox, build(sandbox.root / "packages" / NAME))
    lab.uze("install", str(lab.package), "--harness", harness_id, "--scope", scope, "--trust")
    cells = {c.resource: c for c in status_cells(lab, harness_id, scope, NAME)
             if c.kind == "hook"}
    assert {name: c.route for name, c in cells.items()} == ROUTES[harness_id], cells
    assert all(c.reason for c in cells.values() if c.route != "native"), cells
    if harness_id == "codex":
        assert "3 s" in cells["end-log"].reason
    DRIVERS[harness_id].prepare(lab, scope)
    log = sandbox.root / "portable-seen.tsv"
    extra = {"UZE_PORTABLE_SEEN": str(log)}
    api = DRIVERS[harness_id].api

    with model_server() as model:
        requests = turn(lab, harness, model, COMMAND, extra)
        assert exists(lab, COMMAND.split()[1]), f"the scripted call `{COMMAND}` did not run"
        prompts = seen(log, "UserPromptSubmit")
        assert prompts and prompts[0].get("prompt") == PROMPT, prompts
        ends = seen(log, "SessionEnd")
        assert len(ends) == 1, f"SessionEnd ran {len(ends)} times"
        compacts = seen(log, "PreCompact")
        if cells["compact-log"].route == "degraded":  # Gemini CLI: before each request
            assert len(compacts) >= 2, compacts
        else:
            assert not compacts, "PreCompact ran with nothing to compact"
        assert not seen(log, "Notification"), "a headless turn sent a Notification"
        judged = [r for r in requests if r.api == api and "UZE_JUDGE_PROMPT" in r.text()]
        if cells["judge"].route == "adapted":  # Claude Code runs the prompt handler
            assert judged, "Claude Code did not send the Stop prompt handler to the model"
            text = judged[0].text()
            at = text.find("UZE_JUDGE_PROMPT")
            told = text[at:at + 3000]  # the hook input in place of $ARGUMENTS
            assert "$ARGUMENTS" not in told and "hook_event_name" in told, told
        else:
            assert not judged, "a prompt handler uze reports unsupported ran"

        blocked = turn(lab, harness, model, COMMAND, {**extra, "UZE_PROMPT_BLOCK": "1"},
                       check=False)
        sent = [r for r in blocked if r.api == api and PROMPT in r.text()]
        assert not sent, "a prompt the UserPromptSubmit handler denied reached the model"


def test_codex_skips_a_prompt_handler_so_uze_refuses_to_write_one(sandbox: Sandbox) -> None:
    """Why the `prompt`/`agent` rows are `unsupported` on Codex: a Stop prompt handler written
    into .codex/hooks.json by hand (uze refuses to) is trusted as a user would, and Codex
    0.171.0 says it skips it and never sends the prompt to the model."""
    harness = REAL_HARNESSES["codex"]
    require(harness.binary)
    prepare_user_state(sandbox)
    lab = Lab(sandbox, build(sandbox.root / "packages" / NAME))
    lab.uze("install", str(lab.package), "--harness", "codex", "--trust")
    cells = {c.resource: c for c in status_cells(lab, "codex", "project", NAME)}
    assert cells["judge"].route == "unsupported" and "skips prompt" in cells["judge"].reason
    config = sandbox.project / ".codex" / "hooks.json"
    hooks = json.loads(config.read_text(encoding="utf-8"))
    assert "Stop" not in hooks["hooks"]  # refused before attach
    hooks["hooks"]["Stop"] = [{"hooks": [{"type": "prompt", "prompt": JUDGE}]}]
    config.write_text(json.dumps(hooks), encoding="utf-8")
    DRIVERS["codex"].prepare(lab, "project")
    log = sandbox.root / "portable-seen.tsv"
    with model_server() as model:
        model.clear()
        model.script = Script(COMMAND)
        args, env = model_run(lab, harness.binary, model.url, PROMPT)
        done = lab.run(harness.binary, *args, env={**env, "UZE_PORTABLE_SEEN": str(log)})
        assert exists(lab, COMMAND.split()[1])
        assert seen(log, "UserPromptSubmit"), "the hooks file was not loaded"
        judged = [r for r in model.logged() if "UZE_JUDGE_PROMPT" in r.text()]
        assert not judged, "Codex ran a prompt handler"
        said = done.stdout + done.stderr
        assert "prompt hooks are not supported" in said, said[-3000:]
