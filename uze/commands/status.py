"""`uze status [NAME] [--check]`: per package, resource and harness, the route and the live
state; each package uze.toml declares and uze.lock pins against what is installed here; and
every difference with the command that fixes it (`--check`: the CI gate, exit 1 on any)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

import msgspec

from uze.commands.declared import QUIET, Declared, Unreadable, declared_rows
from uze.errors import NotInstalled
from uze.harnesses import REGISTRY
from uze.paths import Paths
from uze.projections import snapshot
from uze.state import receipt_cache
from uze.state.consent import accepted
from uze.state.context import ScopeContext, locked, open_scope, sweep_stamps
from uze.state.verdicts import Verdicts
from uze.state.verdicts import cache_file as verdict_file
from uze.vocabulary import LiveState, State

if TYPE_CHECKING:
    from uze.state.receipts import Artifact, Receipt


class PackageStatus(msgspec.Struct, frozen=True):
    """One installed package and the state of each of its projections."""

    receipt: Receipt
    states: tuple[State, ...]  # parallel to receipt.projections
    source: str = ""  # as uze.lock pins it ("" without a pin)
    commit: str = ""
    lock: str = ""  # its `Declared.state` (installed, other pin, undeclared, ...)

    def to_json(self) -> dict[str, Any]:
        """The `packages[]` object of `status --json` (docs/design.md, output documents)."""
        r = self.receipt
        projections = [
            {**msgspec.structs.asdict(p), "state": state}
            for p, state in zip(r.projections, self.states, strict=True)
        ]
        return {"name": r.name, "version": r.version, "scope": r.scope, "tree": r.tree,
                "projections": projections, "executions": list(r.executions),
                "source": self.source, "commit": self.commit, "lock": self.lock}


class Difference(msgspec.Struct, frozen=True):
    """One way a scope differs from its uze.toml + uze.lock, and the command that fixes it.

    `problem`: a `Declared.state` (not installed, other pin, ...), a live state of an artifact
    (drifted, missing, conflict, blocked), `runs` (an edited artifact that runs: not what this
    user accepted), `consent` (this user never accepted what it runs) or `unreadable`.
    `files`: what differs, per file; `waiting`: new versions left beside edits (`.uze-new`)."""

    name: str
    scope: str
    problem: str
    message: str
    fix: str
    files: tuple[str, ...] = ()
    waiting: tuple[str, ...] = ()


class StatusResult(msgspec.Struct, frozen=True):
    """Status of every package in the scopes asked for. `untrusted_hooks`: (package, scope,
    target) of each Codex hook uze wrote that Codex has no trust record for (not in the JSON
    document: Codex keeps that record, uze only reads it)."""

    project: Path
    packages: tuple[PackageStatus, ...]
    untrusted_hooks: tuple[tuple[str, str, str], ...] = ()
    declared: tuple[Declared, ...] = ()
    differences: tuple[Difference, ...] = ()
    gate: bool = False  # `status --check`: print every difference, exit 1 on any

    def to_json(self) -> dict[str, Any]:
        """The whole `status --json` document: `declared` (every package of uze.toml, uze.lock
        and the receipts, with its state here) and `differences` (what `--check` fails on)."""
        return {"schema": 1, "project": str(self.project),
                "packages": [p.to_json() for p in self.packages],
                "declared": [msgspec.to_builtins(d) for d in self.declared],
                "differences": [msgspec.to_builtins(d) for d in self.differences]}


def _package_status(ctx: ScopeContext, verdicts: Verdicts, receipt: Receipt,
                    origin: tuple[str, str], lock: str) -> tuple[PackageStatus, list[Difference]]:
    """The package's states and differences: taken as an earlier status found them while
    every path they rest on has the same stat and each of its records in a shared file that
    changed since is still as uze wrote it (ADR 0101, 0107), else inspected artifact by
    artifact (and remembered when every artifact is as uze wrote it)."""
    path = ctx.receipt_file(receipt.name)
    key = ctx.loaded[path][0] if path in ctx.loaded else ()
    artifacts = receipt.artifacts

    def recheck(index: int) -> bool:  # a record in a shared file that changed since
        from uze.artifacts.registry import inspect_record

        return index < len(artifacts) and inspect_record(ctx, artifacts[index]) == "matched"

    known = verdicts.states(path, key, recheck) if key else None
    if known is not None:
        states = cast("tuple[State, ...]", known)  # as this code found them before
        found, out = PackageStatus(receipt, states, *origin, lock=lock), list[Difference]()
    else:
        ctx.hashes.deps = []
        shared: list[tuple[int, str, os.stat_result]] = []
        try:
            found, out, live = _inspected(ctx, receipt, origin, lock, shared)
            if key and all(state == "matched" for _record, state in live.values()):
                verdicts.remember(path, key, found.states, ctx.hashes.deps, shared)
        finally:
            ctx.hashes.deps = None
    if receipt.trust and not accepted(ctx.consent_file(receipt.name), ctx.consent_project,
                                      receipt.name, receipt.trust):
        out.append(Difference(receipt.name, receipt.scope, "consent",
                              f"{receipt.name} runs commands you have not accepted here",
                              f"`uze uninstall {receipt.name}`, then `uze install` (it asks)"))
    return found, out


def _inspected(ctx: ScopeContext, receipt: Receipt, origin: tuple[str, str], lock: str,
               shared: list[tuple[int, str, os.stat_result]]
               ) -> tuple[PackageStatus, list[Difference], dict[str, tuple[Artifact, LiveState]]]:
    """Every artifact of the package inspected; `shared` gets each record of a shared file
    (its index in the receipt, the file, the stat it was read with)."""
    # The kinds build receipt records: they load once there is a receipt (ADR 0015).
    from uze.artifacts import parts
    from uze.artifacts.registry import record_key

    records = {record_key(a): (index, a) for index, a in enumerate(receipt.artifacts)}
    by_key = {key: a for key, (_i, a) in records.items()}
    owned: dict[str, set[str]] = {}  # artifact key -> the parts of it projections name
    for target in {p.target for p in receipt.projections}:
        above = parts.owner(target, by_key)
        if above is not None:
            owned.setdefault(above[0], set()).add(above[1])
    live: dict[str, tuple[Artifact, LiveState]] = {}  # a plugin folder's part by its own key
    for key, (index, record) in records.items():
        mine = owned.get(key, set())
        if parts.is_parted(record) and mine - {""}:
            live |= {f"{key}/{part}" if part else key: (record, state)
                     for part, state in parts.states(ctx, record, mine).items()}
        else:
            live[key] = (record, _inspect(ctx, record, index, shared))
    off = receipt.disabled
    states: tuple[State, ...] = tuple(
        "disabled" if off and any(o.covers(p.resource, p.harness) for o in off)
        else "undelivered" if p.route == "unsupported"
        else live.get(p.target, (None, "missing"))[1]
        for p in receipt.projections
    )
    found = PackageStatus(receipt, states, *origin, lock=lock)
    if lock == "other pin":  # the lock moved (a pull): its new files are no edit of anyone's
        return found, [], live
    out = [_difference(ctx, found, record, state, key)
           for key, (record, state) in live.items() if state != "matched"]
    return found, out, live


def _inspect(ctx: ScopeContext, record: Artifact, index: int = -1,
             shared: list[tuple[int, str, os.stat_result]] | None = None) -> LiveState:
    """`inspect_record`, trusting what an earlier status found in a shared file (an entry, a
    hook group, a region) while that file's stat is unchanged (ADR 0081): status on 200
    packages then looks up each package's part of the settings files by one `lstat` of each
    file, not by parsing and hashing it again. A record of a shared file goes to `shared`
    (with `index`, its place in the receipt), not to the digest cache's `deps`: a verdict
    keeps it by record, not by the file's stat (ADR 0107)."""
    from uze.artifacts.registry import inspect_record

    key = _memo_key(record)
    if key is None:
        return inspect_record(ctx, record)
    path = ctx.location.resolve(record.target)
    st = snapshot.lstat(path)  # before the file is read (snapshot.read keeps that order)
    hashes, deps = ctx.hashes, ctx.hashes.deps
    hashes.deps = None
    try:
        if st is not None and hashes.was_matched(path, st, key):
            state: LiveState = "matched"
        else:
            state = inspect_record(ctx, record)
            if st is not None and state == "matched":
                hashes.matched(path, st, key)
    finally:
        hashes.deps = deps
    if shared is not None and st is not None:
        shared.append((index, os.fspath(path), st))
    return state


