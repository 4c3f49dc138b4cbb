"""The runtime half of a generated hook wrapper, as a real module (see `uze.hooks.wrapper`).

A generated script is a `CONFIG = ...` line followed by this file from the `uze:script-begin`
line on, less the `uze:module-only` block. It is Python 3.8+ and stdlib only, and imports
nothing from uze: uninstalling uze must not break an installed hook (adr/0008). It implements
the hook ABI (docs/package-format.md) for one harness and one group, and answers in that
harness's native form. It runs on every tool call, so it stays on `os` and `%` formatting
(no pathlib or contextlib import); pyproject.toml relaxes those ruff rules and mypy's
annotation rules for this file only. uze never imports it; tests do, and run generated scripts.
"""

# uze:script-begin
import json
import os
import signal
import subprocess
import sys
import tempfile
from os import environ as _ENV  # the whole environment, passed on to handlers
from typing import Any  # uze:module-only

# uze:module-only-begin (the generated script defines CONFIG on its first lines instead)
CONFIG: Any = {}
# uze:module-only-end

HERE = os.path.dirname(os.path.abspath(__file__))  # before anything could change the cwd
REASON_LIMIT = 4096
TRANSFORM_LIMIT = 64 * 1024
ENV_INPUT_LIMIT = 96 * 1024  # Linux rejects one environment string above 128 KiB
# Antigravity's TargetFile/AbsolutePath/CommandLine/Url are third-party reports (unverified).
PATH_KEYS = ("file_path", "path", "absolute_path", "notebook_path", "filePath", "TargetFile",
             "AbsolutePath")
QUERY_KEYS = ("query", "pattern", "url", "prompt", "Url")
COMMAND_KEYS = ("command", "CommandLine")
PATCH_KEYS = ("command", "input", "patchText")
PATCH_FILE = ("*** Add File: ", "*** Update File: ", "*** Delete File: ")


def plugin_root():
    """PLUGIN_ROOT: CONFIG's `plugin_root` is relative to this script's folder, so a project
    that moves or is cloned elsewhere still finds its package copy (adr/0039)."""
    return os.path.normpath(os.path.join(HERE, CONFIG["plugin_root"]))


def tool_fields(alias, tool_input):
    """HOOK_COMMAND / HOOK_PATH / HOOK_QUERY for the alias, from the tool's input."""
    fields = {}
    if not isinstance(tool_input, dict):
        return fields
    if alias == "shell":
        command = next((tool_input[k] for k in COMMAND_KEYS if k in tool_input), "")
        if isinstance(command, list):
            command = " ".join(str(part) for part in command)
        fields["HOOK_COMMAND"] = str(command)
    if alias.startswith("file.") or alias == "search.files":
        path = next((tool_input[k] for k in PATH_KEYS if isinstance(tool_input.get(k), str)), None)
        if path is None:  # apply_patch (Codex, OpenCode): the file names are in the patch text
            text = next((tool_input[k] for k in PATCH_KEYS if tool_input.get(k)), "")
            lines = text.splitlines() if isinstance(text, str) else []
            found = [ln.split(": ", 1)[1] for ln in lines if ln.startswith(PATCH_FILE)]
            path = found[0] if found else ""
        fields["HOOK_PATH"] = path
    if alias.startswith("search."):
        query = next((tool_input[k] for k in QUERY_KEYS if isinstance(tool_input.get(k), str)), "")
        fields["HOOK_QUERY"] = query
    return fields


def matches(tool, aliases):
    matcher = CONFIG["matcher"]
    if matcher is None or tool == "":  # events without a tool ignore the matcher
        return True
    for part in matcher.split("|"):
        if part.startswith("native:") and part[len("native:"):] == tool:
            return True
        if part in aliases:
            return True
    return False


def normalised(native):
    """Antigravity's input (toolCall{name,args}, workspacePaths, no cwd) in the common shape."""
    if CONFIG["input"] != "tool_call":
        return native
    call = native.get("toolCall") if isinstance(native.get("toolCall"), dict) else {}
    roots = native.get("workspacePaths") or []
    cwd = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else None
    return {"tool_name": call.get("name"), "tool_input": call.get("args", {}), "cwd": cwd}


