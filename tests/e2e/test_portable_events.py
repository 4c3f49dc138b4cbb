"""The capability map's other events and prompt/agent handlers, end to end with the real `uze`
(adr/0089): what each harness gets written, what is refused before attach and said by
`uze check`, and an uninstall that leaves every byte as it was.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.helpers import build_tree, run_uze, tree_bytes

pytestmark = pytest.mark.e2e
LOG = {"type": "command", "command": "${PLUGIN_ROOT}/log.sh"}
HOOKS = {"hooks": {
    "UserPromptSubmit": [{"id": "prompt-guard", "effect": "deny", "hooks": [LOG]}],
    "SubagentStop": [{"id": "substop-log", "hooks": [LOG]}],
    "SessionEnd": [{"id": "end-log", "hooks": [LOG]}],
    "PreCompact": [{"id": "compact-log", "hooks": [LOG]}],
    "Notification": [{"id": "notify-log", "hooks": [LOG]}],
    "Stop": [{"id": "judge", "effect": "deny",
              "hooks": [{"type": "prompt", "prompt": "Is the task done? $ARGUMENTS"}]}],
}}
HARNESSES = "claude_code,codex,gemini_cli,opencode"


def package(root: Path, hooks: object = HOOKS) -> Path:
    return build_tree(root / "events", {
        "plugin.json": json.dumps({"name": "events", "version": "1.0.0",
                                   "description": "every event"}),
        "hooks.json": json.dumps(hooks),
        "log.sh": "#!/bin/sh\nexit 0\n",
    })


def test_each_harness_gets_exactly_the_events_it_runs(sandbox: Sandbox) -> None:
    source = package(sandbox.root)
    before = tree_bytes(sandbox.project), tree_bytes(sandbox.home)
    checked = run_uze("check", source, "--harness", HARNESSES, "--verbose", cwd=sandbox.project)
    assert checked.returncode == 0, checked.stderr
    assert tree_bytes(sandbox.project) == before[0]  # check writes nothing
    for line in ("Codex 0.171.0 skips prompt hook handlers",
                 "Codex clamps a SessionEnd hook's timeout to 3 s",
                 "Gemini CLI fires PreCompress (trigger auto) before each",
                 "Gemini CLI has no event for a subagent's end",
                 "OpenCode has no event for a session's end"):
        assert line in " ".join(checked.stdout.split()), line

    done = run_uze("install", source, "--harness", HARNESSES, "--trust", cwd=sandbox.project)
    assert done.returncode == 0, done.stderr
    claude = json.loads((sandbox.project / ".claude/settings.json").read_text())["hooks"]
    assert list(claude) == ["UserPromptSubmit", "SubagentStop", "SessionEnd", "PreCompact",
                            "Notification", "Stop"]
    assert claude["Stop"] == [{"hooks": [{"type": "prompt", "prompt": "Is the task done? "
                                          "$ARGUMENTS", "timeout": 30}]}]
    wrapper = claude["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert wrapper.endswith("/claude_code/UserPromptSubmit-0-prompt-guard.py")
    codex = json.loads((sandbox.project / ".codex/hooks.json").read_text())["hooks"]
    assert list(codex) == ["UserPromptSubmit", "SubagentStop", "SessionEnd"]
    gemini = json.loads((sandbox.project / ".gemini/settings.json").read_text())["hooks"]
    assert list(gemini) == ["BeforeAgent", "SessionEnd", "PreCompress"]
    assert not (sandbox.project / ".opencode").exists()  # nothing OpenCode can run
    wrappers = sorted(p.name for p in (sandbox.project / ".uze/hooks/events/codex").iterdir())
    assert wrappers == ["SessionEnd-0-end-log.py", "SubagentStop-0-substop-log.py",
                        "UserPromptSubmit-0-prompt-guard.py"]
    status = run_uze("status", "events", "--json", cwd=sandbox.project)
    assert status.returncode == 0, status.stderr
    (found,) = json.loads(status.stdout)["packages"]
    rows = {(r["harness"], r["resource"]): r for r in found["projections"]
            if r["kind"] == "hook"}  # the receipt keeps each tier with its reason
    assert rows[("codex", "compact-log")]["route"] == "unsupported"
    assert rows[("codex", "compact-log")]["state"] == "undelivered"
    assert "model_auto_compact_token_limit" in rows[("codex", "compact-log")]["reason"]
    assert rows[("gemini_cli", "compact-log")]["route"] == "degraded"
    assert rows[("claude_code", "judge")]["state"] == "matched"
    assert rows[("opencode", "judge")]["route"] == "unsupported"

    gone = run_uze("uninstall", "events", cwd=sandbox.project)
    assert gone.returncode == 0, gone.stderr
    assert (tree_bytes(sandbox.project), tree_bytes(sandbox.home)) == before


@pytest.mark.parametrize(("group", "words"), [
    ({"hooks": [{"type": "prompt", "prompt": "done?"}]}, 'must have effect "deny"'),
    ({"effect": "deny", "hooks": [{"type": "prompt", "prompt": "done?"}, LOG]},
     "cannot share a group with command handlers"),
    ({"effect": "deny", "hooks": [{"type": "agent"}]}, "an agent handler needs `prompt`"),
])
def test_a_bad_model_handler_group_is_refused_with_nothing_written(
        sandbox: Sandbox, group: dict[str, object], words: str) -> None:
    source = package(sandbox.root, {"hooks": {"Stop": [group]}})
    before = tree_bytes(sandbox.project), tree_bytes(sandbox.home)
    done = run_uze("install", source, "--harness", HARNESSES, "--trust", cwd=sandbox.project)
    assert done.returncode == 1, done.stdout
    assert "hooks.json" in done.stderr and "hooks.Stop[0]" in done.stderr
    assert words in " ".join(done.stderr.split())
    assert "Traceback" not in done.stderr
    assert (tree_bytes(sandbox.project), tree_bytes(sandbox.home)) == before