def _memo_key(record: Artifact) -> str | None:
    """What makes a record of a shared file `matched` (its place in the file and the digest
    of what uze wrote there), as one string; None for the kinds the digest cache covers file
    by file (folders, whole files)."""
    if record.type == "entry" or record.type == "element":
        fields: list[object] = [record.type, record.format, record.key_path, record.digest]
    elif record.type == "region":
        fields = [record.type, record.region, record.digest]
    else:
        return None
    return msgspec.json.encode(fields).decode()


# Files in a folder that declare what runs (MCP servers, hooks): Claude plugin manifests too.
_DECLARES_RUNS = frozenset({"hooks.json", ".mcp.json", "mcp.json", "plugin.json"})
_FIXES: dict[str, str] = {
    "drifted": "`uze install --force` puts the locked bytes back (the edits are lost); "
               "`uze uninstall {name}` keeps the edited copies",
    "runs": "`uze install --force` puts back the bytes you accepted",
    "missing": "`uze install` writes it again",
    "conflict": "move what now owns the target away, then `uze install`",
    "blocked": "repair each uze:begin/uze:end marker pair by hand, then run the command again",
}


def _runs(record: Artifact, carried: Sequence[tuple[str, str, str]], files: list[str]) -> bool:
    """Whether an edit of `record` changes what runs: an MCP server or hook entry, uze's package
    copy or hook wrappers, or in a folder an executable file or a file that declares servers
    or hooks."""
    if record.target.startswith((".uze/packages/", ".uze/hooks/")):
        return True
    if record.type != "tree":
        return record.type != "file" and any(kind in ("mcp", "hook") for kind, _r, _h in carried)
    changed = {f.rpartition(" (")[0].removeprefix(record.target + "/") for f in files}
    return bool(changed & set(record.executables)) or any(
        rel.rpartition("/")[2] in _DECLARES_RUNS for rel in changed)


