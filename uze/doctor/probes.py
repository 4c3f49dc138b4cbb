"""What a real harness's own offline commands show it discovered (real-harness-probes.md).

The pure part: the commands and the readers that turn their output into `Seen` (how often
each name is listed), and `Probe`, a command `uze doctor --probe` runs (uze/doctor/probe_run.py);
each harness module names its own (`Harness.doctor.probes`, resolved in `PROBES`). The
conformance suite (tests/conformance/oracles.py) uses the same readers, so there is one copy
of each.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

import msgspec

from uze.vocabulary import Scope

if TYPE_CHECKING:
    import subprocess

Runner = Callable[
    [Sequence[str], dict[str, str], float, Path | None], "subprocess.CompletedProcess[str]"
]

ANSI: Final = re.compile(r"\x1b\[[0-9;]*m|\[[0-9;]*m")
REGION: Final = re.compile(r"<!-- uze:begin ([^/\s]+)(?:/\S*)? -->")
PROBE_TIMEOUT: Final = 60
# Offline settings (probes sections 1, 8, 9): no model call, no update, no telemetry, no npm.
OFFLINE_ENV: Final = {
    "NO_COLOR": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    # Claude 2.1.197 still resolves api.anthropic.com in `mcp list` and `-p /context` (strace);
    # a closed loopback port keeps it local and costs nothing (no key: no model call anyway).
    "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
    "DISABLE_AUTOUPDATER": "1",
    "GEMINI_CLI_NO_RELAUNCH": "true",  # no second node process for a bigger heap: -1.7 s a call
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    # OpenCode runs a background `npm install @opencode-ai/plugin` in every config folder it
    # reads (seen in 1.18.33: ~/.npm filled from the registry); keep npm offline and on loopback.
    "npm_config_offline": "true",
    "npm_config_registry": "http://127.0.0.1:9/",
}


class Seen(msgspec.Struct, frozen=True):
    """What one oracle run showed: each name with how often it was listed.

    `connected` is the set of MCP servers the oracle reported connected, or None when the
    oracle reads configuration only. `evidence` is the part of the output the counts come from.
    """

    counts: Counter[str]
    evidence: str
    connected: frozenset[str] | None = None


def probe_env(env: Mapping[str, str]) -> dict[str, str]:
    """The user's environment plus the offline settings."""
    return {**env, **OFFLINE_ENV}


def count(names: Iterable[str]) -> Counter[str]:
    """How often each name occurs."""
    return Counter(names)


def lines(pattern: str, text: str) -> list[re.Match[str]]:
    """The matches of `pattern` at the start of each line of `text`, colour codes removed."""
    return [m for line in ANSI.sub("", text).splitlines() if (m := re.match(pattern, line))]