def context(native):
    native = normalised(native)
    tool = native.get("tool_name") or ""
    tool = tool if isinstance(tool, str) else ""
    aliases = CONFIG["tools"].get(tool, [])  # without a tool: the event's own fields (prompt...)
    tool_input = native.get("tool_input", {}) if tool else {
        k: native[k] for k in CLAUDE_INPUT_KEYS.get(CONFIG["event"], ()) if k in native}
    cwd = native.get("cwd") if isinstance(native.get("cwd"), str) else os.getcwd()
    env = {k: v for k, v in _ENV.items() if not k.startswith("HOOK_")}
    env.update({
        "HOOK_HARNESS": CONFIG["harness"],
        "HOOK_EVENT": CONFIG["event"],
        "HOOK_TOOL": aliases[0] if aliases else "",
        "HOOK_TOOL_NATIVE": tool,
        "HOOK_CWD": cwd,
        "PLUGIN_ROOT": plugin_root(),
        "CLAUDE_PLUGIN_ROOT": plugin_root(),
    })
    if aliases:
        env.update(tool_fields(aliases[0], tool_input))
    return tool, aliases, tool_input, cwd, env


def argv(handler):
    root = plugin_root()
    command = handler["command"]
    if handler.get("args") is not None:  # exec form: the args reach the handler untouched
        for variable in ("${PLUGIN_ROOT}", "${CLAUDE_PLUGIN_ROOT}"):
            command = command.replace(variable, root)
        if command.startswith("./"):
            command = os.path.join(root, command[2:])
        return [command] + list(handler["args"])
    if command.startswith("./"):
        command = '"$PLUGIN_ROOT"/' + command[2:]
    return ["/bin/sh", "-c", command]


def kill_tree(proc):
    if os.name == "posix":
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
    else:
        subprocess.call(["taskkill", "/F", "/T", "/PID", str(proc.pid)],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def run(handler, tool_input, cwd, env):
    """(status, stdout, stderr): status 0 or 3, or a failure text."""
    data = json.dumps(tool_input).encode("utf-8")
    env = dict(env, HOOK_INPUT=data.decode("utf-8") if len(data) <= ENV_INPUT_LIMIT else "")
    label = handler["command"]
    with tempfile.TemporaryFile() as stdin, tempfile.TemporaryFile() as out, \
            tempfile.TemporaryFile() as err:
        stdin.write(data)
        stdin.seek(0)
        try:
            proc = subprocess.Popen(
                argv(handler), stdin=stdin, stdout=out, stderr=err, env=env,
                cwd=cwd if os.path.isdir(cwd) else None, start_new_session=os.name == "posix",
                creationflags=getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0))
        except OSError as error:
            return "hook handler %s could not start: %s" % (label, error), b"", b""
        try:
            code = proc.wait(timeout=handler["timeout"])
        except subprocess.TimeoutExpired:
            kill_tree(proc)
            proc.wait()
            return "hook handler %s timed out after %d s" % (label, handler["timeout"]), b"", b""
        kill_tree(proc)  # nothing a handler started outlives it
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(TRANSFORM_LIMIT + 1), err.read(REASON_LIMIT)
    if code in (0, 3):
        return code, stdout, stderr
    return "hook handler %s failed with exit status %s" % (label, code), stdout, stderr


def reason_of(stderr, label):
    text = stderr[:REASON_LIMIT].decode("utf-8", "replace").strip()
    return text or "denied by hook handler %s" % label


def rewritten(stdout, current):
    """The transform's new input, the current one when stdout is empty, or a failure text."""
    if not stdout.strip():
        return current
    if len(stdout) > TRANSFORM_LIMIT:
        return "transform output is larger than 64 KiB"
    try:
        value = json.loads(stdout.decode("utf-8"))
    except ValueError:
        return "transform output is not one JSON object"
    return value if isinstance(value, dict) else "transform output is not one JSON object"