def _difference(ctx: ScopeContext, package: PackageStatus, record: Artifact, state: LiveState,
                key: str) -> Difference:
    """One artifact (or part of a plugin folder, `key`) not as uze wrote it: the resources it
    carries, its files, the fix."""
    from uze.artifacts import parts
    from uze.artifacts.registry import record_key
    from uze.install.edits import edited_files

    r = package.receipt
    carried = [(p.kind, p.resource, p.harness) for p in r.projections if p.target == key]
    files, waiting = edited_files(ctx, record) if state == "drifted" else ([key], [])
    if key != record_key(record):  # a part: its own files, and the manifest every part reads
        inside = (f"{key}/", f"{record.target}/{parts.MANIFEST}")
        files = [f for f in files if f.startswith(inside)]
        waiting = [w for w in waiting if w.startswith(inside)]
    runs = record_key(record) in r.unconsented or (r.trust != "" and _runs(record, carried, files))
    problem = "runs" if state == "drifted" and runs else state
    what = ", ".join(sorted({f"{kind} {resource}" for kind, resource, _h in carried})) or key
    harnesses = ", ".join(sorted({h for _k, _r, h in carried}))
    message = f"{r.name}: {state} {what}" + (f" in {harnesses}" if harnesses else "")
    if problem == "runs":
        message += " (of a package that runs something: not covered by your consent)"
    fix = _FIXES[problem].format(name=r.name)
    if package.lock == "undeclared":
        fix = f"`uze uninstall {r.name}` (uze.toml does not declare it)"
    return Difference(r.name, r.scope, problem, message, fix, tuple(files), tuple(waiting))


