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
  called again with `stop_hook_active: true` (`hook.claude.stop`);
* a UserPromptSubmit handler answering `decision: "block"`: the prompt never reaches the
  model (`hook.claude.prompt`);
* the same as for Stop for a SubagentStop handler, in a turn where the model starts a
  subagent (Claude Code's `Agent` tool, Codex's `spawn_agent` then `wait_agent`): the
  subagent goes on with the reason, and the handler got the agent's type
  (`hook.claude.substop`).

Each harness row is what `uze status` reports for it: a delivered group (native, adapted,
degraded) must show its meaning on the real binary; an unsupported one must carry a reason,
and the test asserts it is reported so. Claude Code itself is the reference (verbatim groups).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

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
# Blocks once per turn that sets UZE_<EVENT>_ONCE (a file it creates), then lets the agent stop.
_GOES_ON = """#!/bin/sh
input=$(cat)
printf '%s\\n' "$input" >> "$UZE_CLAUDE_SEEN"
if [ -n "$UZE_{event}_ONCE" ] && [ ! -e "$UZE_{event}_ONCE" ]; then
  : > "$UZE_{event}_ONCE"
  printf '%s\\n' '{{"decision": "block", "reason": "UZE_{event}_REASON"}}'
fi
exit 0
"""
# Blocks the prompt of a turn that sets UZE_PROMPT_BLOCK.
_PROMPT = """#!/bin/sh
input=$(cat)
printf '%s\\n' "$input" >> "$UZE_CLAUDE_SEEN"
if [ -n "$UZE_PROMPT_BLOCK" ]; then
  printf '%s\\n' '{"decision": "block", "reason": "UZE_PROMPT_REASON"}'
fi
exit 0
"""
TASK = "UZE_SUBAGENT_TASK: answer done."
SUBAGENT_CALLS = {  # per model API: the call that starts a subagent with TASK
    "claude": ("Agent", {"subagent_type": "general-purpose", "description": "scripted subagent",
                         "prompt": TASK}),
    "codex": ("multi_agent_v1.spawn_agent", {"message": TASK}),
}


def wait_for_agent(api: str, body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """Codex: once spawn_agent answered with the agent's id, wait for that agent (else `codex
    exec` ends the turn, and the subagent with it, before the subagent is done)."""
    if api != "codex":
        return None
    items = body.get("input") or []
    if any(i.get("name") == "wait_agent" for i in items):
        return None
    for item in items:
        output = item.get("output") if item.get("type") == "function_call_output" else None
        try:
            agent = json.loads(output).get("agent_id") if isinstance(output, str) else None
        except (ValueError, AttributeError):
            agent = None
        if isinstance(agent, str):
            return "multi_agent_v1.wait_agent", {"targets": [agent], "timeout_ms": 30000}
    return None


def build_events_package(dest: Path) -> Path:
    """A Claude-layout plugin with a PostToolUse and a Stop group in Claude's protocol."""
    (dest / ".claude-plugin").mkdir(parents=True)
    (dest / "hooks").mkdir()
    manifest = {"name": NAME, "version": "1.0.0", "description": "Claude hook events."}
    (dest / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest), encoding="utf-8")
    for name, text in (("post.sh", _POST), ("stop.sh", _GOES_ON.format(event="STOP")),
                       ("substop.sh", _GOES_ON.format(event="SUBAGENTSTOP")),
                       ("prompt.sh", _PROMPT)):
        (dest / "hooks" / name).write_text(text, encoding="utf-8")
        (dest / "hooks" / name).chmod(0o755)
    root = "${CLAUDE_PLUGIN_ROOT}/hooks/"
    hooks = {"hooks": {
        "PostToolUse": [{"matcher": "Bash",
                         "hooks": [{"type": "command", "command": root + "post.sh"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": root + "stop.sh"}]}],
        "SubagentStop": [{"hooks": [{"type": "command", "command": root + "substop.sh"}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": root + "prompt.sh"}]}],
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
    assert set(hooks) == {"PostToolUse-0", "Stop-0", "SubagentStop-0", "UserPromptSubmit-0"}
    assert all(c.reason for c in hooks.values() if not c.delivered), hooks
    if harness_id == "claude_code":
        assert {c.route for c in hooks.values()} == {"native"}, hooks
    driver = DRIVERS[harness_id]
    driver.prepare(lab, scope)
    seen = sandbox.root / "claude-seen.jsonl"
    extra = {"UZE_CLAUDE_SEEN": str(seen)}

    with model_server() as model:
        turn(lab, harness, model, PLAIN, extra)
        assert exists(lab, PLAIN.split()[1]), f"the unmarked call `{PLAIN}` did not run"
        for event in ("PostToolUse", "Stop", "UserPromptSubmit"):  # delivered: it ran
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
                check_goes_on(lab, harness, model, driver.api, "Stop", Script(), seen)
        if hooks["UserPromptSubmit-0"].delivered:
            with evidence.check(harness_id, "hook.claude.prompt", scope):
                requests = turn(lab, harness, model, PLAIN, {**extra, "UZE_PROMPT_BLOCK": "1"},
                                check=False)
                prompts = seen_inputs(seen, "UserPromptSubmit")
                assert prompts and prompts[-1].get("prompt") == PROMPT, prompts[-1:]
                sent = [r for r in requests if r.api == driver.api and PROMPT in r.text()]
                assert not sent, "a blocked prompt reached the model"
        if hooks["SubagentStop-0"].delivered:
            with evidence.check(harness_id, "hook.claude.substop", scope):
                tool, arguments = SUBAGENT_CALLS[driver.api]
                script = Script(calls=((PROMPT, tool, arguments),), follow=wait_for_agent)
                inputs = check_goes_on(lab, harness, model, driver.api, "SubagentStop", script,
                                       seen)
                assert all(i.get("agent_type") for i in inputs), inputs


def check_goes_on(lab: Lab, harness: RealHarness, model: ModelServer, api: str, event: str,
                  script: Script, seen: Path) -> list[dict[str, object]]:
    """A turn with `script` in which the `event` handler blocks once: the agent went on, a
    later model request carries the reason, the handler ran again with `stop_hook_active`.
    The handler's inputs of that turn."""
    once = seen.with_name(f"{event}-once")
    before = len(seen_inputs(seen, event))
    model.clear()
    model.script = script
    args, env = model_run(lab, harness.binary, model.url, PROMPT)
    lab.run(harness.binary, *args, env={**env, "UZE_CLAUDE_SEEN": str(seen),
                                        f"UZE_{event.upper()}_ONCE": str(once)})
    assert once.exists(), f"the {event} handler did not run"
    inputs = seen_inputs(seen, event)[before:]
    assert len(inputs) >= 2, f"the agent stopped although {event} blocked: {inputs}"
    assert [i.get("stop_hook_active") for i in inputs[:2]] == [False, True], inputs
    reason = f"UZE_{event.upper()}_REASON"
    text = [r.text() for r in model.logged() if r.api == api]
    assert any(reason in t for t in text), f"{reason} never reached the model"
    return inputs


def check_halt_lost(lab: Lab, harness: RealHarness, model: ModelServer, api: str,
                    extra: dict[str, str]) -> None:
    """What a harness whose route says `continue: false` is not honoured does instead: the
    call ran, its stopReason reached the model, and the model was called again."""
    requests = turn(lab, harness, model, HALTED, extra)
    assert exists(lab, HALTED.split()[1]), "the halted call did not run"
    results = tool_results(requests, api)
    assert HALT_REASON in results, f"{HALT_REASON} did not reach the model: {results[:3000]}"
