"""The oracle table: per real harness and resource kind, the offline command that shows what the
harness discovered (../shared/reference/real-harness-probes.md, section 0 and each harness's
"Oracles"), or why there is none that runs without a model server.

A harness joins the suite by adding one `RealHarness` here (and its pin to
scripts/install-harnesses.sh); every uze harness that cannot run here is named in `NOT_RUNNABLE`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from tests.conformance.contracts import (
    ANSI,
    HOOK_IDS,
    SESSION_ONLY,
    NoOracle,
    Oracle,
    RealHarness,
    Seen,
    count,
    instructions_seen,
    lines,
    session_runs,
    strings,
)
from tests.conformance.lab import PACKAGE, Lab

# --- Claude Code (probes 2.3) ---------------------------------------------------------------
CLAUDE_CONTEXT = ("-p", "/context", "--output-format", "stream-json", "--verbose")


def _claude_events(lab: Lab) -> list[dict[str, Any]]:
    """`claude -p /context` (a local command, no model turn) as stream-json events."""
    out = lab.run("claude", *CLAUDE_CONTEXT, "--include-hook-events").stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def _claude_context(lab: Lab) -> tuple[dict[str, Any], str]:
    """The init event and the /context markdown."""
    events = _claude_events(lab)
    init = next(e for e in events if e.get("subtype") == "init")
    result = next((e.get("result") or "" for e in events if e.get("type") == "result"), "")
    return init, result


def _md_rows(markdown: str, heading: str) -> list[list[str]]:
    """The body rows of the table under `### heading` in /context's markdown."""
    _, found, rest = markdown.partition(f"### {heading}\n")
    rows = []
    for line in rest.split("\n###")[0].splitlines() if found else []:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and not set(cells[0]) <= set("-: "):
            rows.append(cells)
    return rows[1:]  # drop the header row


def _claude_listed(table: str, init_key: str) -> Callable[[Lab], Seen]:
    """Skills/agents: init-event names and /context table rows, each name's larger count.

    The init event lists what a user can invoke, the /context table what the model is offered;
    a user-only skill is only in the first, a model-only skill only in the second.
    """

    def read(lab: Lab) -> Seen:
        init, markdown = _claude_context(lab)
        offered = count(row[0] for row in _md_rows(markdown, table))
        invocable = count(init.get(init_key) or [])
        counts = Counter({n: max(offered[n], invocable[n]) for n in offered | invocable})
        return Seen(counts, f"init {init_key}: {init.get(init_key)}\n{table}: {dict(offered)}")

    return read


def _claude_instructions(lab: Lab) -> Seen:
    """/context "Memory Files": the files Claude loads; their text is what the model gets."""
    _, markdown = _claude_context(lab)
    paths = [Path(row[1]) for row in _md_rows(markdown, "Memory Files")]
    text = "".join(p.read_text(encoding="utf-8") for p in paths if p.is_file())
    return Seen(instructions_seen(text), f"Memory Files: {[str(p) for p in paths]}\n{text}")


def _claude_mcp(lab: Lab) -> Seen:
    """`claude mcp list`: health-checks every server; `name: target - ✔ Connected`."""
    out = lab.run("claude", "mcp", "list").stdout
    rows = lines(r"^(\S+): .* - (\S+) ?(.*)$", out)
    connected = frozenset(m[1] for m in rows if m[3].startswith("Connected"))
    return Seen(count(m[1] for m in rows), out, connected)


def _claude_hooks(lab: Lab) -> Seen:
    """SessionStart hooks fire in `claude -p /context --include-hook-events` (probes 2.3)."""

    def run() -> str:
        events = _claude_events(lab)
        return "\n".join(json.dumps(e) for e in events if "hook" in e.get("subtype", ""))

    runs, events = session_runs(lab, run)
    return Seen(Counter({"session-note": runs}), f"session-note ran {runs}x; events:\n{events}")


CLAUDE = RealHarness(
    "claude_code",
    "claude",
    {
        "skill": Oracle(
            "claude -p /context (init skills + Skills table)", _claude_listed("Skills", "skills")
        ),
        "agent": Oracle(
            "claude -p /context (init agents + Custom Agents table)",
            _claude_listed("Custom Agents", "agents"),
        ),
        "mcp": Oracle("claude mcp list", _claude_mcp),
        "instructions": Oracle("claude -p /context (Memory Files)", _claude_instructions),
        "hook": Oracle(
            "claude -p /context --include-hook-events (SessionStart fires; tool hooks "
            "only in a scripted tool call)",
            _claude_hooks,
            SESSION_ONLY,
        ),
    },
)


# --- Codex (probes 3.2) ---------------------------------------------------------------------
def _codex_prompt_input(lab: Lab) -> list[dict[str, Any]]:
    """`codex debug prompt-input`: the model-visible input items, built offline."""
    items: list[dict[str, Any]] = json.loads(lab.run("codex", "debug", "prompt-input").stdout)
    return items


