"""Claude's SessionEnd, PreCompact and Notification hooks on the real harnesses, with the
scripted model (adr/0034).

A Claude-layout package (written here) has one group per event whose handler appends Claude's
hook JSON to a log. One `-p` turn in which the model runs a shell command, then:

* SessionEnd ran once, when the run ended, with Claude's JSON: the session id, the project as
  cwd and one of Claude's reasons (Gemini CLI's `exit` is Claude's `other`) (`hook.claude.end`;
  on Codex the route is `degraded`, Codex allowing a SessionEnd hook 3 s, and the test asserts
  the same run without recording the unclaimed cell);
* where PreCompact is delivered `degraded` (Gemini CLI), it ran as the route's reason says: with
  trigger `auto` before each of the agent's model requests although nothing was compacted;
* Notification is delivered nowhere but Claude Code, and its handler did not run: a headless
  turn asks no confirmation (the reason names what was tried).

Each harness row is what `uze status` reports for it: an unsupported group must carry a reason.
Claude Code itself is the reference (verbatim groups).
"""

from __future__ import annotations

import json
from contextlib import nullcontext
from pathlib import Path

import pytest

from tests.conformance.behaviour import DRIVERS
from tests.conformance.evidence import EvidenceRun
from tests.conformance.lab import Lab, prepare_user_state, require
from tests.conformance.model_server import model_server
from tests.conformance.oracles import REAL_HARNESSES
from tests.conformance.test_behaviour import exists, status_cells
from tests.conformance.test_claude_hook_events import seen_inputs, turn
from tests.conftest import Sandbox

pytestmark = pytest.mark.conformance
NAME = "claude-session"
EVENTS = ("PreCompact", "SessionEnd", "Notification")
COMMAND = "touch uze-session-plain"
CLAUDE_END_REASONS = {"clear", "resume", "logout", "prompt_input_exit",
                      "bypass_permissions_disabled", "other"}
_LOG = """#!/bin/sh
input=$(cat)
printf '%s\\n' "$input" >> "$UZE_CLAUDE_SEEN"
exit 0
"""


def build_session_package(dest: Path) -> Path:
    """A Claude-layout plugin with a logging PreCompact, SessionEnd and Notification group."""
    (dest / ".claude-plugin").mkdir(parents=True)
    (dest / "hooks").mkdir()
    manifest = {"name": NAME, "version": "1.0.0", "description": "Claude session events."}
    (dest / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest), encoding="utf-8")
    (dest / "hooks" / "log.sh").write_text(_LOG, encoding="utf-8")
    (dest / "hooks" / "log.sh").chmod(0o755)
    command = {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/log.sh"}
    hooks = {"hooks": {event: [{"hooks": [command]}] for event in EVENTS}}
    (dest / "hooks" / "hooks.json").write_text(json.dumps(hooks, indent=2), encoding="utf-8")
    return dest


@pytest.mark.parametrize("scope", ("project", "user"))
@pytest.mark.parametrize("harness_id", ("claude_code", "gemini_cli", "codex"))
def test_claude_session_end_runs_when_a_headless_run_ends(
    sandbox: Sandbox, evidence: EvidenceRun, harness_id: str, scope: str
) -> None:
    harness = REAL_HARNESSES[harness_id]
    require(harness.binary)
    prepare_user_state(sandbox)
    lab = Lab(sandbox, build_session_package(sandbox.root / "packages" / NAME))
    lab.uze("install", str(lab.package), "--harness", harness_id, "--scope", scope, "--trust")
    hooks = {c.resource: c for c in status_cells(lab, harness_id, scope, NAME)
             if c.kind == "hook"}
    assert set(hooks) == {f"{event}-0" for event in EVENTS}
    assert all(c.reason for c in hooks.values() if not c.delivered), hooks
    if harness_id == "claude_code":
        assert {c.route for c in hooks.values()} == {"native"}, hooks
    elif harness_id == "gemini_cli":
        assert hooks["SessionEnd-0"].route == "adapted", hooks
        assert hooks["PreCompact-0"].route == "degraded", hooks
        assert hooks["Notification-0"].route == "unsupported", hooks
    else:  # Codex: SessionEnd runs, within the 3 s Codex allows it
        assert hooks["SessionEnd-0"].route == "degraded", hooks
        assert "3 s" in hooks["SessionEnd-0"].reason, hooks
        assert hooks["PreCompact-0"].route == "unsupported", hooks
        assert hooks["Notification-0"].route == "unsupported", hooks
    DRIVERS[harness_id].prepare(lab, scope)
    seen = sandbox.root / "claude-seen.jsonl"

    claimed = hooks["SessionEnd-0"].route in ("native", "adapted")
    checked = evidence.check(harness_id, "hook.claude.end", scope) if claimed else nullcontext()
    with model_server() as model, checked:
        turn(lab, harness, model, COMMAND, {"UZE_CLAUDE_SEEN": str(seen)})
        assert exists(lab, COMMAND.split()[1]), f"the scripted call `{COMMAND}` did not run"
        ends = seen_inputs(seen, "SessionEnd")
        assert len(ends) == 1, f"SessionEnd ran {len(ends)} times: {ends}"
        (end,) = ends
        assert end["reason"] in CLAUDE_END_REASONS, end
        assert isinstance(end["session_id"], str) and end["session_id"], end
        assert Path(str(end["cwd"])).resolve() == sandbox.project.resolve(), end
        assert isinstance(end.get("transcript_path"), str), end
        assert "timestamp" not in end, f"a native field reached the handler: {end}"
        lines = seen.read_text(encoding="utf-8").splitlines()
        last = json.loads(lines[-1])
        assert last["hook_event_name"] == "SessionEnd", f"an event ran after SessionEnd: {last}"
    if harness_id == "gemini_cli":
        assert end["reason"] == "other", end  # Gemini CLI's `exit`
        compacts = seen_inputs(seen, "PreCompact")
        # one per agent request (the prompt's, the tool result's), with a history of a few
        # tokens, far below Gemini CLI's compression threshold
        assert len(compacts) >= 2, compacts
        assert {(c["trigger"], c["custom_instructions"]) for c in compacts} == {("auto", "")}
    else:
        assert not seen_inputs(seen, "PreCompact"), "PreCompact ran with nothing to compact"
    assert not seen_inputs(seen, "Notification"), "a headless turn sent a Notification"
