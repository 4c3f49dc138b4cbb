"""The rest of Claude's hook protocol on the real harnesses, with the scripted model (adr/0034).

A Claude-layout package (written here) has, in Claude's own protocol:

* a PostToolUse handler on Bash that logs Claude's hook JSON and, for a marked call, answers
  `decision: "block"` + `reason` with `hookSpecificOutput.additionalContext` and a
  `systemMessage`: the call has run (PostToolUse comes after it), the handler got the command
  and Claude's Bash `tool_response` (`stdout` ...), and the model's next request carries the
  tool's output, the reason and the context, never the systemMessage, which is for the user
  (`hook.claude.after`);
* the same handler answering `continue: false` + `stopReason` for another marked call: the
  call has run and the agent stops there, with no model request after the tool result
  (`hook.claude.halt`); where the route is `degraded` because the harness goes on (Codex),
  the test asserts what it does instead: the stopReason reaches the model (OpenCode's plugin
  aborts the session: `opencode run` exits 1, so that turn accepts any exit status);
* a Stop handler that answers `decision: "block"` + `reason` once per marked turn: the agent
  goes on instead of stopping, its next model request carries the reason, and the handler is
  called again (`hook.claude.stop`).

Each harness row is what `uze status` reports for it: a delivered group (native, adapted,
degraded) must show its meaning on the real binary; an unsupported one must carry a reason,
and the test asserts it is reported so. Claude Code itself is the reference (verbatim groups).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conformance.behaviour import DRIVERS
from tests.conformance.evidence import EvidenceRun
from tests.conformance.lab import (
    TIMEOUT,
    Lab,
    _kill_group,
    model_run,
    prepare_user_state,
    require,
)
from tests.conformance.model_server import ModelServer, Request, Script, model_server
from tests.conformance.oracles import REAL_HARNESSES, RealHarness
from tests.conformance.test_behaviour import PROMPT, exists, status_cells, tool_results
from tests.conftest import Sandbox

pytestmark = pytest.mark.conformance
NAME = "claude-events"
HARNESSES = ("claude_code", "gemini_cli", "codex", "opencode")
PLAIN = "touch uze-events-plain"
BLOCKED = "touch uze-UZE_POST_BLOCK && printf 'UZE_%s' POST_OUTPUT"
OUTPUT = "UZE_POST_OUTPUT"  # what BLOCKED prints (not literally in the command)
HALTED = "touch uze-UZE_POST_HALT"
POST_REASON = "UZE_POST_REASON"
POST_CONTEXT = "UZE_POST_CONTEXT"
HALT_REASON = "UZE_HALT_REASON"
STOP_REASON = "UZE_STOP_REASON"
MESSAGE = "UZE_SYSTEM_MESSAGE"  # for the user, not the model

_POST = f"""#!/bin/sh
input=$(cat)
printf '%s\\n' "$input" >> "$UZE_CLAUDE_SEEN"
case "$input" in
  *UZE_POST_BLOCK*) printf '%s\\n' '{{"decision": "block", "reason": "{POST_REASON}", \
"systemMessage": "{MESSAGE}", "hookSpecificOutput": {{"hookEventName": "PostToolUse", \
"additionalContext": "{POST_CONTEXT}"}}}}' ;;
  *UZE_POST_HALT*) printf '%s\\n' '{{"continue": false, "stopReason": "{HALT_REASON}"}}' ;;
esac
exit 0
"""
_STOP = f"""#!/bin/sh
input=$(cat)
printf '%s\\n' "$input" >> "$UZE_CLAUDE_SEEN"
if [ -n "$UZE_STOP_ONCE" ] && [ ! -e "$UZE_STOP_ONCE" ]; then
  : > "$UZE_STOP_ONCE"
  printf '%s\\n' '{{"decision": "block", "reason": "{STOP_REASON}"}}'