def decide(tool_input, cwd, env):
    """("none"|"allow"|"ask"|"deny"|"rewrite", reason or new input)."""
    effect, current, approved = CONFIG["effect"], tool_input, True
    for handler in CONFIG["handlers"]:
        status, stdout, stderr = run(handler, current, cwd, env)
        if isinstance(status, str):  # a failure: closed for deny/ask/transform, open otherwise
            if effect in ("deny", "ask", "transform"):
                return "deny", status
            approved = False  # an allow group approves only when every handler said allow
            continue
        if status == 3 and effect != "observe":
            return ("ask" if effect == "ask" else "deny"), reason_of(stderr, handler["command"])
        if effect == "transform":
            current = rewritten(stdout, current)
            if isinstance(current, str):
                return "deny", current
    if effect == "allow" and approved:
        return "allow", ""
    if effect == "transform" and current != tool_input:
        return "rewrite", current
    return "none", ""


def answer_claude(kind, detail):
    event = CONFIG["native_event"]
    if event != "PreToolUse":
        return ({"decision": "block", "reason": detail}, "", 0) if kind == "deny" else (None, "", 0)
    out = {"hookEventName": event}
    if kind == "rewrite":  # Claude applies updatedInput only with a decision: let the user see it
        out.update(permissionDecision="ask", updatedInput=detail,
                   permissionDecisionReason="input rewritten by hook " + CONFIG["label"])
    elif kind in ("allow", "ask", "deny"):
        out["permissionDecision"] = kind
        if detail:
            out["permissionDecisionReason"] = detail
    else:
        return None, "", 0
    return {"hookSpecificOutput": out}, "", 0


def answer_gemini(kind, detail):
    if kind == "deny":
        return {"decision": "deny", "reason": detail}, "", 0
    if kind == "rewrite":
        return {"hookSpecificOutput": {"hookEventName": CONFIG["native_event"],
                                       "tool_input": detail}}, "", 0
    return None, "", 0


def answer_exit2(kind, detail):
    """Kimi Code: only a block is expressible, as exit 2 with the reason on stderr."""
    return (None, detail, 2) if kind == "deny" else (None, "", 0)


def answer_codex(kind, detail):
    """Codex: exit 2 blocks a tool call; Stop takes `decision: block` (a continuation)."""
    if kind == "deny" and CONFIG["native_event"] != "PreToolUse":
        return {"decision": "block", "reason": detail}, "", 0
    return answer_exit2(kind, detail)


def answer_opencode(kind, detail):
    """For the generated OpenCode plugin: it throws the reason, or replaces `output.args`."""
    if kind == "deny":
        return {"decision": "deny", "reason": detail}, "", 0
    if kind == "rewrite":
        return {"decision": "rewrite", "args": detail}, "", 0
    return None, "", 0


def answer_antigravity(kind, detail):
    """PreToolUse must always decide: a missing decision fails closed (harnesses.md 5.5)."""
    if CONFIG["native_event"] != "PreToolUse":
        return None, "", 0
    if kind in ("deny", "ask"):
        return {"decision": kind, "reason": detail}, "", 0
    return {"decision": "allow"}, "", 0


# Answer styles, named by each harness module's `hook_protocol.answer`.
ANSWERS = {"claude": answer_claude, "gemini": answer_gemini, "exit2_pretool": answer_codex,
           "exit2": answer_exit2, "throw": answer_opencode, "decision": answer_antigravity}


