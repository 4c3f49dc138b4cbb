"""Running a harness's own listings for `uze doctor --probe`: one-shot commands, a JSON-RPC
session with a stdio server (`codex app-server`), and what they show of each item the receipts
say uze delivered. Every run: stdin /dev/null (or only our requests), its own process group
killed afterwards, a timeout; the readers are in uze/doctor/probes.py.
"""

from __future__ import annotations

import contextlib
import json
import queue
import re
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import msgspec

from uze import fs, portable
from uze.doctor.probes import (
    PROBE_TIMEOUT,
    UNTRUSTED,
    Probe,
    ProbeItem,
    ProbeState,
    Runner,
    Seen,
    probe_env,
    probes_of,
)
from uze.harnesses import REGISTRY

if TYPE_CHECKING:
    from uze.paths import Paths
    from uze.state.context import ScopeContext
    from uze.vocabulary import Scope


def _start(args: Sequence[str], env: dict[str, str], cwd: Path | None, stdin: int,
           stderr: int) -> subprocess.Popen[str] | str:
    """The started process in its own session, or why it could not start."""
    try:
        return subprocess.Popen(
            list(args), cwd=cwd, env=env, stdin=stdin, stdout=subprocess.PIPE, stderr=stderr,
            text=True, start_new_session=portable.POSIX,
        )
    except OSError as exc:
        return str(exc)


