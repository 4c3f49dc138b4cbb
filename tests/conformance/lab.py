"""The harness lab: pinned real binaries, their offline settings, and the package under test.

Binaries come only from the cache that `scripts/install-harnesses.sh` fills (pins are read from
that script, so there is one list). Every harness call runs in the sandbox's temporary HOME and
project, with stdin from /dev/null, a 60 s timeout, its own process group (killed afterwards, so
no MCP server or background install outlives the call) and settings that keep it on loopback.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest

from tests.conftest import Sandbox
from tests.helpers import DATA, REPO, run_uze
from uze.doctor.probes import OFFLINE_ENV

INSTALL_SCRIPT = REPO / "scripts" / "install-harnesses.sh"
BIN_DIR = Path(os.environ.get("UZE_HARNESS_CACHE", REPO / ".cache" / "harnesses")) / "bin"
TIMEOUT = 60
# Codex and Gemini are node scripts (`#!/usr/bin/env node`); the sandbox cuts PATH down to the
# venv and /usr/bin:/bin, so node's folder, found before any fixture runs, is put back.
NODE_DIR = str(Path(shutil.which("node") or "/usr/bin/node").parent)
PACKAGE = "every-kind"
MARKER = "Prefer small, reviewable changes."  # first line of every-kind/AGENTS.md

# Offline settings from docs/reference/real-harness-probes.md sections 1, 8 and 9 (the
# ones `uze doctor --probe` uses too), and a trusted workspace for Gemini CLI.
HARNESS_ENV = {**OFFLINE_ENV, "GEMINI_CLI_TRUST_WORKSPACE": "true"}
# Credentials and endpoints from the outer environment must never reach a harness.
DROPPED_ENV = re.compile(r"^(ANTHROPIC_|OPENAI_|CODEX_|GEMINI_|GOOGLE_|OPENCODE_|CLAUDE_)")


@dataclass(frozen=True)
class Pin:
    """One harness CLI as `scripts/install-harnesses.sh` pins it."""

    binary: str
    npm: str
    version: str


def read_pins() -> dict[str, Pin]:
    """binary name -> Pin, parsed from the PINS array of the install script."""
    text = INSTALL_SCRIPT.read_text(encoding="utf-8")
    found = re.findall(r'^\s*"([a-z]+)\|([@\w/.-]+)\|([\w.-]+)"', text, flags=re.M)
    return {name: Pin(name, npm, version) for name, npm, version in found}


PINS = read_pins()


@functools.cache
def _reported_version(path: Path) -> str:
    """What `<binary> --version` prints (first x.y.z), run in a throwaway HOME."""
    home = Path(os.environ.get("TMPDIR", "/tmp")) / f"uze-version-probe-{os.getpid()}"
    home.mkdir(exist_ok=True)
    env = {"PATH": f"{NODE_DIR}:/usr/bin:/bin", "HOME": str(home), "NO_COLOR": "1"}
    try:
        out = subprocess.run(
            [str(path), "--version"],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"<{exc}>"
    finally:
        shutil.rmtree(home, ignore_errors=True)
    match = re.search(r"\d+\.\d+\.\d+", out.stdout)
    return match.group(0) if match else f"<no version in {out.stdout[:80]!r}>"


def require(binary: str) -> Path:
    """The pinned binary's path; a loud skip (a failure when $CI is set) if it is unusable."""
    pin = PINS[binary]
    path = BIN_DIR / binary
    problem = None
    if not path.exists():
        problem = f"not found at {path}"
    else:
        version = _reported_version(path)
        if version != pin.version:
            problem = f"{path} reports version {version}"
    if problem is None:
        return path
    message = (
        f"REAL HARNESS BINARY MISSING: `{binary}` ({pin.npm} {pin.version}) {problem}; "
        f"run scripts/install-harnesses.sh"
    )
    if os.environ.get("CI"):
        pytest.fail(message + " (CI: a skipped conformance test is a failure)", pytrace=False)
    pytest.skip(message)


