"""The capability map's other events in portable hooks, on the real harnesses with the scripted
model (adr/0089, adr/0098), recorded as `hook.event.*` and `hook.handler.*` evidence.

A portable package (written here) has a logging group on UserPromptSubmit (effect `deny`: it
exits 3 when the turn sets UZE_PROMPT_BLOCK), SubagentStop, SessionEnd, PreCompact and
Notification, and on Claude Code a `prompt` and an `agent` handler on Stop. Each row is what
`uze status` reports: unsupported groups carry the reason and never run. Both scopes.

* `hook.event.prompt`: UserPromptSubmit ran through uze's wrapper with the prompt in
  HOOK_INPUT, and a turn whose handler denies never sends the prompt to the model;
* `hook.event.end`: SessionEnd ran once when the headless run ended (Codex `degraded`: a 3 s
  timeout, asserted in the reason);
* `hook.event.compact`: PreCompact ran on Claude Code's `/compact` with its `trigger`, never in
  a plain turn (Gemini CLI `degraded`: before each request, not recorded as the contract);
* `hook.event.notify`: Claude Code's Notification ran with `notification_type` when an MCP
  server (on the command line, not uze's) sent `notifications/elicitation/complete`; elsewhere
  no Notification ran;
* `hook.event.substop`: SubagentStop ran with `agent_type` when a subagent the scripted model
  started ended (Claude Code, Codex);
* `hook.handler.prompt` / `hook.handler.agent` (Claude Code): the scripted model got the Stop
  prompt with the hook input for `$ARGUMENTS` (an agent handler: in a subagent offered
  StructuredOutput), answered `ok: false` once, and the agent went on with the reason.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.behaviour import DRIVERS
from tests.conformance.evidence import EvidenceRun
from tests.conformance.lab import Lab, model_run, prepare_user_state, require
from tests.conformance.model_server import ModelServer, Request, Script, model_server, wants_json
from tests.conformance.oracles import REAL_HARNESSES, RealHarness
from tests.conformance.test_behaviour import PROMPT, exists, status_cells
from tests.conformance.test_claude_hook_events import SUBAGENT_CALLS, wait_for_agent
from tests.conformance.test_claude_hook_events import turn as command_turn
from tests.conftest import Sandbox

pytestmark = pytest.mark.conformance
NAME = "portable-events"
COMMAND = "touch uze-portable-events"
JUDGE = "UZE_JUDGE_PROMPT: is the task done? Input: $ARGUMENTS"
VERIFY = "UZE_AGENT_PROMPT: check the project. Input: $ARGUMENTS"
REASONS = {"UZE_JUDGE_PROMPT": "UZE_JUDGE_REASON_5e1", "UZE_AGENT_PROMPT": "UZE_AGENT_REASON_9b3"}
_LOG = """#!/bin/sh
printf '%s\\t%s\\n' "$HOOK_EVENT" "$HOOK_INPUT" >> "$UZE_PORTABLE_SEEN"
if [ "$HOOK_EVENT" = UserPromptSubmit ] && [ -n "$UZE_PROMPT_BLOCK" ]; then
  echo UZE_PROMPT_DENIED >&2
  exit 3
fi
exit 0
"""
# A stdio MCP server that, once listed, tells the client an elicitation completed: Claude Code
# then runs its Notification hooks (notification_type elicitation_complete), headless too.
_NOTIFY = """import json, sys, time
def send(obj):
    sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()
