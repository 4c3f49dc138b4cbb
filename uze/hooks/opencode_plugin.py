"""The OpenCode plugin bridge: one generated ES module per package that runs its hook wrappers.

OpenCode has no command hooks, only plugin code (harnesses.md 3.6). uze writes one module,
`uze-<package>.js`, to `.opencode/plugins/` or `~/.config/opencode/plugins/`; OpenCode 1.x
loads it at start. For each delivered group it spawns that group's generated Python wrapper
(the same HOOK_* contract, deadlines and failure rules as every other harness) with a
Claude-shaped input on stdin, and acts on the wrapper's answer:

- `tool.execute.before` (PreToolUse): `deny` throws an Error whose message is the reason (the
  call does not run, the model sees the reason); `rewrite` replaces the keys of the mutable
  `output.args` (seen applied by the real opencode 1.18.33, tests/conformance).
- `tool.execute.after` (PostToolUse): an answer's `hookSpecificOutput.additionalContext` (a
  Claude-protocol group's block reason or context) is appended to `output.output`, which is
  what the model reads, and `continue: false` aborts the session (`client.session.abort`): both
  seen with the real opencode 1.18.33 (tests/conformance/test_claude_hook_events.py);
  `session.created` (SessionStart) and `session.idle` (Stop) only observe.

A blocking group whose wrapper cannot start, exits non-zero, answers garbage or overruns its
deadline throws (fail closed); an observing one is skipped. Pure: returns bytes.
"""

from __future__ import annotations

import json
from typing import Final

import msgspec


class BridgeGroup(msgspec.Struct, frozen=True):
    """One delivered group as the plugin runs it."""

    label: str  # <package>/<group>
    event: str  # portable event
    tools: tuple[str, ...] | None  # native tool names it covers (None: every tool)
    blocking: bool  # fail closed
    wrapper: str  # the generated wrapper: absolute, or relative to the plugin file (adr/0039)
    timeout_ms: int  # the wrapper's own deadlines plus a grace period


def plugin_file_name(package: str) -> str:
    """`uze-<package>.js`: the one plugin file of a package."""
    return f"uze-{package}.js"


_RUNTIME: Final = r"""
const NATIVE = {
  PreToolUse: "tool.execute.before",
  PostToolUse: "tool.execute.after",
  SessionStart: "session.created",
  Stop: "session.idle",
};

// A relative wrapper path is relative to this file: the project can move (adr/0039).
function wrapperPath(wrapper) {
  return wrapper.startsWith("/") ? wrapper : fileURLToPath(new URL(wrapper, import.meta.url));
}

function runWrapper(group, payload) {
  return new Promise((resolve) => {
    let done = false;
    const finish = (result) => {
      if (!done) {
        done = true;
        resolve(result);
      }
    };
    let child;
    try {  // its own process group: a deadline kills the wrapper and all in its group
      child = spawn(wrapperPath(group.wrapper), [],
                    { stdio: ["pipe", "pipe", "pipe"], detached: true });
    } catch (error) {
      finish({ failure: "could not start: " + error.message });
      return;
    }
    const out = [];
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch (error) {
        child.kill("SIGKILL");
      }
      child.stdout.destroy();
      child.stderr.destroy();
      finish({ failure: "timed out after " + group.timeout_ms + " ms" });
    }, group.timeout_ms);
    child.stdout.on("data", (chunk) => out.push(chunk));
    child.stderr.on("data", () => {});
    child.on("error", (error) => {
      clearTimeout(timer);
      finish({ failure: "could not start: " + error.message });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      finish({ code, stdout: Buffer.concat(out).toString("utf8") });
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

function parsed(result) {
  if (result.failure) return { failure: result.failure };
  if (result.code !== 0) return { failure: "exited with status " + result.code };
  const text = result.stdout.trim();
  if (text === "") return {};
  try {
    const answer = JSON.parse(text);
    if (answer && typeof answer === "object" && !Array.isArray(answer)) return answer;
  } catch (error) {}
  return { failure: "answered something other than one JSON object" };
}

async function run(group, payload) {
  const answer = parsed(await runWrapper(group, payload));
  if (answer.failure && group.blocking) {
    throw new Error("hook " + group.label + " failed: its wrapper " + answer.failure);
  }
  return answer;
}

function covers(group, tool) {
  return group.tools === null || group.tools.includes(tool);
}

function replaceArgs(args, next) {
  for (const key of Object.keys(args)) delete args[key];
  Object.assign(args, next);
}

async function observe(event, cwd) {
  for (const group of GROUPS) {
    if (group.event !== event) continue;
    try {
      await run(group, { hook_event_name: NATIVE[event], cwd });
    } catch (error) {}
  }
}

// Ends the session's agent loop (a Claude `continue: false`); the SDK of OpenCode 1.x takes
// `path.id`, its v2 `sessionID`.
async function stop(client, id) {
  try {
    await client.session.abort({ path: { id }, sessionID: id });
  } catch (error) {}
}

export const UzeHooks = async ({ client, directory }) => ({
  "tool.execute.before": async (input, output) => {
    for (const group of GROUPS) {
      if (group.event !== "PreToolUse" || !covers(group, input.tool)) continue;
      const payload = {
        hook_event_name: NATIVE.PreToolUse, tool_name: input.tool, tool_input: output.args,
        cwd: directory,
      };
      const answer = await run(group, payload);
      if (answer.decision === "deny") throw new Error(answer.reason);
      if (answer.decision === "rewrite") replaceArgs(output.args, answer.args);
    }
  },
  "tool.execute.after": async (input, output) => {
    for (const group of GROUPS) {
      if (group.event !== "PostToolUse" || !covers(group, input.tool)) continue;
      const payload = {
        hook_event_name: NATIVE.PostToolUse, tool_name: input.tool, tool_input: input.args,
        tool_response: output.output, cwd: directory,
      };
      let answer = {};
      try {
        answer = await run(group, payload);
      } catch (error) {}
      const specific = answer.hookSpecificOutput || {};
      if (typeof specific.additionalContext === "string" && typeof output.output === "string") {
        output.output += "\n\n" + specific.additionalContext;  // what the model reads
      }
      if (answer.continue === false) await stop(client, input.sessionID);
    }
  },
  event: async ({ event }) => {
    if (event.type === NATIVE.SessionStart) await observe("SessionStart", directory);
    if (event.type === NATIVE.Stop) await observe("Stop", directory);
  },
});
"""


def render_plugin(package: str, groups: tuple[BridgeGroup, ...]) -> bytes:
    """The plugin module for `package`'s delivered groups (in file order). Deterministic."""
    data = [
        {"label": g.label, "event": g.event, "blocking": g.blocking, "wrapper": g.wrapper,
         "tools": list(g.tools) if g.tools is not None else None, "timeout_ms": g.timeout_ms}
        for g in groups
    ]
    label = " ".join(package.split())
    header = (
        f"// Generated by uze for the package {label}: its hooks as an OpenCode plugin. Do not\n"
        "// edit: uze owns this file and replaces or removes it. Each group runs its generated\n"
        "// hook wrapper (Python 3); nothing of uze itself runs here.\n"
        'import { spawn } from "node:child_process";\n'
        'import { fileURLToPath } from "node:url";\n\n'
        f"const GROUPS = JSON.parse({json.dumps(json.dumps(data, sort_keys=True))});\n"
    )
    return (header + _RUNTIME).encode("utf-8")