def harness_env(sandbox: Sandbox) -> dict[str, str]:
    """The sandbox environment, minus credentials, plus the offline settings; PWD = project."""
    env = {k: v for k, v in os.environ.items() if not DROPPED_ENV.match(k)}
    env.update(HARNESS_ENV)
    env["PATH"] = f"{env['PATH']}{os.pathsep}{NODE_DIR}"
    env["PWD"] = str(sandbox.project)  # OpenCode takes its directory from PWD (probes 5.3)
    env["UZE_CONFORMANCE_HOOK_LOG"] = str(hook_log(sandbox))
    return env


def hook_log(sandbox: Sandbox) -> Path:
    """Where the package's SessionStart hook appends one line each time it runs."""
    return sandbox.root / "session-hook.log"


# The permission state of every run per harness (what prepare_user_state and model_run grant),
# kept in each evidence record (uze/doctor/evidence.py Record.permission, CAP-031).
PERMISSIONS: Final = {
    "claude_code": "workspace trusted (~/.claude.json hasTrustDialogAccepted); project MCP "
                   "servers approved (enableAllProjectMcpServers); model turns: --allowedTools "
                   "Bash, each permission question answered yes by a scripted user",
    "codex": "project trusted (user config.toml trust_level = \"trusted\"); hooks trusted "
             "(hooks.state trusted_hash) before a hook run; model turns: exec -s "
             "danger-full-access",
    "gemini_cli": "workspace trusted (GEMINI_CLI_TRUST_WORKSPACE=true); model turns: "
                  "--approval-mode yolo",
    "opencode": "no trust gate (OpenCode has none); model turns: opencode run, default "
                "permissions",
}


def prepare_user_state(sandbox: Sandbox) -> None:
    """What a user has done before installing: trusted the project, approved project MCP.

    Codex: the project is trusted in the user config.toml (else it ignores .codex/). Claude:
    project .mcp.json servers approved in settings.local.json (else `mcp list` does not connect
    them), and the workspace trusted as its trust dialog records it in ~/.claude.json (else it
    loads no project plugin, ADR 0041). Gemini: usage statistics off (else it makes DNS
    lookups) and API-key auth chosen (else `gemini -p` exits before it lists hooks). uze must
    keep these bytes.
    """
    home, project = sandbox.home, sandbox.project
    subprocess.run(
        ["git", "init", "-q", str(project)], check=True, timeout=TIMEOUT, capture_output=True
    )
    (home / ".codex").mkdir(parents=True, exist_ok=True)
    (home / ".codex" / "config.toml").write_text(
        f'[projects."{project}"]\ntrust_level = "trusted"\n', encoding="utf-8"
    )
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.local.json").write_text(
        '{"enableAllProjectMcpServers": true}\n', encoding="utf-8"
    )
    trusted = {"projects": {str(project): {"hasTrustDialogAccepted": True}}}
    (home / ".claude.json").write_text(json.dumps(trusted, indent=2) + "\n", encoding="utf-8")
    (home / ".gemini").mkdir(exist_ok=True)
    gemini = {
        "privacy": {"usageStatisticsEnabled": False},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
    }
    (home / ".gemini" / "settings.json").write_text(
        json.dumps(gemini, indent=2) + "\n", encoding="utf-8"
    )


def build_package(dest: Path, http_url: str) -> Path:
    """every-kind, plus seven's nested agent team/planner, a SessionStart hook, loopback MCP,
    and a command `tidy`.

    `docs` (stdio) keeps its `${PLUGIN_ROOT}/scripts/server.sh` command, which now runs the
    probe MCP server, so a health check proves the command uze wrote runs; `search` (http) points
    at the loopback probe server instead of search.example.com. The SessionStart hook
    `session-note` appends a line to the hook log: the one hook event harnesses fire offline.
    """
    shutil.copytree(DATA / PACKAGE, dest)
    shutil.copytree(DATA / "seven" / "agents" / "team", dest / "agents" / "team")
    shutil.copy(Path(__file__).with_name("mcp_probe.py"), dest / "scripts" / "mcp_probe.py")
    _script(
        dest / "scripts" / "server.sh", f'exec "{sys.executable}" "$(dirname "$0")/mcp_probe.py"'
    )
    _script(
        dest / "scripts" / "session.sh",
        'echo session-note >> "${UZE_CONFORMANCE_HOOK_LOG:-/dev/null}"',
    )
    _edit_json(dest / "mcp.json", lambda d: d["mcpServers"]["search"].update(url=http_url))
    session = {
        "id": "session-note",
        "hooks": [{"type": "command", "command": "${PLUGIN_ROOT}/scripts/session.sh"}],
    }
    _edit_json(dest / "hooks.json", lambda d: d["hooks"].update(SessionStart=[session]))
    (dest / "commands").mkdir()
    (dest / "commands" / "tidy.md").write_text(
        "---\ndescription: Tidy the files named in the arguments\n---\n"
        "Remove trailing whitespace from $ARGUMENTS.\n", encoding="utf-8")
    return dest