def strings(value: object) -> Iterable[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def regions_seen(text: str) -> Counter[str]:
    """Instructions as uze delivers them: each package's region, counted in loaded text."""
    return count(REGION.findall(text))


# --- Claude Code (probes 2.3) ---------------------------------------------------------------
CLAUDE_CONTEXT: Final = ("-p", "/context", "--output-format", "stream-json", "--verbose")
CLAUDE_MCP: Final = ("mcp", "list")


def claude_events(stdout: str) -> list[dict[str, Any]]:
    """`claude -p /context --output-format stream-json` output as events."""
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def claude_context(events: Sequence[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    """The init event and the /context markdown."""
    init = next(e for e in events if e.get("subtype") == "init")
    result = next((e.get("result") or "" for e in events if e.get("type") == "result"), "")
    return init, result


def md_rows(markdown: str, heading: str) -> list[list[str]]:
    """The body rows of the table under `### heading` in /context's markdown."""
    _, found, rest = markdown.partition(f"### {heading}\n")
    rows = []
    for line in rest.split("\n###")[0].splitlines() if found else []:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and not set(cells[0]) <= set("-: "):
            rows.append(cells)
    return rows[1:]  # drop the header row


def claude_listed(events: Sequence[dict[str, Any]], table: str, init_key: str) -> Seen:
    """Skills/agents: init-event names and /context table rows, each name's larger count.

    The init event lists what a user can invoke, the /context table what the model is offered;
    a user-only skill is only in the first, a model-only skill only in the second.
    """
    init, markdown = claude_context(events)
    offered = count(row[0] for row in md_rows(markdown, table))
    invocable = count(init.get(init_key) or [])
    counts = Counter({n: max(offered[n], invocable[n]) for n in offered | invocable})
    return Seen(counts, f"init {init_key}: {init.get(init_key)}\n{table}: {dict(offered)}")


def claude_memory(events: Sequence[dict[str, Any]]) -> tuple[list[Path], str]:
    """/context "Memory Files": the files Claude loads, and their text (what the model gets)."""
    paths = [Path(row[1]) for row in md_rows(claude_context(events)[1], "Memory Files")]
    return paths, "".join(p.read_text(encoding="utf-8") for p in paths if p.is_file())


def claude_mcp(stdout: str) -> Seen:
    """`claude mcp list`: health-checks every server; `name: target - ✔ Connected`."""
    rows = lines(r"^(\S+): .* - (\S+) ?(.*)$", stdout)
    connected = frozenset(m[1] for m in rows if m[3].startswith("Connected"))
    return Seen(count(m[1] for m in rows), stdout, connected)


# --- Codex (probes 3.2) ---------------------------------------------------------------------
CODEX_PROMPT_INPUT: Final = ("debug", "prompt-input")
CODEX_MCP: Final = ("mcp", "list", "--json")
# --disable plugins: otherwise the app-server resolves github.com (plugin sync, strace).
CODEX_APP_SERVER: Final = ("app-server", "--disable", "plugins", "--listen", "stdio://")


def codex_skills(entry: Mapping[str, Any]) -> Seen:
    """app-server `skills/list` `data[0]`: every skill with its scope, model-visible or not;
    one Codex's own switch turned off (`enabled: false`, `[[skills.config]]`, adr/0098) does
    not count, as a disabled skill of `gemini skills list` does not."""
    skills = [s for s in entry["skills"] if s["scope"] != "system"]
    evidence = json.dumps(
        {"skills": [[s["name"], s["scope"], s["path"], s.get("enabled", True)] for s in skills],
         "errors": entry["errors"]},
        indent=1,
    )
    return Seen(count(s["name"] for s in skills if s.get("enabled", True) is not False),
                evidence)


def codex_agents(items: object) -> Seen:
    """prompt-input: spawn_agent's `agent_type` lists "Available roles: <name>: {...}"."""
    texts = [t for t in strings(items) if "Available roles:" in t]
    roles = "".join(t.partition("Available roles:")[2] for t in texts)
    return Seen(count(m[1] for m in lines(r"^([\w.-]+): \{$", roles)), roles)


def codex_instructions(items: Sequence[dict[str, Any]]) -> str:
    """prompt-input: the text of the user item "# AGENTS.md instructions for <project>"."""
    texts = [
        part.get("text", "")
        for item in items
        for part in item.get("content") or []
        if isinstance(part, dict)
    ]
    return "".join(t for t in texts if t.startswith("# AGENTS.md instructions"))


def codex_mcp(stdout: str) -> Seen:
    """`codex mcp list --json`: configured servers (user, and project when trusted)."""
    servers = json.loads(stdout)
    enabled = [s["name"] for s in servers if s.get("enabled")]
    return Seen(count(enabled), json.dumps(servers, indent=1))


def codex_hooks(entry: Mapping[str, Any]) -> tuple[list[str], str]:
    """app-server `hooks/list` `data[0]`: each hook's portable event name, and the evidence."""
    hooks = entry["hooks"]
    events = [h["eventName"][:1].upper() + h["eventName"][1:] for h in hooks]
    evidence = json.dumps(
        [[h["eventName"], h["command"], h["source"], h["trustStatus"]] for h in hooks], indent=1
    )
    return events, evidence


# --- Gemini CLI (probes 4.2) ----------------------------------------------------------------
GEMINI_SKILLS: Final = ("skills", "list")
GEMINI_MCP: Final = ("mcp", "list")


def gemini_skills(stdout: str) -> Seen:
    """`gemini skills list`: `name [Enabled]` blocks; a disabled skill does not count."""
    return Seen(count(m[1] for m in lines(r"^(\S+) \[Enabled\]", stdout)), stdout)


def gemini_mcp(output: str) -> Seen:
    """`gemini mcp list` (prints on stderr): connects; `✓ name: target (stdio) - Connected`."""
    rows = lines(r"^\S+ ([^\s:]+)(?: \(from [^)]*\))?: .* - (\w+)$", output)
    connected = frozenset(m[1] for m in rows if m[2] == "Connected")
    return Seen(count(m[1] for m in rows), output, connected)


def gemini_project_hooks(output: str, package: str) -> Counter[str]:
    """Group ids in `gemini -p`'s "project-level hooks have been detected" warning block."""
    block = output.partition("project-level hooks have been detected")[2].partition("\n\n")[0]
    return count(m[1].removeprefix(f"{package}/") for m in lines(r"^\s+- (\S+)$", block))


# --- OpenCode (probes 5.2) ------------------------------------------------------------------
OPENCODE_SKILLS: Final = ("debug", "skill")
OPENCODE_AGENTS: Final = ("agent", "list")
OPENCODE_MCP: Final = ("mcp", "list")


def opencode_skills(stdout: str) -> Seen:
    """`opencode debug skill`: JSON [{name, location, ...}], built-ins at `<built-in>`."""
    found = [s for s in json.loads(stdout) if s.get("location") != "<built-in>"]
    return Seen(
        count(s["name"] for s in found),
        json.dumps([[s["name"], s["location"]] for s in found], indent=1),
    )


def opencode_agents(stdout: str) -> Seen:
    """`opencode agent list`: `name (mode)` lines, each followed by its permissions."""
    rows = lines(r"^(\S+) \((\w+)\)$", stdout)
    return Seen(count(m[1] for m in rows), "\n".join(m[0] for m in rows))


def opencode_mcp(stdout: str) -> Seen:
    """`opencode mcp list`: connects; `✓ name connected` then the command or URL."""
    out = ANSI.sub("", stdout)
    rows = lines(r"^\W*\s([✓✗○⚠])\s+(\S+)\s+(.+)$", out)
    connected = frozenset(m[2] for m in rows if m[3].strip() == "connected")
    return Seen(count(m[2] for m in rows), out, connected)


# --- uze doctor --probe ---------------------------------------------------------------------
class Probe(msgspec.Struct, frozen=True):
    """One offline command of a harness and the kinds it reveals (kind -> Seen)."""

    args: tuple[str, ...]
    kinds: tuple[str, ...]
    read: Callable[[subprocess.CompletedProcess[str]], dict[str, Seen]]
    # JSON-RPC methods, each with its params given the project's path
    calls: tuple[tuple[str, Callable[[str], dict[str, Any]]], ...] = ()
    # Whether the command may start what the folder it runs in configures: MCP servers it
    # connects (`claude mcp list`, `-p /context`, `gemini mcp list`), hooks, OpenCode plugins
    # (loaded by every `opencode` command). Such a probe runs in a scratch project (ADR 0021).
    starts: bool = False
    # The harness's own words when it ignores the project's items because the user has not
    # trusted the workspace ("" when it does not), and the kinds it then hides (probes 3.1, 4.1).
    untrusted: Callable[[subprocess.CompletedProcess[str]], str] | None = None
    gated: tuple[str, ...] = ()


def _cwds(project: str) -> dict[str, Any]:
    return {"cwds": [project]}


def _layers(project: str) -> dict[str, Any]:
    return {"cwd": project, "includeLayers": True}


def claude_context_seen(result: subprocess.CompletedProcess[str]) -> dict[str, Seen]:
    events = claude_events(result.stdout)
    paths, text = claude_memory(events)
    return {
        "skill": claude_listed(events, "Skills", "skills"),
        "agent": claude_listed(events, "Custom Agents", "agents"),
        "instructions": Seen(regions_seen(text), f"Memory Files: {[str(p) for p in paths]}"),
    }


def codex_prompt_seen(result: subprocess.CompletedProcess[str]) -> dict[str, Seen]:
    items = json.loads(result.stdout)
    text = codex_instructions(items)
    return {"agent": codex_agents(items), "instructions": Seen(regions_seen(text), text)}


_WRAPPER: Final = re.compile(r"/hooks/([^/]+)/[a-z_]+/([^/'\"\s]+)\.py")


def codex_app_seen(result: subprocess.CompletedProcess[str]) -> dict[str, Seen]:
    skills, hooks = (answer["data"][0] for answer in json.loads(result.stdout)[:2])
    commands = [h["command"] for h in hooks["hooks"]]
    wrappers = count(f"{m[1]}/{m[2]}" for c in commands if (m := _WRAPPER.search(c)))
    return {"skill": codex_skills(skills), "hook": Seen(wrappers, "\n".join(commands))}


def codex_untrusted(result: subprocess.CompletedProcess[str]) -> str:
    """app-server `config/read` with its layers: Codex's own reason for ignoring a project's
    `.codex/` layer (the project is not trusted), or "" (probes 3.1)."""
    answers = json.loads(result.stdout)
    layers = (answers[2].get("layers") or []) if len(answers) > 2 else []
    return " ".join(
        str(layer["disabledReason"]) for layer in layers
        if (layer.get("name") or {}).get("type") == "project" and layer.get("disabledReason")
    )


_GEMINI_UNTRUSTED: Final = re.compile(r"untrusted folder|folder is not trusted|not running in a "
                                      r"trusted directory", re.IGNORECASE)


def gemini_untrusted(result: subprocess.CompletedProcess[str]) -> str:
    """Gemini CLI's own lines saying it skipped the project's items (folder trust, probes 4.1),
    e.g. "Skipping project agents due to untrusted folder. ...", or ""."""
    said = ANSI.sub("", result.stderr).splitlines()
    return " ".join(line.strip() for line in said if _GEMINI_UNTRUSTED.search(line))


def one_kind(kind: str, reader: Callable[[str], Seen], *, stderr: bool = False) -> Callable[
        [subprocess.CompletedProcess[str]], dict[str, Seen]]:
    return lambda r: {kind: reader(r.stdout + (r.stderr if stderr else ""))}


# Every probe by the name a harness module lists it under (`Harness.doctor.probes`): the harness
# modules hold data only and import nothing of the doctor (issue 29); the doctor resolves.
PROBES: Final[Mapping[str, Probe]] = {
    "claude -p /context": Probe(CLAUDE_CONTEXT, ("skill", "agent", "instructions"),
                                claude_context_seen, starts=True),
    "claude mcp list": Probe(CLAUDE_MCP, ("mcp",), one_kind("mcp", claude_mcp), starts=True),
    # an untrusted project's .codex/ layer (MCP servers, hooks, agents) is not loaded; its
    # skills and AGENTS.md are (probes 3.1)
    "codex app-server": Probe(CODEX_APP_SERVER, ("skill", "hook"), codex_app_seen,
                              (("skills/list", _cwds), ("hooks/list", _cwds),
                               ("config/read", _layers)),
                              untrusted=codex_untrusted, gated=("agent", "mcp", "hook")),
    "codex debug prompt-input": Probe(CODEX_PROMPT_INPUT, ("agent", "instructions"),
                                      codex_prompt_seen),
    "codex mcp list": Probe(CODEX_MCP, ("mcp",), one_kind("mcp", codex_mcp)),
    # in an untrusted folder project skills, agents and hooks are skipped (probes 4.1)
    "gemini skills list": Probe(GEMINI_SKILLS, ("skill",), one_kind("skill", gemini_skills),
                                untrusted=gemini_untrusted, gated=("skill", "agent", "hook")),
    "gemini mcp list": Probe(GEMINI_MCP, ("mcp",), one_kind("mcp", gemini_mcp, stderr=True),
                             starts=True),
    "opencode debug skill": Probe(OPENCODE_SKILLS, ("skill",),
                                  one_kind("skill", opencode_skills), starts=True),
    "opencode agent list": Probe(OPENCODE_AGENTS, ("agent",),
                                 one_kind("agent", opencode_agents), starts=True),
    "opencode mcp list": Probe(OPENCODE_MCP, ("mcp",), one_kind("mcp", opencode_mcp),
                               starts=True),
}


def probes_of(names: Iterable[str]) -> tuple[Probe, ...]:
    """The probes a harness names (`Harness.doctor.probes`), in its order. KeyError: a name no probe
    has (tests/unit/doctor/test_evidence_probes.py checks every harness's names)."""
    return tuple(PROBES[name] for name in names)




UNTRUSTED: Final = "the harness skips the project's items until the user trusts the workspace"
# `disabled`: switched off by `uze disable` and not listed as on, as the switch means.
ProbeState = Literal["found", "missing", "duplicate", "unverified", "denied", "disabled"]


class ProbeItem(msgspec.Struct, frozen=True):
    """What `--probe` saw of one delivered item: `found` once, `missing`, `duplicate`, or
    `unverified` (no oracle runs for this kind) / `denied` (the oracle could not read it)."""

    scope: Scope
    kind: str
    name: str
    package: str
    state: ProbeState
    seen: int | None
    command: str
    note: str = ""
