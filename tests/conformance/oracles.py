"""The oracle table: per real harness and resource kind, the offline command that shows what the
harness discovered (docs/reference/real-harness-probes.md, section 0 and each harness's
"Oracles"), or why there is none that runs without a model server. The commands and the
readers of their output live in uze/doctor/probes.py (`uze doctor --probe` runs the same ones); this
table adds how the lab runs them and what the contracts expect.

A harness joins the suite by adding one `RealHarness` here (and its pin to
scripts/install-harnesses.sh); every uze harness that cannot run here is named in `NOT_RUNNABLE`.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from tests.conformance.contracts import (
    HOOK_IDS,
    SESSION_ONLY,
    NoOracle,
    Oracle,
    RealHarness,
    Seen,
    count,
    instructions_seen,
    session_runs,
)
from tests.conformance.lab import PACKAGE, Lab, model_run
from tests.conformance.model_server import model_server
from uze.doctor import evidence, probes


# --- Claude Code (probes 2.3) ---------------------------------------------------------------
def _claude_events(lab: Lab) -> list[dict[str, Any]]:
    """`claude -p /context` (a local command, no model turn) as stream-json events."""
    return probes.claude_events(
        lab.run("claude", *probes.CLAUDE_CONTEXT, "--include-hook-events").stdout
    )


def _claude_listed(table: str, init_key: str) -> Callable[[Lab], Seen]:
    """Skills/agents of the /context run (probes.claude_listed)."""
    return lambda lab: probes.claude_listed(_claude_events(lab), table, init_key)


def _claude_instructions(lab: Lab) -> Seen:
    """/context "Memory Files": the files Claude loads; their text is what the model gets."""
    paths, text = probes.claude_memory(_claude_events(lab))
    return Seen(instructions_seen(text), f"Memory Files: {[str(p) for p in paths]}\n{text}")


def _claude_mcp(lab: Lab) -> Seen:
    """`claude mcp list`: health-checks every server."""
    return probes.claude_mcp(lab.run("claude", *probes.CLAUDE_MCP).stdout)


def _claude_hooks(lab: Lab) -> Seen:
    """SessionStart hooks fire in `claude -p /context --include-hook-events` (probes 2.3)."""

    def run() -> str:
        events = _claude_events(lab)
        return "\n".join(json.dumps(e) for e in events if "hook" in e.get("subtype", ""))

    runs, events = session_runs(lab, run)
    return Seen(Counter({"session-note": runs}), f"session-note ran {runs}x; events:\n{events}")


def _claude_commands(lab: Lab) -> Seen:
    """/context init event `slash_commands`: every command a user can type (probes 2.3)."""
    init, _markdown = probes.claude_context(_claude_events(lab))
    return Seen(count(init.get("slash_commands") or []),
                f"init slash_commands: {init.get('slash_commands')}")


# Claude Code lists a package's skills, agents and commands as `<package>:<name>`: uze
# delivers them in a plugin folder it generates (adr/0048); subfolders are part of the label.
CLAUDE_LABELS: Final = {
    "skill": tuple(f"{PACKAGE}:{name}" for name in ("helper", "review", "ship")),
    "agent": (f"{PACKAGE}:reviewer", f"{PACKAGE}:team:planner"),
    "command": (f"{PACKAGE}:tidy",),
}


CLAUDE = RealHarness(
    "claude_code",
    "claude",
    {
        "command": Oracle("claude -p /context (init slash_commands)", _claude_commands,
                          CLAUDE_LABELS["command"]),
        "skill": Oracle(
            "claude -p /context (init skills + Skills table)", _claude_listed("Skills", "skills"),
            CLAUDE_LABELS["skill"],
        ),
        "agent": Oracle(
            "claude -p /context (init agents + Custom Agents table)",
            _claude_listed("Custom Agents", "agents"), CLAUDE_LABELS["agent"],
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
    items: list[dict[str, Any]] = json.loads(lab.run("codex", *probes.CODEX_PROMPT_INPUT).stdout)
    return items


def _codex_app_server(lab: Lab, method: str) -> dict[str, Any]:
    """One app-server request for the project, e.g. `skills/list`; `result.data[0]`."""
    params: dict[str, object] = {"cwds": [str(lab.sandbox.project)]}
    (result,) = lab.rpc("codex", probes.CODEX_APP_SERVER, [(method, params)])
    return result["data"][0]  # type: ignore[index,no-any-return]


def _codex_instructions(lab: Lab) -> Seen:
    """prompt-input: the user item "# AGENTS.md instructions for <project>"."""
    text = probes.codex_instructions(_codex_prompt_input(lab))
    return Seen(instructions_seen(text), text)


def _codex_hooks(lab: Lab) -> Seen:
    """app-server `hooks/list`: every hook with its event, command, source and trust status."""
    events, evidence = probes.codex_hooks(_codex_app_server(lab, "hooks/list"))
    return Seen(count(HOOK_IDS.get(e, e) for e in events), evidence)


CODEX = RealHarness(
    "codex",
    "codex",
    {
        "command": Oracle(  # a command reaches Codex as a user-invoked skill
            "codex app-server skills/list",
            lambda lab: probes.codex_skills(_codex_app_server(lab, "skills/list")),
        ),
        "skill": Oracle(
            "codex app-server skills/list",
            lambda lab: probes.codex_skills(_codex_app_server(lab, "skills/list")),
        ),
        "agent": Oracle(
            "codex debug prompt-input (spawn_agent roles)",
            lambda lab: probes.codex_agents(_codex_prompt_input(lab)),
        ),
        "mcp": Oracle(
            "codex mcp list --json",
            lambda lab: probes.codex_mcp(lab.run("codex", *probes.CODEX_MCP).stdout),
        ),
        "instructions": Oracle("codex debug prompt-input (AGENTS.md item)", _codex_instructions),
        "hook": Oracle("codex app-server hooks/list", _codex_hooks),
    },
)


# --- Gemini CLI (probes 4.2) ----------------------------------------------------------------
def _gemini_skills(lab: Lab) -> Seen:
    """`gemini skills list`: `name [Enabled]` blocks; a disabled skill does not count."""
    return probes.gemini_skills(lab.run("gemini", *probes.GEMINI_SKILLS).stdout)


def _gemini_mcp(lab: Lab) -> Seen:
    """`gemini mcp list` (prints on stderr): connects each server."""
    result = lab.run("gemini", *probes.GEMINI_MCP)
    return probes.gemini_mcp(result.stdout + result.stderr)


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
    listed = probes.gemini_project_hooks(out, PACKAGE)
    listed["session-note"] = max(listed["session-note"], runs)
    return Seen(listed, f"session-note ran {runs}x\n{out}")


_ARG = "UZE-ORACLE-ARG"


def _gemini_commands(lab: Lab) -> Seen:
    """Each `.gemini/commands/*.toml` of the project and the user (where uze writes commands)
    that `gemini -p "/<name> ARG"` runs: the scripted model receives the command's own prompt
    text (its longest line, placeholders cut), which an unknown command never sends."""
    folders = (lab.sandbox.project / ".gemini" / "commands",
               lab.sandbox.home / ".gemini" / "commands")
    files = sorted({p for folder in folders if folder.is_dir() for p in folder.glob("*.toml")})
    expanded: list[str] = []
    for path in files:
        prompt = str(tomllib.loads(path.read_text(encoding="utf-8")).get("prompt", ""))
        line = max((part.strip() for part in re.split(r"\{\{args\}\}|[!@]\{[^}]*\}|\n", prompt)),
                   key=len, default="")
        with model_server() as model:
            args, env = model_run(lab, "gemini", model.url, f"/{path.stem} {_ARG}")
            lab.run("gemini", *args, env=env)
            sent = " ".join(json.dumps(request.body) for request in model.logged())
        if line and json.dumps(line)[1:-1] in sent:
            expanded.append(path.stem)
    return Seen(count(expanded), f"candidates {[p.stem for p in files]}; run: {expanded}")


GEMINI_HOOKS = "gemini -p (start-up until the first model request fails)"
GEMINI = RealHarness(
    "gemini_cli",
    "gemini",
    {
        "skill": Oracle("gemini skills list", _gemini_skills),
        "command": Oracle('gemini -p "/<name> ARG" against the scripted model (the prompt '
                          "expanded)", _gemini_commands),
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
def _opencode(args: tuple[str, ...], read: Callable[[str], Seen]) -> Callable[[Lab], Seen]:
    """Run `opencode ARGS` and read its stdout with one of uze.doctor.probes' readers."""
    return lambda lab: read(lab.run("opencode", *args).stdout)


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