BEHAVIOUR_HOOKS = REPO / "tests" / "data" / "behaviour-hooks"


def build_behaviour_package(dest: Path, http_url: str) -> Path:
    """The package under test with tests/data/behaviour-hooks instead of its own hooks.

    Four PreToolUse shell groups, one per effect: `observe-shell` logs every call to the hook
    log, `deny-marked` denies calls containing UZE_DENY_ME, `transform-marked` rewrites
    UZE_TRANSFORM_ME to UZE_TRANSFORMED, `ask-marked` asks about calls containing UZE_ASK_ME.
    """
    build_package(dest, http_url)
    shutil.copy(BEHAVIOUR_HOOKS / "hooks.json", dest / "hooks.json")
    shutil.copytree(BEHAVIOUR_HOOKS / "scripts", dest / "scripts", dirs_exist_ok=True)
    return dest


def _script(path: Path, line: str) -> None:
    path.write_text(f"#!/bin/sh\n{line}\n", encoding="utf-8")
    path.chmod(0o755)


def _edit_json(path: Path, edit: Callable[[Any], object]) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


# The params of one JSON-RPC call, or a function of the results of the calls before it.
Params = dict[str, object] | Callable[[list[dict[str, object]]], dict[str, object]]


@dataclass
class Lab:
    """One test's harness lab: the sandbox, the package, and runners for uze and harnesses."""

    sandbox: Sandbox
    package: Path

    def uze(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Run `uze` in the project; fail the test unless it exits 0."""
        result = run_uze(*args, cwd=self.sandbox.project)
        assert result.returncode == 0, (
            f"uze {' '.join(args)} exited {result.returncode}\n{result.stdout}\n{result.stderr}"
        )
        return result

    def install(self, harness: str, scope: str) -> None:
        """`uze install <package> --harness H --scope S --trust`."""
        self.uze("install", str(self.package), "--harness", harness, "--scope", scope, "--trust")

    def uninstall(self, scope: str) -> None:
        """`uze uninstall <package> --scope S`."""
        self.uze("uninstall", PACKAGE, "--scope", scope)

    def run(
        self, binary: str, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run a pinned harness binary (with `env` added) in the project; it must exit 0."""
        proc = self.start(binary, *args, extra_env=env)
        try:
            out, err = proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            _kill_group(proc.pid)
            out, err = proc.communicate()
            pytest.fail(f"{binary} {' '.join(args)} timed out after {TIMEOUT}s\n{out}\n{err}")
        finally:
            _kill_group(proc.pid)
        assert proc.returncode == 0, (
            f"{binary} {' '.join(args)} exited {proc.returncode}\n{out}\n{err}"
        )
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)

    def start(
        self,
        binary: str,
        *args: str,
        stdin: int = subprocess.DEVNULL,
        stderr: int = subprocess.PIPE,
        extra_env: dict[str, str] | None = None,
    ) -> subprocess.Popen[str]:
        """Start a pinned harness binary in the project, in its own process group."""
        return subprocess.Popen(
            [str(require(binary)), *args],
            cwd=self.sandbox.project,
            env=harness_env(self.sandbox) | (extra_env or {}),
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            start_new_session=True,
        )

    def watch(self, binary: str, args: tuple[str, ...], until: str, env: dict[str, str]) -> str:
        """Run a binary (with `env` added) until a line matches `until`; stdout+stderr so far.

        For commands that print what they discovered at startup and then wait on a model:
        the model endpoint is a closed loopback port, so they print, fail to connect, retry.
        """
        proc = self.start(binary, *args, stderr=subprocess.STDOUT, extra_env=env)
        lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=_pump, args=(proc, lines), daemon=True).start()
        deadline, seen = time.monotonic() + TIMEOUT, []
        try:
            while (line := lines.get(timeout=max(0.0, deadline - time.monotonic()))) is not None:
                seen.append(line)
                if re.search(until, line):
                    break
        except queue.Empty:
            pytest.fail(
                f"{binary} {' '.join(args)}: no line matching {until!r} in {TIMEOUT}s\n"
                + "".join(seen)
            )
        finally:
            _end(proc)
        return "".join(seen)

    def rpc(
        self, binary: str, args: tuple[str, ...], calls: list[tuple[str, Params]]
    ) -> list[dict[str, object]]:
        """Drive a JSON-RPC-over-stdio server (codex app-server): initialize, then each call.

        A call's params may be a function of the results so far (a thread id from
        `thread/start`). Returns the `result` of each call in order; fails on an error, EOF or
        the timeout.
        """
        proc = self.start(binary, *args, stdin=subprocess.PIPE, stderr=subprocess.DEVNULL)
        lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=_pump, args=(proc, lines), daemon=True).start()
        deadline = time.monotonic() + TIMEOUT
        try:
            init = {
                "clientInfo": {"name": "uze-conformance", "version": "0"},
                "capabilities": {"experimentalApi": True},
            }
            _call(proc, lines, 0, "initialize", init, deadline)
            _send(proc, {"jsonrpc": "2.0", "method": "initialized"})
            results: list[dict[str, object]] = []
            for i, (method, params) in enumerate(calls, start=1):
                given = params(results) if callable(params) else params
                results.append(_call(proc, lines, i, method, given, deadline))
            return results
        finally:
            _end(proc)