# --- the claude protocol: handlers that read Claude's hook JSON and answer as to Claude ---
CLAUDE_INPUT_KEYS = {  # Claude event -> the native keys copied into Claude's hook JSON
    "PreToolUse": (), "PostToolUse": ("tool_response",),
    "Stop": ("stop_hook_active", "last_assistant_message"),
    "SubagentStop": ("stop_hook_active", "agent_id", "agent_type", "agent_transcript_path",
                     "last_assistant_message"),
    "SessionStart": ("source",), "UserPromptSubmit": ("prompt",),
    "PreCompact": ("trigger", "custom_instructions"), "SessionEnd": ("reason",),
    "Notification": ("message", "title", "notification_type"),
}
STOP_EVENTS = ("Stop", "SubagentStop")
# Claude event -> the input field its matcher tests (tool events: tool_name)
MATCHED_KEYS = {"SessionStart": "source", "SubagentStop": "agent_type", "PreCompact": "trigger",
                "SessionEnd": "reason", "Notification": "notification_type"}
# Claude's SessionEnd reasons; any other (Gemini CLI's `exit` at the end of a run) is `other`
END_REASONS = ("clear", "resume", "logout", "prompt_input_exit", "bypass_permissions_disabled",
               "other")
NOTIFICATION_TYPES = {"ToolPermission": "permission_prompt"}  # Gemini CLI's -> Claude's


def claude_tool_input(tool, tool_input):
    """The native tool input in the keys Claude's tools take (`file_path`, `command`, ...)."""
    if not isinstance(tool_input, dict):
        return tool_input
    translated = dict(tool_input)
    fields = tool_fields("shell" if tool == "Bash" else "file." if tool in (
        "Read", "Write", "Edit") else "", tool_input)
    if tool == "Bash":
        translated["command"] = fields.get("HOOK_COMMAND", "")
    if tool in ("Read", "Write", "Edit") and "file_path" not in translated:
        translated["file_path"] = fields.get("HOOK_PATH", "")
    return translated


def claude_bash_response(response):
    """A shell tool's native result as Claude's Bash `tool_response` (`stdout`, `stderr`,
    `interrupted`, `isImage`): Codex and OpenCode give the output text, Gemini CLI
    `returnDisplay` (what the user saw) with `error` when the command failed."""
    if isinstance(response, dict) and "stdout" in response:
        return response
    stdout, stderr = "" if response is None else response, ""
    if isinstance(response, dict):
        stdout = response.get("returnDisplay", response.get("output", ""))
        error = response.get("error")
        stderr = error.get("message", "") if isinstance(error, dict) else error or ""
    return {"stdout": stdout if isinstance(stdout, str) else json.dumps(stdout),
            "stderr": str(stderr), "interrupted": False, "isImage": False}


def claude_input(native):
    """Claude's hook JSON for this event from the harness's native input, and the tool's
    Claude name ("" for events without a tool)."""
    native = normalised(native)
    tool = native.get("tool_name") if isinstance(native.get("tool_name"), str) else ""
    name = CONFIG["tools"].get(tool, [tool])[0] if tool else ""
    cwd = native.get("cwd") if isinstance(native.get("cwd"), str) else os.getcwd()
    event = CONFIG["event"]
    data = {"session_id": str(native.get("session_id") or ""),
            "transcript_path": str(native.get("transcript_path") or ""),
            "cwd": cwd, "hook_event_name": event, "permission_mode": "default"}
    if event in ("PreToolUse", "PostToolUse"):
        data["tool_name"] = name
        data["tool_input"] = claude_tool_input(name, native.get("tool_input", {}))
    for key in CLAUDE_INPUT_KEYS.get(event, ()):
        if key in native:
            data[key] = native[key]
    if name == "Bash" and "tool_response" in data:
        data["tool_response"] = claude_bash_response(data["tool_response"])
    if event == "SessionStart":
        data.setdefault("source", "startup")
    if event == "SessionEnd":
        data["reason"] = data.get("reason") if data.get("reason") in END_REASONS else "other"
    if event == "PreCompact":
        data["trigger"] = "manual" if data.get("trigger") == "manual" else "auto"
        data.setdefault("custom_instructions", "")
    if event == "Notification":
        kind = data.get("notification_type")
        data["notification_type"] = NOTIFICATION_TYPES.get(kind, kind) if isinstance(
            kind, str) else ""
        data["message"] = data["message"] if isinstance(data.get("message"), str) else ""
    if event == "Stop" and isinstance(native.get("prompt_response"), str):  # Gemini CLI
        data.setdefault("last_assistant_message", native["prompt_response"])
    if event in STOP_EVENTS:
        data["stop_hook_active"] = bool(data.get("stop_hook_active"))
    return data, name