def _opencode_commands(lab: Lab) -> Seen:
    """`opencode debug config` `command`: every command OpenCode loaded, by name."""
    out = lab.run("opencode", "debug", "config").stdout
    loaded = json.loads(out).get("command") or {}
    return Seen(count(list(loaded)), f"command: {sorted(loaded)}")


OPENCODE = RealHarness(
    "opencode",
    "opencode",
    {
        "command": Oracle("opencode debug config (command)", _opencode_commands),
        "skill": Oracle(
            "opencode debug skill", _opencode(probes.OPENCODE_SKILLS, probes.opencode_skills)
        ),
        "agent": Oracle(
            "opencode agent list", _opencode(probes.OPENCODE_AGENTS, probes.opencode_agents)
        ),
        "mcp": Oracle("opencode mcp list", _opencode(probes.OPENCODE_MCP, probes.opencode_mcp)),
        "instructions": NoOracle(
            "OpenCode has no instructions listing: AGENTS.md shows only in the "
            "model request's system message; needs the scripted model"
        ),
        "hook": Oracle("opencode debug config (plugin: uze-<package>.js)", _opencode_hooks),
    },
)

REAL_HARNESSES: Final[dict[str, RealHarness]] = {h.id: h for h in (CLAUDE, CODEX, GEMINI, OPENCODE)}
NOT_RUNNABLE: Final[dict[str, str]] = evidence.NOT_RUNNABLE