def run_command(args: Sequence[str], env: dict[str, str], timeout: float,
                cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run a harness command in `cwd`: stdin /dev/null, own process group (killed after).

    A timeout or an OSError becomes a failed CompletedProcess (returncode -1, why in stderr).
    """
    proc = _start(args, env, cwd, subprocess.DEVNULL, subprocess.PIPE)
    if isinstance(proc, str):
        return subprocess.CompletedProcess(list(args), -1, "", proc)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(proc.pid)
        out, err = proc.communicate()
        return subprocess.CompletedProcess(list(args), -1, out, f"timed out after {timeout}s")
    finally:
        _kill(proc.pid)
    return subprocess.CompletedProcess(list(args), proc.returncode, out, err)


def _kill(pgid: int) -> None:
    """End whatever the harness left running in its process group (MCP servers, updaters)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        portable.kill_group(pgid)


CLIENT = {"clientInfo": {"name": "uze-doctor", "version": "0"},
          "capabilities": {"experimentalApi": True}}


def rpc(args: Sequence[str], calls: Sequence[tuple[str, dict[str, Any]]], env: dict[str, str],
        timeout: float, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the server, make the calls; returncode -1 with the reason in stderr on any failure."""
    proc = _start(args, env, cwd, subprocess.PIPE, subprocess.DEVNULL)
    if isinstance(proc, str):
        return subprocess.CompletedProcess(list(args), -1, "", proc)
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_pump, args=(proc, lines), daemon=True).start()
    deadline = time.monotonic() + timeout
    try:
        _call(proc, lines, 0, "initialize", CLIENT, deadline)
        _send(proc, {"jsonrpc": "2.0", "method": "initialized"})
        results = [_call(proc, lines, i, m, p, deadline) for i, (m, p) in enumerate(calls, 1)]
    except (RuntimeError, OSError, ValueError) as exc:
        return subprocess.CompletedProcess(list(args), -1, "", str(exc))
    finally:
        _end(proc)
    return subprocess.CompletedProcess(list(args), 0, json.dumps(results), "")


def _pump(proc: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.put(line)
    lines.put(None)


def _send(proc: subprocess.Popen[str], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()


def _call(proc: subprocess.Popen[str], lines: queue.Queue[str | None], ident: int, method: str,
          params: dict[str, Any], deadline: float) -> Any:
    """Send one request and wait for its answer, skipping notifications."""
    _send(proc, {"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise RuntimeError(f"{method}: no answer in time") from None
        if line is None:
            raise RuntimeError(f"{method}: the server closed its output")
        message = json.loads(line)
        if message.get("id") == ident:
            if "result" not in message:
                raise RuntimeError(f"{method} failed: {message.get('error')}")
            return message["result"]


def _end(proc: subprocess.Popen[str]) -> None:
    _kill(proc.pid)
    if proc.stdin is not None:
        with contextlib.suppress(OSError):
            proc.stdin.close()
    proc.wait()


# Per harness, the probes its module names (`Harness.doctor.probes`), resolved here.
DOCTOR_PROBES: Final[dict[str, tuple[Probe, ...]]] = {
    h.id: probes_of(h.doctor.probes) for h in REGISTRY.values() if h.doctor.probes
}
NOT_PROBED: Final = (
    "no one-shot offline listing shows this kind (it needs a model session or a long-running "
    "server); see docs/compatibility.md for what the conformance suite proved"
)
_DENIED: Final = re.compile(r"permission denied|EACCES|EPERM", re.IGNORECASE)


class Expected(msgspec.Struct, frozen=True):
    """One item a receipt says uze delivered to the harness, and the name it lists it under;
    `in_plugin`: carried by a plugin folder the harness loads (Claude Code, adr/0041, 0048);
    `off`: switched off there by `uze disable` (the receipt's `disabled`, ADR 0087, 0098)."""

    scope: Scope
    package: str
    kind: str
    name: str
    in_plugin: bool = False
    off: bool = False


def _in_plugin(harness: str, kind: str) -> bool:
    """Whether `harness` gets a resource of `kind` in a plugin folder (every skill, command and
    agent on a harness with `claude_plugins`)."""
    return REGISTRY[harness].claude_plugins is not None and kind in ("skill", "agent", "command")


def expected_items(harness: str, scopes: Mapping[Scope, ScopeContext]) -> list[Expected]:
    """Every delivered (not unsupported) projection of `harness` in the receipts, under its
    label (what the harness lists, adr/0041 and 0048), else, in a receipt older than labels,
    its folder or file name."""
    found = []
    for scope, ctx in scopes.items():
        for receipt in ctx.receipts():
            for p in receipt.projections:
                if p.harness != harness or p.route == "unsupported":
                    continue
                target = Path(p.target)
                name = {"skill": p.label or target.name, "agent": p.label or target.stem,
                        "instructions": receipt.name}.get(p.kind, p.resource)
                off = any(o.covers(p.resource, harness) for o in receipt.disabled)
                found.append(Expected(scope, receipt.name, p.kind, name,
                                      _in_plugin(harness, p.kind), off))
    return found


class Shown(msgspec.Struct, frozen=True):
    """One probe's outcome: what it shows per kind, or why it could not be read (prefixed
    `denied:`); `untrusted`: the harness's own words when it ignored the project's items
    because the workspace is not trusted ("" otherwise)."""

    seen: dict[str, Seen] | str
    untrusted: str = ""


def _run_probe(probe: Probe, binary: str, paths: Paths, project: Path, run: Runner) -> Shown:
    """Run one probe in `project` and read it."""
    env = probe_env(paths.env) | {"PWD": str(project)}  # OpenCode takes its folder from PWD
    if probe.calls:
        calls = [(method, params(str(project))) for method, params in probe.calls]
        result = rpc([binary, *probe.args], calls, env, PROBE_TIMEOUT, project)
    else:
        result = run([binary, *probe.args], env, PROBE_TIMEOUT, project)
    command = f"{Path(binary).name} {' '.join(probe.args)}"
    if result.returncode != 0:
        why = (result.stderr.strip() or result.stdout.strip()).splitlines()[:1]
        prefix = "denied: " if _DENIED.search(result.stderr) else ""
        return Shown(f"{prefix}`{command}` exited {result.returncode}: {''.join(why)[:200]}")
    try:
        untrusted = probe.untrusted(result) if probe.untrusted else ""
        return Shown(probe.read(result), untrusted[:400])
    except (ValueError, KeyError, IndexError, StopIteration, OSError, AttributeError) as exc:
        return Shown(f"`{command}` printed something uze cannot read ({type(exc).__name__}: "
                     f"{exc})")


NOT_TRUSTED: Final = (
    "not probed: the harness loads a project's plugins only in a workspace the user trusted, "
    "and uze doctor lists in a scratch copy, which nobody trusted"
)
NOT_STARTED: Final = (
    "not probed: the harness's listing would start the project's MCP servers, hooks or plugins, "
    "and uze doctor never does (it lists in a scratch copy of what cannot run)"
)
_INERT_KINDS: Final = ("skill", "agent", "instructions")
OFF: Final = "switched off by `uze disable`; the harness does not list it as on"
OFF_LISTED: Final = "switched off by `uze disable`, yet the harness lists it as on"


def scratch_project(scopes: Mapping[Scope, ScopeContext]) -> Path:
    """A new folder (a git project) holding copies of what uze delivered to the project that
    cannot run: skill folders, agent files and instruction files, at the same relative paths.
    No config file, hook, plugin folder or link is copied (ADR 0021). The caller removes it."""

    scratch = fs.scratch_dir("uze-probe-")
    fs.make_dir(scratch / ".git")
    ctx = scopes.get("project")
    if ctx is None:
        return scratch
    targets = {p.target.partition("#")[0] for r in ctx.receipts()
               for p in r.projections if p.kind in _INERT_KINDS and p.target
               and not _in_plugin(p.harness, p.kind)}
    for target in sorted(targets):
        if target.startswith(("/", "~")) or ".." in Path(target).parts:
            continue
        try:
            fs.copy_regular(ctx.location.resolve(target), scratch / target)
        except OSError:
            continue  # unreadable: the listing will not show it, and says so
    return scratch


def probe_harness(harness: str, binary: str, paths: Paths,
                  scopes: Mapping[Scope, ScopeContext], run: Runner) -> list[ProbeItem]:
    """Run the harness's own listings; one ProbeItem per delivered item. A listing that could
    start what a folder configures (`Probe.starts`) runs in a scratch project instead of the
    real one, and the project's MCP servers and hooks are then reported not probed."""

    expected = expected_items(harness, scopes)
    project = next(iter(scopes.values())).location.project
    seen: dict[str, tuple[str, dict[str, Seen] | str, bool]] = {}
    hidden: dict[str, str] = {}  # kind -> the harness's words: hidden in an untrusted project
    scratch: Path | None = None
    try:
        for probe in DOCTOR_PROBES.get(harness, ()):
            if any(e.kind in probe.kinds or e.kind in probe.gated for e in expected):
                if probe.starts and scratch is None:
                    scratch = scratch_project(scopes)
                where = scratch if probe.starts and scratch is not None else project
                shown = _run_probe(probe, binary, paths, where, run)
                seen |= {kind: (" ".join(probe.args), shown.seen, probe.starts)
                         for kind in probe.kinds}
                if shown.untrusted and not probe.starts:
                    hidden |= dict.fromkeys(probe.gated, shown.untrusted)
    finally:
        if scratch is not None:
            fs.remove_tree(scratch)
    return [_item(e, Path(binary).name, seen.get(e.kind), hidden.get(e.kind, ""))
            for e in expected]


def _item(e: Expected, binary: str, found: tuple[str, dict[str, Seen] | str, bool] | None,
          untrusted: str = "") -> ProbeItem:
    """What the listing shows of one expected item. `untrusted`: the harness's own words saying
    it ignores the project's items of this kind until the user trusts the workspace; an item
    then missing from a project is `denied` with those words, never missing (CAP-021)."""
    if found is None:
        said = f"; {UNTRUSTED}: {untrusted}" if untrusted and e.scope == "project" else ""
        return ProbeItem(e.scope, e.kind, e.name, e.package, "unverified", None, "",
                         NOT_PROBED + said)
    args, shown, in_scratch = found
    command = f"{binary} {args}"
    if in_scratch and e.scope == "project" and e.kind not in _INERT_KINDS:
        return ProbeItem(e.scope, e.kind, e.name, e.package, "unverified", None, command,
                         NOT_STARTED)
    if in_scratch and e.scope == "project" and e.in_plugin:
        return ProbeItem(e.scope, e.kind, e.name, e.package, "unverified", None, command,
                         NOT_TRUSTED)
    if isinstance(shown, str):
        denied: ProbeState = "denied" if shown.startswith("denied: ") else "unverified"
        return ProbeItem(e.scope, e.kind, e.name, e.package, denied, None, command, shown)
    seen = shown[e.kind]
    n = _count(seen, e)
    if e.off:
        return ProbeItem(e.scope, e.kind, e.name, e.package, "found" if n else "disabled", n,
                         command, OFF_LISTED if n else OFF)
    once = n >= 1 if e.kind == "instructions" else n == 1  # one region per scope's file
    state: ProbeState = "found" if once else ("missing" if n == 0 else "duplicate")
    note = ""
    if state == "missing" and untrusted and e.scope == "project":
        return ProbeItem(e.scope, e.kind, e.name, e.package, "denied", 0, command,
                         f"{UNTRUSTED}: {untrusted}")
    if state == "found" and seen.connected is not None and e.name not in seen.connected:
        note = "listed but not connected"
    return ProbeItem(e.scope, e.kind, e.name, e.package, state, n, command, note)


def _count(seen: Seen, e: Expected) -> int:
    """How often the item is listed; a hook by its wrapper `<package>/<Event>-<i>[-<group>]`."""
    if e.kind != "hook":
        return seen.counts[e.name]
    return sum(
        n for key, n in seen.counts.items()
        if key.partition("/")[0] == e.package
        and (key.partition("/")[2] == e.name or key.endswith(f"-{e.name}"))
    )