def _codex_skills(lab: Lab) -> Seen:
    """app-server `skills/list`: every skill with its scope, model-visible or not."""
    entry = _codex_app_server(lab, "skills/list")
    skills = [s for s in entry["skills"] if s["scope"] != "system"]
    evidence = json.dumps(
        {"skills": [[s["name"], s["scope"], s["path"]] for s in skills], "errors": entry["errors"]},
        indent=1,
    )
    return Seen(count(s["name"] for s in skills), evidence)


def _codex_agents(lab: Lab) -> Seen:
    """prompt-input: spawn_agent's `agent_type` lists "Available roles: <name>: {...}"."""
    texts = [t for t in strings(_codex_prompt_input(lab)) if "Available roles:" in t]
    roles = "".join(t.partition("Available roles:")[2] for t in texts)
    return Seen(count(m[1] for m in lines(r"^([\w.-]+): \{$", roles)), roles)


def _codex_instructions(lab: Lab) -> Seen:
    """prompt-input: the user item "# AGENTS.md instructions for <project>"."""
    texts = [
        part.get("text", "")
        for item in _codex_prompt_input(lab)
        for part in item.get("content") or []
        if isinstance(part, dict)
    ]
    text = "".join(t for t in texts if t.startswith("# AGENTS.md instructions"))
    return Seen(instructions_seen(text), text)


def _codex_mcp(lab: Lab) -> Seen:
    """`codex mcp list --json`: configured servers (user, and project when trusted); no connect."""
    servers = json.loads(lab.run("codex", "mcp", "list", "--json").stdout)
    enabled = [s["name"] for s in servers if s.get("enabled")]
    return Seen(count(enabled), json.dumps(servers, indent=1))


def _codex_app_server(lab: Lab, method: str) -> dict[str, Any]:
    """One app-server request for the project, e.g. `skills/list`; `result.data[0]`."""
    # --disable plugins: otherwise the app-server resolves github.com (plugin sync, strace).
    args = ("app-server", "--disable", "plugins", "--listen", "stdio://")
    (result,) = lab.rpc("codex", args, [(method, {"cwds": [str(lab.sandbox.project)]})])
    return result["data"][0]  # type: ignore[index,no-any-return]


def _codex_hooks(lab: Lab) -> Seen:
    """app-server `hooks/list`: every hook with its event, command, source and trust status."""
    hooks = _codex_app_server(lab, "hooks/list")["hooks"]
    events = [h["eventName"][:1].upper() + h["eventName"][1:] for h in hooks]
    evidence = json.dumps(
        [[h["eventName"], h["command"], h["source"], h["trustStatus"]] for h in hooks], indent=1
    )
    return Seen(count(HOOK_IDS.get(e, e) for e in events), evidence)


CODEX = RealHarness(
    "codex",
    "codex",
    {
        "skill": Oracle("codex app-server skills/list", _codex_skills),
        "agent": Oracle("codex debug prompt-input (spawn_agent roles)", _codex_agents),
        "mcp": Oracle("codex mcp list --json", _codex_mcp),
        "instructions": Oracle("codex debug prompt-input (AGENTS.md item)", _codex_instructions),
        "hook": Oracle("codex app-server hooks/list", _codex_hooks),
    },
)


# --- Gemini CLI (probes 4.2) ----------------------------------------------------------------
def _gemini_skills(lab: Lab) -> Seen:
    """`gemini skills list`: `name [Enabled]` blocks; a disabled skill does not count."""
    out = lab.run("gemini", "skills", "list").stdout
    return Seen(count(m[1] for m in lines(r"^(\S+) \[Enabled\]", out)), out)


def _gemini_mcp(lab: Lab) -> Seen:
    """`gemini mcp list` (prints on stderr): connects; `✓ name: target (stdio) - Connected`."""
    result = lab.run("gemini", "mcp", "list")
    out = result.stdout + result.stderr
    rows = lines(r"^\S+ ([^\s:]+)(?: \(from [^)]*\))?: .* - (\w+)$", out)
    connected = frozenset(m[1] for m in rows if m[2] == "Connected")
    return Seen(count(m[1] for m in rows), out, connected)


GEMINI_OFFLINE_MODEL = {"GEMINI_API_KEY": "dummy", "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"}
FIRST_MODEL_REQUEST_FAILED = r"^Attempt \d+ failed"


def _gemini_prompt(lab: Lab, prompt: str) -> str:
    """`gemini -p PROMPT` up to its first model request, which fails on a closed loopback port.

    Slash commands and start-up messages are printed before that request; the run is ended at
    the "Attempt 1 failed" retry line, so no model server is needed.
    """
    return lab.watch(
        "gemini", ("-p", prompt), until=FIRST_MODEL_REQUEST_FAILED, env=GEMINI_OFFLINE_MODEL
    )


def _gemini_instructions(lab: Lab) -> Seen:
    """`gemini -p "/memory show"`: each loaded context file under "--- Context from: <path>"."""
    out = _gemini_prompt(lab, "/memory show")
    return Seen(instructions_seen(out), out)


