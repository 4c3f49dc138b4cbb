"""The generated OpenCode plugin, run under node the way OpenCode 1.x calls it.

A small driver imports the module, calls its exported plugin function with `{directory}` and
invokes one hook with OpenCode's `(input, output)` objects (shapes from probes 5.4). The
wrappers it spawns are the real generated ones. The same plugin against the real opencode
binary: tests/conformance/test_opencode_hook_bridge.py.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import msgspec
import pytest

from uze.hooks.delivery import deliver_hooks, opencode_bridge
from uze.hooks.opencode_plugin import BridgeGroup, plugin_file_name, render_plugin
from uze.package.hooks import HooksFile

NODE = shutil.which("node") or "/usr/bin/node"
pytestmark = pytest.mark.skipif(not Path(NODE).exists(), reason="node is not installed")

DRIVER = r"""
const [plugin, scenario] = process.argv.slice(2);
const s = JSON.parse(scenario);
const hooks = await (await import(plugin)).UzeHooks({ directory: s.directory });
const output = { args: s.args };
const keep = output.args;
let threw = null;
try {
  if (s.hook === "event") await hooks.event({ event: { type: s.type } });
  else if (s.hook === "after") {
    await hooks["tool.execute.after"](
      { tool: s.tool, sessionID: "s", callID: "c", args: s.args },
      { title: "", output: "done", metadata: {} });
  } else await hooks["tool.execute.before"]({ tool: s.tool, sessionID: "s", callID: "c" }, output);
} catch (error) {
  threw = error.message;
}
console.log(JSON.stringify({ threw, args: output.args, same: output.args === keep }));
"""


def _sh(line: str, timeout: int = 30) -> dict[str, Any]:
    return {"type": "command", "command": line, "timeout": timeout}


def _install(tmp: Path, hooks: dict[str, Any]) -> Path:
    """Write the wrappers and the plugin as uze would; the plugin's path (as .mjs for node 20)."""
    wrappers = tmp / "wrappers"
    delivered = deliver_hooks("opencode", msgspec.convert({"hooks": hooks}, HooksFile), "pkg",
                              wrappers, tmp / "root")
    for d in delivered:
        assert d.wrapper is not None, d.reason
        path = wrappers / d.wrapper.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(d.wrapper.data)
        path.chmod(0o755)
    data = opencode_bridge("pkg", delivered)
    assert data is not None
    return _write_plugin(tmp, data)


def _write_plugin(tmp: Path, data: bytes) -> Path:
    plugin = tmp / "plugin.mjs"
    plugin.write_bytes(data)
    (tmp / "driver.mjs").write_text(DRIVER)
    return plugin