fi
exit 0
"""


def build_events_package(dest: Path) -> Path:
    """A Claude-layout plugin with a PostToolUse and a Stop group in Claude's protocol."""
    (dest / ".claude-plugin").mkdir(parents=True)
    (dest / "hooks").mkdir()
    manifest = {"name": NAME, "version": "1.0.0", "description": "Claude hook events."}
    (dest / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest), encoding="utf-8")
    for name, text in (("post.sh", _POST), ("stop.sh", _STOP)):
        (dest / "hooks" / name).write_text(text, encoding="utf-8")
        (dest / "hooks" / name).chmod(0o755)
    root = "${CLAUDE_PLUGIN_ROOT}/hooks/"
    hooks = {"hooks": {
        "PostToolUse": [{"matcher": "Bash",
                         "hooks": [{"type": "command", "command": root + "post.sh"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": root + "stop.sh"}]}],
    }}
    (dest / "hooks" / "hooks.json").write_text(json.dumps(hooks, indent=2), encoding="utf-8")
    return dest


def turn(lab: Lab, harness: RealHarness, model: ModelServer, command: str | None,
         extra: dict[str, str], check: bool = True) -> list[Request]:
    """One non-interactive turn (the model asks for `command`, or only answers text when
    None): the model requests. With `check`, the harness must exit 0; without, any exit is
    accepted (an agent stopped by `continue: false` may report it as an error: OpenCode)."""
    model.clear()
    model.script = Script(command)
    args, env = model_run(lab, harness.binary, model.url, PROMPT)
    if check:
        lab.run(harness.binary, *args, env={**env, **extra})
        return model.logged()
    proc = lab.start(harness.binary, *args, extra_env={**env, **extra})
    try:
        proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{harness.binary} did not stop within {TIMEOUT}s after continue: false")
    finally:
        _kill_group(proc.pid)
        proc.communicate()
    return model.logged()


def seen_inputs(path: Path, event: str) -> list[dict[str, object]]:
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    found = [json.loads(line) for line in lines]
    return [i for i in found if i.get("hook_event_name") == event]


@pytest.mark.parametrize("scope", ("project", "user"))
@pytest.mark.parametrize("harness_id", HARNESSES)
def test_claude_post_tool_use_and_stop_answers_keep_their_meaning(
    sandbox: Sandbox, evidence: EvidenceRun, harness_id: str, scope: str
) -> None:
    harness = REAL_HARNESSES[harness_id]
    require(harness.binary)
    prepare_user_state(sandbox)
    lab = Lab(sandbox, build_events_package(sandbox.root / "packages" / NAME))
    lab.uze("install", str(lab.package), "--harness", harness_id, "--scope", scope, "--trust")
    hooks = {c.resource: c for c in status_cells(lab, harness_id, scope, NAME)
             if c.kind == "hook"}
    assert set(hooks) == {"PostToolUse-0", "Stop-0"}, hooks
    assert all(c.reason for c in hooks.values() if not c.delivered), hooks
    if harness_id == "claude_code":
        assert {c.route for c in hooks.values()} == {"native"}, hooks
    driver = DRIVERS[harness_id]
    driver.prepare(lab, scope)
    seen = sandbox.root / "claude-seen.jsonl"
    once = sandbox.root / "stop-once"
    extra = {"UZE_CLAUDE_SEEN": str(seen)}

    with model_server() as model:
        turn(lab, harness, model, PLAIN, extra)
        assert exists(lab, PLAIN.split()[1]), f"the unmarked call `{PLAIN}` did not run"
        for event in ("PostToolUse", "Stop"):  # delivered: it ran; unsupported: it did not
            ran = bool(seen_inputs(seen, event))
            assert ran == hooks[f"{event}-0"].delivered, (event, hooks, seen_inputs(seen, event))
        if hooks["PostToolUse-0"].delivered:
            with evidence.check(harness_id, "hook.claude.after", scope):
                requests = turn(lab, harness, model, BLOCKED, extra)
                assert exists(lab, BLOCKED.split()[1]), "the PostToolUse call did not run"
                posts = [i for i in seen_inputs(seen, "PostToolUse")
                         if "UZE_POST_BLOCK" in json.dumps(i)]
                assert posts, f"the PostToolUse handler never saw the call: {seen.read_text()}"
                assert posts[0]["tool_name"] == "Bash", posts[0]
                assert posts[0]["tool_input"]["command"] == BLOCKED, posts[0]  # type: ignore
                response = posts[0].get("tool_response")
                assert isinstance(response, dict), posts[0]  # Claude's Bash result: stdout...
                assert response.get("stdout") == OUTPUT, posts[0]
                results = tool_results(requests, driver.api)
                assert OUTPUT in results, f"the tool's output {OUTPUT} did not reach the model"
                assert POST_REASON in results, f"{POST_REASON} not sent: {results[:3000]}"
                assert POST_CONTEXT in results, f"{POST_CONTEXT} not sent: {results[:3000]}"
                assert MESSAGE not in results, "a systemMessage (for the user) reached the model"
            post = hooks["PostToolUse-0"]
            if "`continue: false`" in post.reason:  # the route says the harness goes on
                assert post.route == "degraded", post
                check_halt_lost(lab, harness, model, driver.api, extra)
            else:
                with evidence.check(harness_id, "hook.claude.halt", scope):
                    requests = turn(lab, harness, model, HALTED, extra, check=False)
                    assert exists(lab, HALTED.split()[1]), "the halted call did not run"
                    results = tool_results(requests, driver.api)
                    assert not results, f"the model was called after continue:false: {results}"
        if hooks["Stop-0"].delivered:
            with evidence.check(harness_id, "hook.claude.stop", scope):
                before = len(seen_inputs(seen, "Stop"))
                requests = turn(lab, harness, model, None, {**extra, "UZE_STOP_ONCE": str(once)})
                assert once.exists(), "the Stop handler did not run"
                stops = seen_inputs(seen, "Stop")[before:]
                assert len(stops) >= 2, f"the agent stopped although Stop blocked: {stops}"
                assert [s.get("stop_hook_active") for s in stops[:2]] == [False, True], stops
                text = [r.text() for r in requests if r.api == driver.api]
                assert any(STOP_REASON in t for t in text), f"{STOP_REASON} never reached the model"


def check_halt_lost(lab: Lab, harness: RealHarness, model: ModelServer, api: str,
                    extra: dict[str, str]) -> None:
    """What a harness whose route says `continue: false` is not honoured does instead: the
    call ran, its stopReason reached the model, and the model was called again."""
    requests = turn(lab, harness, model, HALTED, extra)
    assert exists(lab, HALTED.split()[1]), "the halted call did not run"
    results = tool_results(requests, api)
    assert HALT_REASON in results, f"{HALT_REASON} did not reach the model: {results[:3000]}"