def _gemini_hooks(lab: Lab) -> Seen:
    """`gemini -p` start-up (probes 4.2): it names project-level hooks on stderr ("WARNING: The
    following project-level hooks have been detected") and runs SessionStart hooks. A name
    counts as listed or, for session-note, as run. Gemini names only hooks it has not warned
    about before (it records them in ~/.gemini/trusted_hooks.json), so that record is cleared.
    """
    (lab.sandbox.home / ".gemini" / "trusted_hooks.json").unlink(missing_ok=True)
    runs, out = session_runs(lab, lambda: _gemini_prompt(lab, "ping"))
    block = out.partition("project-level hooks have been detected")[2].partition("\n\n")[0]
    listed = count(m[1].removeprefix(f"{PACKAGE}/") for m in lines(r"^\s+- (\S+)$", block))
    listed["session-note"] = max(listed["session-note"], runs)
    return Seen(listed, f"session-note ran {runs}x\n{out}")


GEMINI_HOOKS = "gemini -p (start-up until the first model request fails)"
GEMINI = RealHarness(
    "gemini_cli",
    "gemini",
    {
        "skill": Oracle("gemini skills list", _gemini_skills),
        "agent": NoOracle(
            "Gemini CLI has no agent listing: agents show only in the model request "
            "(systemInstruction, invoke_agent); needs the scripted model"
        ),
        "mcp": Oracle("gemini mcp list", _gemini_mcp),
        "instructions": Oracle(
            'gemini -p "/memory show" (until its first model request fails)', _gemini_instructions
        ),
        "hook": {
            "project": Oracle(GEMINI_HOOKS + ": project hooks named on stderr", _gemini_hooks),
            "user": Oracle(
                GEMINI_HOOKS + ": SessionStart runs; user tool hooks are named nowhere offline",
                _gemini_hooks,
                SESSION_ONLY,
            ),
        },
    },
)


# --- OpenCode (probes 5.2) ------------------------------------------------------------------
def _opencode_skills(lab: Lab) -> Seen:
    """`opencode debug skill`: JSON [{name, location, ...}], built-ins at `<built-in>`."""
    skills = json.loads(lab.run("opencode", "debug", "skill").stdout)
    found = [s for s in skills if s.get("location") != "<built-in>"]
    return Seen(
        count(s["name"] for s in found),
        json.dumps([[s["name"], s["location"]] for s in found], indent=1),
    )


def _opencode_agents(lab: Lab) -> Seen:
    """`opencode agent list`: `name (mode)` lines, each followed by its permissions."""
    out = lab.run("opencode", "agent", "list").stdout
    rows = lines(r"^(\S+) \((\w+)\)$", out)
    return Seen(count(m[1] for m in rows), "\n".join(m[0] for m in rows))


def _opencode_mcp(lab: Lab) -> Seen:
    """`opencode mcp list`: connects; `✓ name connected` then the command or URL."""
    out = ANSI.sub("", lab.run("opencode", "mcp", "list").stdout)
    rows = lines(r"^\W*\s([✓✗○⚠])\s+(\S+)\s+(.+)$", out)
    connected = frozenset(m[2] for m in rows if m[3].strip() == "connected")
    return Seen(count(m[2] for m in rows), out, connected)


def _opencode_hooks(lab: Lab) -> Seen:
    """`opencode debug config` `plugin`: the plugin modules it loads, as file:// URLs (probes
    5.2). uze's plugin `uze-<package>.js` carries the package's hook groups (their labels are
    in its `GROUPS` line); each group counts once per listing of that file."""
    urls = json.loads(lab.run("opencode", "debug", "config").stdout).get("plugin") or []
    groups: Counter[str] = Counter()
    for url in urls:
        path = Path(url.removeprefix("file://"))
        if path.name == f"uze-{PACKAGE}.js" and path.is_file():
            line = next(ln for ln in path.read_text(encoding="utf-8").splitlines()
                        if ln.startswith("const GROUPS = JSON.parse("))
            data = json.loads(json.loads(line.removeprefix("const GROUPS = JSON.parse(")[:-2]))
            groups.update(g["label"].removeprefix(f"{PACKAGE}/") for g in data)
    return Seen(groups, json.dumps({"plugin": urls, "groups": dict(groups)}, indent=1))


OPENCODE = RealHarness(
    "opencode",
    "opencode",
    {
        "skill": Oracle("opencode debug skill", _opencode_skills),
        "agent": Oracle("opencode agent list", _opencode_agents),
        "mcp": Oracle("opencode mcp list", _opencode_mcp),
        "instructions": NoOracle(
            "OpenCode has no instructions listing: AGENTS.md shows only in the "
            "model request's system message; needs the scripted model"
        ),
        "hook": Oracle("opencode debug config (plugin: uze-<package>.js)", _opencode_hooks),
    },
)

REAL_HARNESSES: Final[dict[str, RealHarness]] = {h.id: h for h in (CLAUDE, CODEX, GEMINI, OPENCODE)}
NOT_RUNNABLE: Final[dict[str, str]] = {
    "antigravity": "not one of the four CLIs installable offline here from npm (issue 7)",
    "kimi_code": "not one of the four CLIs installable offline here from npm (issue 7)",
    "deepseek_harness": "not one of the four CLIs installable offline here from npm (issue 7)",
}