def _call(plugin: Path, tool: str = "bash", hook: str = "before", **more: Any) -> dict[str, Any]:
    scenario = {"hook": hook, "tool": tool, "directory": str(plugin.parent),
                "args": {"command": "git push --force", "description": "push"}, **more}
    done = subprocess.run([NODE, str(plugin.parent / "driver.mjs"), plugin.as_uri(),
                           json.dumps(scenario)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_a_deny_throws_the_handlers_reason(tmp_path: Path) -> None:
    plugin = _install(tmp_path, {"PreToolUse": [
        {"matcher": "shell", "effect": "deny",
         "hooks": [_sh('echo "no: $HOOK_COMMAND" >&2; exit 3')]},
    ]})
    assert _call(plugin)["threw"] == "no: git push --force"


def test_a_rewrite_replaces_the_keys_of_the_same_args_object(tmp_path: Path) -> None:
    rewrite = _sh("""python3 -c 'import json,sys; print(json.dumps({"command": "ls"}))'""")
    plugin = _install(tmp_path, {"PreToolUse": [
        {"matcher": "shell", "effect": "transform", "hooks": [rewrite]},
    ]})
    assert _call(plugin) == {"threw": None, "args": {"command": "ls"}, "same": True}


def test_groups_run_in_file_order_and_the_first_deny_wins(tmp_path: Path) -> None:
    log = tmp_path / "log"
    plugin = _install(tmp_path, {"PreToolUse": [
        {"effect": "observe", "hooks": [_sh(f"echo one >> '{log}'")]},
        {"effect": "deny", "hooks": [_sh(f"echo two >> '{log}'; echo first >&2; exit 3")]},
        {"effect": "deny", "hooks": [_sh(f"echo three >> '{log}'; exit 3")]},
    ]})
    assert _call(plugin)["threw"] == "first"
    assert log.read_text() == "one\ntwo\n"


def test_a_tool_outside_the_matcher_spawns_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    plugin = _install(tmp_path, {"PreToolUse": [
        {"matcher": "file.edit", "effect": "deny", "hooks": [_sh(f"touch '{marker}'; exit 3")]},
    ]})
    assert _call(plugin, tool="bash") == {
        "threw": None, "args": {"command": "git push --force", "description": "push"}, "same": True}
    assert not marker.exists()
    assert _call(plugin, tool="apply_patch")["threw"] == "denied by hook handler " + (
        f"touch '{marker}'; exit 3")
    assert marker.exists()


def test_a_missing_wrapper_blocks_a_deny_group_and_is_skipped_by_an_observer(
    tmp_path: Path,
) -> None:
    plugin = _install(tmp_path, {"PreToolUse": [
        {"effect": "observe", "hooks": [_sh("exit 0")]},
        {"effect": "deny", "hooks": [_sh("exit 0")]},
    ]})
    observer, guard = sorted((tmp_path / "wrappers" / "opencode").iterdir())
    observer.unlink()
    assert _call(plugin)["threw"] is None  # the deny group's wrapper still runs and allows
    guard.unlink()
    assert _call(plugin)["threw"] == (
        f"hook pkg/PreToolUse-1 failed: its wrapper could not start: spawn {guard} ENOENT")


@pytest.mark.parametrize(
    ("script", "failure"),
    [
        ("sleep 60", "timed out after 500 ms"),
        ("echo not json", "answered something other than one JSON object"),
        ("exit 4", "exited with status 4"),
    ],
    ids=["overruns-the-deadline", "garbage", "crash"],
)
def test_a_broken_wrapper_fails_closed_for_blocking_groups_only(
    tmp_path: Path, script: str, failure: str
) -> None:
    wrapper = tmp_path / "broken.sh"
    wrapper.write_text(f"#!/bin/sh\n{script}\n")
    wrapper.chmod(0o755)
    groups = tuple(
        BridgeGroup(f"pkg/{name}", "PreToolUse", None, blocking, str(wrapper), 500)
        for name, blocking in (("watch", False), ("guard", True))
    )
    plugin = _write_plugin(tmp_path, render_plugin("pkg", groups))
    assert _call(plugin)["threw"] == f"hook pkg/guard failed: its wrapper {failure}"
    only_observer = _write_plugin(tmp_path, render_plugin("pkg", groups[:1]))
    assert _call(only_observer)["threw"] is None


def test_observers_see_tool_results_and_session_events(tmp_path: Path) -> None:
    log = tmp_path / "log"
    line = f'echo "$HOOK_EVENT $HOOK_TOOL_NATIVE $HOOK_COMMAND" >> \'{log}\''
    plugin = _install(tmp_path, {
        "PostToolUse": [{"matcher": "shell", "hooks": [_sh(line)]}],
        "SessionStart": [{"hooks": [_sh(line)]}],
        "Stop": [{"hooks": [_sh(line + "; exit 3")]}],
    })
    assert _call(plugin, hook="after")["threw"] is None
    assert _call(plugin, hook="event", type="session.created")["threw"] is None
    assert _call(plugin, hook="event", type="session.idle")["threw"] is None
    assert _call(plugin, hook="event", type="session.updated")["threw"] is None
    assert log.read_text() == "PostToolUse bash git push --force\nSessionStart  \nStop  \n"


def test_the_plugin_is_one_file_per_package_and_deterministic() -> None:
    group = BridgeGroup("a b/c", "PreToolUse", ("bash",), True, "/w/x.py", 15000)
    one = render_plugin("a b", (group,))
    assert one == render_plugin("a b", (group,))
    assert one.startswith(b"// Generated by uze for the package a b: its hooks")
    assert b'import { spawn } from "node:child_process";' in one
    assert plugin_file_name("every-kind") == "uze-every-kind.js"


CLAUDE_DRIVER = r"""
const [plugin, scenario] = process.argv.slice(2);
const s = JSON.parse(scenario);
const aborted = [];
const client = { session: { abort: async (options) => { aborted.push(options); } } };
const hooks = await (await import(plugin)).UzeHooks({ client, directory: s.directory });
const output = { title: "", output: "UZE_OUT", metadata: {} };
await hooks["tool.execute.after"](
  { tool: "bash", sessionID: "ses_1", callID: "c", args: { command: s.command } }, output);
console.log(JSON.stringify({ output: output.output, aborted }));
"""


@pytest.mark.parametrize(("answer", "output", "aborted"), [
    ('{"decision": "block", "reason": "why", "hookSpecificOutput": '
     '{"additionalContext": "more"}}', "UZE_OUT\n\nwhy\nmore", []),
    ('{"continue": false, "stopReason": "enough"}', "UZE_OUT",
     [{"path": {"id": "ses_1"}, "sessionID": "ses_1"}]),
    ("", "UZE_OUT", []),
])
def test_a_claude_post_tool_use_answer_reaches_the_model_or_stops_the_session(
    tmp_path: Path, answer: str, output: str, aborted: list[object]
) -> None:
    """The plugin appends the wrapper's additionalContext (a Claude block's reason first) to
    the tool's output, which is what the model reads, and aborts the session on `continue:
    false`; the handler got Claude's hook JSON with the output as Bash's `stdout`."""
    from uze.hooks.delivery import deliver_claude_group
    from uze.package.claude_hooks import ClaudeHookGroup

    handler = tmp_path / "root" / "h.sh"
    handler.parent.mkdir()
    handler.write_text(f"#!/bin/sh\ncat > \"$0.in\"\necho '{answer}'\n", encoding="utf-8")
    handler.chmod(0o755)
    group = ClaudeHookGroup("PostToolUse-0", "PostToolUse", {
        "matcher": "Bash", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/h.sh"}]})
    wrappers = tmp_path / "wrappers"
    d = deliver_claude_group("opencode", group, "pkg", wrappers, tmp_path / "root")
    assert (d.route, d.wrapper is not None) == ("adapted", True), d.reason
    assert d.wrapper is not None
    path = wrappers / d.wrapper.path
    path.parent.mkdir(parents=True)
    path.write_bytes(d.wrapper.data)
    path.chmod(0o755)
    data = opencode_bridge("pkg", (d,))
    assert data is not None
    plugin = _write_plugin(tmp_path, data)
    (tmp_path / "driver.mjs").write_text(CLAUDE_DRIVER)
    scenario = {"directory": str(tmp_path), "command": "ls"}
    done = subprocess.run([NODE, str(tmp_path / "driver.mjs"), plugin.as_uri(),
                           json.dumps(scenario)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"output": output, "aborted": aborted}
    seen = json.loads((tmp_path / "root" / "h.sh.in").read_text(encoding="utf-8"))
    assert (seen["hook_event_name"], seen["tool_name"]) == ("PostToolUse", "Bash")
    assert (seen["tool_input"], seen["tool_response"]["stdout"]) == ({"command": "ls"}, "UZE_OUT")