# --- model-driven runs against tests/conformance/model_server.py (probes sections 2.4-5.4, 9) --
def model_run(lab: Lab, binary: str, url: str, prompt: str,
              servers: Mapping[str, object] | None = None
              ) -> tuple[tuple[str, ...], dict[str, str]]:
    """The arguments and environment of one non-interactive turn of `binary` against the
    scripted model at `url` (loopback): a prompt in, tools allowed to run, JSON lines out.
    `servers`: more MCP servers for Claude Code's command line (beside the scripted user's)."""
    if binary == "claude":
        args = ("-p", prompt, "--output-format", "stream-json", "--verbose",
                "--allowedTools", "Bash", *scripted_user(lab, servers))
        return args, {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "dummy"}
    if binary == "codex":
        provider = ("-c", "model_provider=stub", "-c", "model=stub-model",
                    "-c", "model_providers.stub.name=stub",
                    "-c", f'model_providers.stub.base_url="{url}/v1"',
                    "-c", "model_providers.stub.wire_api=responses")
        return ("exec", "--json", "-s", "danger-full-access", *provider, prompt), {}
    if binary == "gemini":
        args = ("-p", prompt, "--approval-mode", "yolo", "-o", "stream-json")
        return args, {"GEMINI_API_KEY": "dummy", "GOOGLE_GEMINI_BASE_URL": url}
    if binary == "opencode":
        config = str(opencode_stub(lab, url))
        return ("run", "--format", "json", prompt), {"OPENCODE_CONFIG": config}
    raise AssertionError(f"no model-driven run for {binary}: add it to lab.model_run")


def asked_log(sandbox: Sandbox) -> Path:
    """Where the scripted user logs each permission question a harness asked it."""
    return sandbox.root / "asked.jsonl"


def scripted_user(lab: Lab, servers: Mapping[str, object] | None = None) -> tuple[str, ...]:
    """Claude's flags for a user who is asked on `ask` (permissionDecision) and approves.

    `-p` has no terminal to ask on; `--permission-prompt-tool` names an MCP tool that answers
    instead (model_server.py run as a script: it logs the question and allows). The MCP config
    comes from the command line, so nothing of it is in a file uze reads or writes. `servers`
    join it in the one `--mcp-config`: claude 2.1.197 starts the servers of one `--mcp-config`
    only when the flag is given twice (the second's were never started).
    """
    server = {"command": sys.executable,
              "args": [str(Path(__file__).with_name("model_server.py")),
                       str(asked_log(lab.sandbox))]}
    config = json.dumps({"mcpServers": {"uze-user": server, **(servers or {})}})
    return "--mcp-config", config, "--permission-prompt-tool", "mcp__uze-user__approve"