def claude_matches(data):
    """The group's matcher: a regex on the tool's Claude name, or on the field Claude matches
    for the event (MATCHED_KEYS: SessionStart's source, PreCompact's trigger...)."""
    matcher = CONFIG["matcher"]
    key = MATCHED_KEYS.get(str(data.get("hook_event_name")))
    subject = data.get("tool_name") if "tool_name" in data else data.get(key) if key else None
    if matcher is None or subject is None:
        return True
    import re
    try:
        return re.fullmatch(matcher, subject) is not None
    except re.error:
        return True  # a regex Python cannot read: run the handler, it decides


def claude_if(condition, data):
    """A handler's `if` (Claude permission-rule syntax `Tool(pattern)`): False only when it
    names another tool, or a pattern the call's command or path does not match."""
    if not condition or "tool_name" not in data:
        return True
    import fnmatch
    tool, _, rest = condition.partition("(")
    if tool.strip() != data["tool_name"]:
        return False
    pattern = rest[:-1] if rest.endswith(")") else rest
    tool_input = data.get("tool_input") if isinstance(data.get("tool_input"), dict) else {}
    subject = tool_input.get("command") or tool_input.get("file_path") or ""
    pattern = pattern.replace(":*", "*")
    return not pattern or fnmatch.fnmatchcase(str(subject), pattern)


def run_claude(handler, data, cwd):
    """(exit status or None when it did not finish, stdout, stderr) of one command handler."""
    root = plugin_root()
    env = dict(_ENV, CLAUDE_PLUGIN_ROOT=root, PLUGIN_ROOT=root)
    env.setdefault("CLAUDE_PROJECT_DIR", cwd)
    with tempfile.TemporaryFile() as stdin, tempfile.TemporaryFile() as out, \
            tempfile.TemporaryFile() as err:
        stdin.write(json.dumps(data).encode("utf-8"))
        stdin.seek(0)
        try:
            proc = subprocess.Popen(
                ["/bin/sh", "-c", handler["command"]], stdin=stdin, stdout=out, stderr=err,
                env=env, cwd=cwd if os.path.isdir(cwd) else None,
                start_new_session=os.name == "posix")
        except OSError:
            return None, b"", b""
        try:
            code = proc.wait(timeout=handler["timeout"])
        except subprocess.TimeoutExpired:
            code = None
        kill_tree(proc)
        proc.wait()
        out.seek(0)
        err.seek(0)
        return code, out.read(TRANSFORM_LIMIT + 1), err.read(REASON_LIMIT)


def claude_verdict(results, event):
    """Claude's rules applied to the handlers' (status, stdout, stderr): a dict with `block`
    (reason), `ask` (reason), `stop` (reason), `context` and `message` (texts), each only when
    some handler said so. A handler that failed or timed out is a non-blocking error (ignored),
    as in Claude Code; exit 2 blocks where the event can block."""
    verdict, contexts, messages = {}, [], []
    for code, stdout, stderr in results:
        if code == 2:
            if event in ("PreToolUse", "PostToolUse", "UserPromptSubmit") + STOP_EVENTS:
                verdict.setdefault("block", reason_of(stderr, "a Claude-protocol handler"))
            continue
        if code != 0:
            continue
        text = stdout[:TRANSFORM_LIMIT].decode("utf-8", "replace").strip()
        try:
            answer = json.loads(text) if text.startswith("{") else None
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            if text and event in ("SessionStart", "UserPromptSubmit"):  # context there
                contexts.append(text)
            continue
        specific = answer.get("hookSpecificOutput")
        specific = specific if isinstance(specific, dict) else {}
        reason = str(answer.get("reason") or specific.get("permissionDecisionReason") or "")
        if answer.get("continue") is False:
            verdict.setdefault("stop", str(answer.get("stopReason") or reason))
        decision = specific.get("permissionDecision")
        if answer.get("decision") == "block" or decision == "deny":
            verdict.setdefault("block", reason or "blocked by a Claude-protocol hook")
        elif decision == "ask":
            verdict.setdefault("ask", reason or "a Claude-protocol hook asks for approval")
        if isinstance(specific.get("additionalContext"), str):
            contexts.append(specific["additionalContext"])
        if isinstance(answer.get("systemMessage"), str):
            messages.append(answer["systemMessage"])
    if "ask" in verdict and "block" not in verdict:  # no harness here can ask: fail closed
        verdict["block"] = "needs the user's approval, which %s cannot ask: %s" % (
            CONFIG["harness"], verdict["ask"])
    if contexts:
        verdict["context"] = "\n".join(contexts)
    if messages:
        verdict["message"] = "\n".join(messages)
    return verdict