def _untrusted_hooks(paths: Paths, contexts: list[ScopeContext],
                     found: list[PackageStatus]) -> tuple[tuple[str, str, str], ...]:
    """Each delivered hook, in a harness that gates hooks on trust (Codex: `trust.hook_trust`),
    whose file has no trust record in that harness's config."""
    hooks = [(package.receipt, p) for package in found for p, state in
             zip(package.receipt.projections, package.states, strict=True)
             if p.kind == "hook" and state == "matched"]
    gates = {h: gate for h in {p.harness for _, p in hooks}
             if h in REGISTRY and (gate := REGISTRY[h].trust.hook_trust) is not None}
    if not gates:
        return ()
    trusted = {h: gate(paths) for h, gate in gates.items()}
    by_scope = {ctx.scope: ctx for ctx in contexts}
    out = []
    for receipt, p in hooks:
        if p.harness not in trusted:
            continue
        hook_file = by_scope[receipt.scope].location.resolve(p.target.split("#", 1)[0])
        if str(hook_file) not in trusted[p.harness]:
            out.append((receipt.name, receipt.scope, p.target))
    return tuple(out)


def status(
    paths: Paths,
    name: str | None = None,
    *,
    scope: Literal["project", "user", "all"] = "all",
    project: Path | None = None,
    cwd: Path,
    check: bool = False,
) -> StatusResult:
    """Inspect installed packages and compare each scope with its uze.toml + uze.lock, without
    changing anything. `check`: the CI gate (`gate` set). Raises NotInstalled for a NAME
    neither installed nor declared."""
    scopes: list[Literal["project", "user"]] = ["project", "user"] if scope == "all" else [scope]
    contexts = [open_scope(paths, s, project, cwd) for s in scopes]
    verdicts = [Verdicts(verdict_file(paths.uze_home, ctx.key),
                         f"{ctx.location.project}\0{paths.home}") for ctx in contexts]
    for ctx in contexts:
        if ctx.journal_root.exists():  # a command crashed mid-change: roll it back first
            with locked(ctx, store=False):
                pass
        sweep_stamps(ctx)
    with snapshot.held():  # each shared config file read once, not once per package
        return _status(paths, name, scope, contexts, verdicts, check)


def _status(paths: Paths, name: str | None, scope: str, contexts: list[ScopeContext],
            verdicts: list[Verdicts], check: bool) -> StatusResult:
    found: list[PackageStatus] = []
    rows: list[Declared] = []
    differences: list[Difference] = []
    for ctx, known in zip(contexts, verdicts, strict=True):
        ctx.hashes.saves = True  # it saves what it learns: the file is read at the first look
        receipts = receipt_cache.receipts(ctx, defer=True)
        declared, unreadable = declared_rows(ctx, receipts)
        declared = [d for d in declared if name is None or d.name == name]
        rows += declared
        differences += _declared_differences(declared, unreadable)
        by_name = {d.name: d for d in declared}
        for receipt in receipts:
            if name is None or receipt.name == name:
                row = by_name[receipt.name]
                package, more = _package_status(ctx, known, receipt, (row.source, row.commit),
                                                row.state)
                found.append(package)
                differences += more
    if name is not None and not rows:
        raise NotInstalled(name, scope,
                           ", ".join(c.location.display(c.receipts_dir) for c in contexts),
                           [r.name for c in contexts for r in c.receipts()])
    for ctx, known in zip(contexts, verdicts, strict=True):
        # what was hashed or found now need not be read next time (ADR 0011, 0101)
        ctx.hashes.keep(known.trusted)
        ctx.hashes.save(merge=name is not None)
        known.save(merge=name is not None)
    receipt_cache.save()
    return StatusResult(contexts[0].location.project, tuple(found),
                        _untrusted_hooks(paths, contexts, found), tuple(rows),
                        tuple(differences), check)


def _declared_differences(rows: list[Declared], unreadable: Unreadable | None
                          ) -> list[Difference]:
    out = [Difference("", u.scope, "unreadable", u.message, u.fix) for u in [unreadable] if u]
    return out + [Difference(d.name, d.scope, d.state, d.message, d.fix)
                  for d in rows if d.state not in QUIET]