def opencode_stub(lab: Lab, url: str) -> Path:
    """OPENCODE_CONFIG with the scripted model as provider, outside the project (uze edits the
    project's opencode.json for MCP; OpenCode merges this file over it)."""
    path = lab.sandbox.root / "opencode-model.json"
    provider = {"npm": "@ai-sdk/openai-compatible", "name": "Stub",
                "options": {"baseURL": f"{url}/v1", "apiKey": "dummy"},
                "models": {"stub-model": {"name": "stub-model"}}}
    config = {"provider": {"stub": provider}, "model": "stub/stub-model",
              "small_model": "stub/stub-model"}
    path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return path


def trust_codex_hooks(lab: Lab) -> list[str]:
    """Do what a user does in Codex's /hooks: trust every hook it lists (probes 3.1).

    Appends `[hooks.state."<key>"] trusted_hash = "<currentHash>"` to the user config.toml for
    each untrusted hook `hooks/list` reports; returns the keys trusted.
    """
    args = ("app-server", "--disable", "plugins", "--listen", "stdio://")
    params: dict[str, object] = {"cwds": [str(lab.sandbox.project)]}
    (result,) = lab.rpc("codex", args, [("hooks/list", params)])
    hooks = result["data"][0]["hooks"]  # type: ignore[index]
    untrusted = [h for h in hooks if h["trustStatus"] != "trusted"]
    config = lab.sandbox.home / ".codex" / "config.toml"
    with config.open("a", encoding="utf-8") as handle:
        for hook in untrusted:
            key, digest = json.dumps(hook["key"]), json.dumps(hook["currentHash"])
            handle.write(f"\n[hooks.state.{key}]\ntrusted_hash = {digest}\n")
    return [h["key"] for h in untrusted]


def acknowledge_gemini_agents(lab: Lab) -> list[str]:
    """Do what a user does when Gemini CLI reports new project agents: acknowledge them.

    Gemini 0.61.0 offers a project agent (`.gemini/agents/*.md`) to the model only once
    ~/.gemini/acknowledgments/agents.json maps the project and agent name to the sha256 of the
    file's text (AgentRegistry.loadAgents in the bundle); user agents need no acknowledgement.
    """
    folder = lab.sandbox.project / ".gemini" / "agents"
    path = lab.sandbox.home / ".gemini" / "acknowledgments" / "agents.json"
    known = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    project = known.setdefault(str(lab.sandbox.project), {})
    for agent in sorted(folder.glob("*.md")) if folder.is_dir() else []:
        text = agent.read_text(encoding="utf-8")
        name = re.search(r"^name:\s*(\S+)\s*$", text, flags=re.M)
        project[name[1] if name else agent.stem] = hashlib.sha256(text.encode()).hexdigest()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(known, indent=2) + "\n", encoding="utf-8")
    return sorted(project)


def _end(proc: subprocess.Popen[str]) -> None:
    """Kill the group and reap the leader; the pump thread drains and closes stdout."""
    _kill_group(proc.pid)
    if proc.stdin is not None:
        with contextlib.suppress(OSError):
            proc.stdin.close()
    proc.wait(timeout=TIMEOUT)


def _send(proc: subprocess.Popen[str], message: dict[str, object]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()


def _pump(proc: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.put(line)
    lines.put(None)


def _call(
    proc: subprocess.Popen[str],
    lines: queue.Queue[str | None],
    ident: int,
    method: str,
    params: dict[str, object],
    deadline: float,
) -> dict[str, object]:
    _send(proc, {"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            pytest.fail(f"{method}: no answer within {TIMEOUT}s")
        assert line is not None, f"{method}: the server closed its output before answering"
        message = json.loads(line)
        if message.get("id") == ident:
            assert "result" in message, f"{method} failed: {message}"
            return message["result"]  # type: ignore[no-any-return]


def _kill_group(pgid: int) -> None:
    """End what is left of the process group this lab started (MCP servers, background jobs)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