told = False
for line in sys.stdin:
    msg = json.loads(line)
    method, mid = msg.get("method"), msg.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "uze-notify", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": []}})
        if not told:
            told = True
            time.sleep(0.5)
            send({"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
                  "params": {"elicitationId": "uze-elicit-1"}})
    elif mid is not None and method:
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
"""
# Per harness: each group's route as uze must report it.
ROUTES = {
    "claude_code": {"prompt-guard": "native", "substop-log": "native", "end-log": "native",
                    "compact-log": "native", "notify-log": "native", "judge": "adapted",
                    "verify": "adapted"},
    "gemini_cli": {"prompt-guard": "native", "substop-log": "unsupported", "end-log": "native",
                   "compact-log": "degraded", "notify-log": "unsupported",
                   "judge": "unsupported", "verify": "unsupported"},
    "codex": {"prompt-guard": "adapted", "substop-log": "adapted", "end-log": "degraded",
              "compact-log": "unsupported", "notify-log": "unsupported",
              "judge": "unsupported", "verify": "unsupported"},
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
        "SubagentStop": [{"id": "substop-log", "hooks": log}],
        "SessionEnd": [{"id": "end-log", "hooks": log}],
        "PreCompact": [{"id": "compact-log", "hooks": log}],
        "Notification": [{"id": "notify-log", "hooks": log}],
        "Stop": [{"id": "judge", "effect": "deny",
                  "hooks": [{"type": "prompt", "prompt": JUDGE, "timeout": 60}]},
                 {"id": "verify", "effect": "deny",
                  "hooks": [{"type": "agent", "prompt": VERIFY, "timeout": 60}]}],
    }}
    (dest / "hooks.json").write_text(json.dumps(hooks, indent=2), encoding="utf-8")
    return dest


def seen(path: Path, event: str) -> list[dict[str, object]]:
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [json.loads(line.split("\t", 1)[1] or "{}") for line in lines
            if line.split("\t", 1)[0] == event]


def judge_once() -> tuple[Counter[str], Any]:
    """A judge answering `ok: false` with its reason the first time each handler's prompt
    asks, `ok: true` after (so the agent goes on once, then stops); and its counts."""
    asked: Counter[str] = Counter()

    def judge(text: str) -> dict[str, Any] | None:
        for marker, reason in REASONS.items():
            if marker in text:
                asked[marker] += 1
                return {"ok": False, "reason": reason} if asked[marker] == 1 else \
                    {"ok": True, "reason": "done"}
        return None
    return asked, judge


def approve(text: str) -> dict[str, Any] | None:
    """A judge that lets every model-run handler pass."""
    return {"ok": True, "reason": "done"} if any(m in text for m in REASONS) else None


def turn(lab: Lab, harness: RealHarness, model: ModelServer, script: Script,
         env: dict[str, str], *more: str, prompt: str = PROMPT,
         servers: dict[str, object] | None = None) -> list[Request]:
    """One headless turn of `harness` with `script` (and more arguments, more MCP servers for
    Claude Code); it must exit 0. The model requests."""
    model.clear()
    model.script = script
    args, base = model_run(lab, harness.binary, model.url, prompt, servers)
    lab.run(harness.binary, *args, *more, env={**base, **env})
    return model.logged()


@pytest.mark.parametrize("scope", ("project", "user"))
@pytest.mark.parametrize("harness_id", ("claude_code", "gemini_cli", "codex"))
def test_portable_events_fire_through_the_wrapper_as_their_tier_says(
    sandbox: Sandbox, evidence: EvidenceRun, harness_id: str, scope: str
) -> None:
    harness = REAL_HARNESSES[harness_id]
    require(harness.binary)
    prepare_user_state(sandbox)
    lab = Lab(sandbox, build(sandbox.root / "packages" / NAME))
    lab.uze("install", str(lab.package), "--harness", harness_id, "--scope", scope, "--trust")
    cells = {c.resource: c for c in status_cells(lab, harness_id, scope, NAME)
             if c.kind == "hook"}
    routes = {name: c.route for name, c in cells.items()}
    assert routes == ROUTES[harness_id], cells
    assert all(c.reason for c in cells.values() if c.route != "native"), cells
    if harness_id == "codex":
        assert "3 s" in cells["end-log"].reason
    DRIVERS[harness_id].prepare(lab, scope)
    log = sandbox.root / "portable-seen.tsv"
    env = {"UZE_PORTABLE_SEEN": str(log)}
    api = DRIVERS[harness_id].api
    notify = sandbox.root / "notify.py"
    notify.write_text(_NOTIFY, encoding="utf-8")
    servers: dict[str, object] = {"uze-notify": {"command": sys.executable,
                                                 "args": [str(notify)]}}
    # Claude Code: the scripted call waits (up to 10 s) for the Notification the server sends
    # after connecting, so the turn cannot end before it arrives (a turn on an idle machine is
    # shorter than the server's half second, and claude drops a notice sent before it lists)
    command = COMMAND if harness_id != "claude_code" else (
        f"for i in $(seq 100); do grep -q Notification {shlex.quote(str(log))} 2>/dev/null "
        f"&& break; sleep 0.1; done; {COMMAND}")

    with model_server() as model:
        asked, judge = judge_once()
        requests = turn(lab, harness, model, Script(command, judge=judge), env,
                        servers=servers if harness_id == "claude_code" else None)
        assert exists(lab, COMMAND.split()[1]), f"the scripted call `{COMMAND}` did not run"
        prompts = seen(log, "UserPromptSubmit")
        assert prompts and prompts[0].get("prompt") == PROMPT, prompts
        if routes["end-log"] != "unsupported":
            with evidence.check(harness_id, "hook.event.end", scope):
                ends = seen(log, "SessionEnd")
                assert len(ends) == 1, f"SessionEnd ran {len(ends)} times"
                assert "reason" in ends[0], ends
        compacts = seen(log, "PreCompact")
        if routes["compact-log"] == "degraded":  # Gemini CLI: before each request
            assert len(compacts) >= 2, compacts
        else:
            assert not compacts, "PreCompact ran with nothing to compact"
        notified = seen(log, "Notification")
        if routes["notify-log"] == "unsupported":
            assert not notified, "a Notification group uze reports unsupported ran"
        else:
            with evidence.check(harness_id, "hook.event.notify", scope):
                kinds = [n.get("notification_type") for n in notified]
                assert "elicitation_complete" in kinds, notified
                assert any("uze-notify" in str(n.get("message")) for n in notified), notified
        if routes["judge"] == "unsupported":
            assert not asked, f"a model-run handler uze reports unsupported ran: {asked}"
        else:
            check_model_handlers(evidence, harness_id, scope, requests, asked)

        if routes["compact-log"] == "native":  # Claude Code: /compact in the same session
            with evidence.check(harness_id, "hook.event.compact", scope):
                turn(lab, harness, model, Script(judge=approve), env, "--continue",
                     prompt="/compact")
                compacts = seen(log, "PreCompact")
                assert [c.get("trigger") for c in compacts] == ["manual"], compacts

        if routes["substop-log"] != "unsupported":
            with evidence.check(harness_id, "hook.event.substop", scope):
                tool, arguments = SUBAGENT_CALLS[api]
                script = Script(calls=((PROMPT, tool, arguments),), follow=wait_for_agent,
                                judge=approve)
                before = len(seen(log, "SubagentStop"))
                turn(lab, harness, model, script, env)
                stops = seen(log, "SubagentStop")[before:]
                assert stops and all(s.get("agent_type") for s in stops), stops

        with evidence.check(harness_id, "hook.event.prompt", scope):
            blocked = command_turn(lab, harness, model, COMMAND,
                                   {**env, "UZE_PROMPT_BLOCK": "1"}, check=False)
            assert seen(log, "UserPromptSubmit")[-1].get("prompt") == PROMPT
            sent = [r for r in blocked if r.api == api and PROMPT in r.text()]
            assert not sent, "a prompt the UserPromptSubmit handler denied reached the model"


def check_model_handlers(evidence: EvidenceRun, harness_id: str, scope: str,
                         requests: list[Request], asked: Counter[str]) -> None:
    """Claude Code ran the Stop prompt and agent handlers of the first turn: each asked the
    model with the hook input in place of $ARGUMENTS, its `ok: false` made the agent go on
    with the reason (a later main-loop request carries it), and it was asked again."""
    judged = [r for r in requests if "UZE_JUDGE_PROMPT" in r.text() and wants_json(r.body)]
    agents = [r for r in requests if "UZE_AGENT_PROMPT" in r.text() and not wants_json(r.body)]
    main = [r for r in requests if r.api == "claude" and PROMPT in r.text()
            and not wants_json(r.body) and "UZE_AGENT_PROMPT" not in r.text()]
    for capability, marker, asks in (("hook.handler.prompt", "UZE_JUDGE_PROMPT", judged),
                                     ("hook.handler.agent", "UZE_AGENT_PROMPT", agents)):
        with evidence.check(harness_id, capability, scope):
            assert asks, f"Claude Code never asked the model {marker}"
            text = asks[0].text()
            told = text[text.find(marker):][:3000]  # the hook input in place of $ARGUMENTS
            assert "$ARGUMENTS" not in told and "hook_event_name" in told, told
            if marker == "UZE_AGENT_PROMPT":
                offered = [t.get("name") for t in asks[0].body.get("tools") or []]
                assert "StructuredOutput" in offered, offered
            assert asked[marker] >= 2, f"{marker}: ok:false did not make the agent go on"
            assert any(REASONS[marker] in r.text() for r in main), (
                f"{REASONS[marker]} (the ok:false reason) never reached the model")


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