def claude_answer(verdict):
    """(stdout object or None, stderr text, exit status) in the harness's own hook protocol."""
    style, native = CONFIG["answer"], CONFIG["native_event"]
    if CONFIG["event"] == "PostToolUse" and "block" in verdict:
        # Claude Code keeps the tool's output and tells the model the reason; a native block
        # would replace the output with it (Gemini CLI, Codex): the reason is context instead
        verdict = dict(verdict)
        reason = verdict.pop("block")
        verdict["context"] = "\n".join([reason] + ([verdict["context"]]
                                                  if "context" in verdict else []))
    out = {}
    if "stop" in verdict:
        out.update({"continue": False, "stopReason": verdict["stop"]})
    if "message" in verdict:
        out["systemMessage"] = verdict["message"]
    if "context" in verdict:
        out["hookSpecificOutput"] = {"hookEventName": native,
                                     "additionalContext": verdict["context"]}
    block = verdict.get("block")
    if block is not None and style == "exit2_pretool" and native == "PreToolUse":
        return out or None, block, 2  # exit 2 + stderr: what blocks a Codex tool call
    if block is not None:
        deny = style in ("gemini", "throw")  # `throw`: the generated plugin throws
        out.update({"decision": "deny" if deny else "block", "reason": block})
    return out or None, "", 0


def main_claude(native):
    data, _ = claude_input(native)
    if not claude_matches(data):
        return None, "", 0
    results = [run_claude(h, data, data["cwd"]) for h in CONFIG["handlers"]
               if claude_if(h.get("if"), data)]
    return claude_answer(claude_verdict(results, CONFIG["event"]))


def main():
    if CONFIG.get("protocol") == "claude":
        try:
            native = json.loads(sys.stdin.buffer.read().decode("utf-8") or "{}")
            out, err, code = main_claude(native if isinstance(native, dict) else {})
        except Exception as error:  # as a failing Claude handler: a non-blocking error
            out, err, code = None, "hook %s failed: %s" % (CONFIG["label"], error), 0
        if out is not None:
            sys.stdout.write(json.dumps(out) + "\n")
        if err:
            sys.stderr.write(err + "\n")
        return code
    try:
        native = json.loads(sys.stdin.buffer.read().decode("utf-8") or "{}")
        if not isinstance(native, dict):
            raise ValueError("hook input is not a JSON object")
        tool, aliases, tool_input, cwd, env = context(native)
        kind, detail = decide(tool_input, cwd, env) if matches(tool, aliases) else ("none", "")
    except Exception as error:  # the wrapper itself failed: the group's failure rule applies
        if CONFIG["effect"] not in ("deny", "ask", "transform"):
            return 0
        kind, detail = "deny", "hook %s failed: %s" % (CONFIG["label"], error)
    out, err, code = ANSWERS[CONFIG["answer"]](kind, detail)
    if out is not None:
        sys.stdout.write(json.dumps(out) + "\n")
    if err:
        sys.stderr.write(err + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
