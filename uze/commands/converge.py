"""`uze install` with no SOURCE: bring a scope to what its uze.toml declares, as uze.lock pins
it (ADR 0024).

Each declared package that is installed at its locked tree, with every artifact as uze wrote
it, is left alone (no network, no write). Every other one is fetched at its locked commit (from
the mirror when it is there: offline) or, when not locked yet, resolved; its tree digest is
checked against the lock for every package **before** anything is installed. `--frozen` never
resolves and never writes the lock: a declaration the lock does not answer is an error.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import msgspec

from uze import memo
from uze.artifacts.kind import Action
from uze.commands import declare
from uze.commands.acquire import Options, Outcome, install_folder, materialised, parse
from uze.commands.declared import opaque_harnesses
from uze.errors import ConsentRequired, TrustRequired, UzeError
from uze.install.rows import Row, planned_rows, recorded_rows
from uze.paths import Paths
from uze.sources.lockfile import LockedPackage
from uze.sources.spec import Source
from uze.state.context import ScopeContext, load_created, locked, open_scope, save_created
from uze.state.receipts import Off
from uze.transaction import Transaction


class Converged(msgspec.Struct, frozen=True):
    """One declared package: what converging did to it."""

    name: str
    action: str  # present | installed
    version: str
    source: str
    commit: str
    tree: str
    notes: tuple[str, ...] = ()  # each edit kept, or put back with --force (ADR 0064)
    projections: tuple[Row, ...] = ()  # its routes, as `install --json` (uze.install.rows)

    def head(self) -> str:
        """Its line: what converging did, from where."""
        did = "already installed" if self.action == "present" else self.action
        return (f"{self.name} {self.version}: {did}"
                f" ({self.source}{' at ' + self.commit[:12] if self.commit else ''})")


class Resolved(msgspec.Struct, frozen=True):
    """A file (uze.toml or uze.lock) whose merge conflict converging resolved, and what it took
    from one side of the merge."""

    file: str
    taken: tuple[str, ...]


class ConvergeResult(msgspec.Struct, frozen=True):
    """Every declared package, and the pins dropped from the lock (no longer declared)."""

    packages: tuple[Converged, ...]
    dropped: tuple[str, ...]
    dry_run: bool
    merged: tuple[Resolved, ...] = ()
    notes: tuple[str, ...] = ()  # harness ids of the lock this uze skipped (ADR 0062)

    def tail(self) -> list[str]:
        """The lines after the packages': pins dropped and merge conflicts resolved."""
        out = [f"{name}: no longer declared; unpinned" for name in self.dropped]
        return out + [f"{m.file}: merge conflict resolved"
                      + (f" ({', '.join(m.taken)})" if m.taken else "") for m in self.merged]


def converge_json(result: ConvergeResult) -> dict[str, Any]:
    """The `install --json` document of a converge."""
    return {"schema": 1, "dry_run": result.dry_run, "dropped": list(result.dropped),
            "merged": [msgspec.to_builtins(m) for m in result.merged],
            "packages": [msgspec.to_builtins(p) for p in result.packages]}


def _present(ctx: ScopeContext, pin: LockedPackage, force: bool) -> Converged | None:
    """None unless the package is installed at its pin with every artifact as uze wrote it or
    edited (kept: the user's, ADR 0064; with `force`, an edited one is put back, so not
    present); else the package, a note per edited artifact, its routes as installed."""
    from uze.artifacts import registry as kinds
    from uze.install.edits import UNCONSENTED, edit_notes

    receipt = ctx.receipt(pin.name)
    if (receipt is None or receipt.tree != pin.tree or receipt.status != "complete"
            or sorted(receipt.harnesses) != sorted(pin.harnesses)
            or sorted(o.locked() for o in receipt.disabled) != sorted(pin.disabled)
            or receipt.settings != pin.settings):
        return None
    states = {kinds.record_key(r): kinds.inspect_record(ctx, r) for r in receipt.artifacts}
    allowed = ("matched",) if force else ("matched", "drifted")
    if any(state not in allowed for state in states.values()):
        return None
    kept = [Action(key, "kept", UNCONSENTED if key in receipt.unconsented else "edited; kept")
            for key, state in states.items() if state == "drifted"]
    return _converged(pin, "present", tuple(edit_notes(ctx, kept, receipt.artifacts)),
                      recorded_rows(receipt))


def _check_frozen(declared: dict[str, str], pins: dict[str, LockedPackage],
                  sources: dict[str, str]) -> None:
    problems = [f"{name}: uze.toml says {declared[name]}, uze.lock "
                + (f"pins {pins[name].declared()}" if name in pins else "has no pin")
                for name in declared if name not in pins or pins[name].declared() != sources[name]]
    problems += [f"{name}: locked but not declared in uze.toml"
                 for name in pins if name not in declared]
    if problems:
        raise UzeError("uze.lock does not match uze.toml (--frozen changes nothing)",
                       hint="run `uze install` without --frozen, then commit uze.lock",
                       details=problems)


def _declared_form(paths: Paths, ctx: ScopeContext, text: str) -> tuple[Source, str]:
    """A declaration parsed (folders relative to the scope's root) and its canonical form."""
    root = ctx.location.project if ctx.scope == "project" else ctx.paths.uze_home
    source = parse(paths, text, root)
    if source.kind == "folder":
        return source, declare.folder_pin(source, ctx, root)[1].declared
    return source, source.canonical()


def tree_of(folder: Path, settings: Mapping[str, str] | None = None) -> tuple[str, str]:
    """(name, tree digest) of the package at `folder`, as install would store it given the
    setting values a pin recorded (`settings`: its text with `${user_config.KEY}` filled, as
    install fills it, ADR 0103); the memos then forget its bytes (uze.memo: a converge
    verifies every package before installing)."""
    from uze.commands.install import package_tree
    from uze.package import read_package
    from uze.package.settings import given_values, kept_values, ready

    package = read_package(folder)
    given = kept_values(package, settings or {})
    found = package.name, package_tree(ready(package, given_values(package, given), given))[2]
    memo.forget()
    return found


def _verify(name: str, folder: Path, pin: LockedPackage | None) -> None:
    """Refuse bytes that are not what the lock pins (before anything is written)."""
    found, digest = tree_of(folder, pin.settings if pin is not None else None)
    if found != name:
        raise UzeError(f"uze.toml declares {name}, but its source holds package {found}",
                       hint=f"declare it as {found} in uze.toml")
    if pin is not None and digest != pin.tree:
        where = f" at commit {pin.commit}" if pin.commit else ""
        raise UzeError(f"{name}: integrity check failed: uze.lock pins tree {pin.tree}, "
                       f"{pin.declared()}{where} gives tree {digest}; nothing was written",
                       hint="if the change is expected, run `uze update " + name + "`")


def _check_uncached(paths: Paths, ctx: ScopeContext,
                    todo: list[tuple[str, Source, LockedPackage | None]],
                    stack: contextlib.ExitStack) -> None:
    """Verify each pinned git commit the mirror lacks in a temporary repository first, so an
    integrity failure leaves $UZE_HOME as it was too. The temporary repositories stay open on
    `stack`: the fetch into the mirror that follows copies from them, and packages from one
    repository share one fetch."""
    from uze.sources.mirrors import is_cached

    for name, source, pin in todo:
        own = declare.source_of(pin) if pin is not None else source
        if pin is None or own.kind != "git" or is_cached(paths, own, pin.commit):
            continue
        folder, _found = stack.enter_context(materialised(
            paths, source, ctx, ctx.location.project, commit=pin.commit, cache=False,
            pinned=own if pin.marketplace else None))
        _verify(name, folder, pin)


class Wanted(msgspec.Struct, frozen=True):
    """One package a command is about to install: its source at `commit` ("" what its ref
    points at now), the pin its bytes must match (None: not checked), its harnesses (None: the
    command's), a marketplace plugin's own source as the lock recorded it."""

    name: str
    source: Source
    commit: str = ""
    pin: LockedPackage | None = None
    harness: str | None = None
    pinned: Source | None = None


def ask_first(paths: Paths, ctx: ScopeContext, options: Options, wanted: list[Wanted],
              stack: contextlib.ExitStack, root: Path) -> dict[str, str]:
    """Every package's consent question, before anything is written anywhere (ADR 0064): each
    package is checked out without writing under $UZE_HOME (the temporary repositories stay
    open on `stack` for the fetch into the mirror that follows), verified against its pin and
    planned. Raises TrustRequired naming every package that runs something not accepted yet
    (before, or at this command's question: `options.accepted`); else returns the commit each
    package resolved to (installed at that commit, not whatever its ref points at by then)."""
    from uze.commands.install import check_trust, prepare

    asked: list[tuple[str, TrustRequired]] = []
    commits: dict[str, str] = {}
    for want in wanted:
        folder, found = stack.enter_context(materialised(
            paths, want.source, ctx, root, commit=want.commit, cache=False, pinned=want.pinned))
        _verify(want.name, folder, want.pin)
        commits[want.name] = found.commit
        scope, _package, plan, _old, entries, _meta = prepare(
            paths, folder, options.scope, ctx.location.project, want.harness or options.harness,
            ctx.location.project, dict(want.pin.settings) if want.pin else None)
        try:
            check_trust(scope, plan, entries, False, options.accepted)
        except TrustRequired as needed:
            asked.append((want.name, needed))
        memo.forget()  # keep no package's plan bytes past its question (ADR 0100)
    if len(asked) == 1:
        raise asked[0][1]
    if asked:
        raise ConsentRequired(asked)
    return commits


def converge(paths: Paths, options: Options, cwd: Path, *, frozen: bool = False) -> ConvergeResult:
    """Install every declared package as locked. Raises before any write on a lock mismatch
    (`frozen`) or an integrity failure."""
    ctx = open_scope(paths, options.scope, options.project, cwd)
    declared, pins, clean = declare.read_merged(ctx)
    pins, unusable, notes = opaque_harnesses(pins)
    manifest = declare.scope_files(ctx)[0]
    if not manifest.exists():
        raise UzeError(f"nothing to install: no uze.toml in {manifest.parent}",
                       hint="uze install SOURCE installs a package and declares it in uze.toml")
    merged = tuple(Resolved(ctx.location.display(m.path), tuple(m.taken)) for m in clean)
    if frozen and merged:
        where = " and ".join(m.file for m in merged)
        raise UzeError(f"{where}: git conflict markers (--frozen changes nothing)",
                       hint="run `uze install` without --frozen, then commit both files")
    parsed = {name: _declared_form(paths, ctx, text) for name, text in declared.items()}
    sources = {name: form for name, (_s, form) in parsed.items()}
    if frozen:
        _check_frozen(declared, pins, sources)
    usable = {n: p for n, p in pins.items() if n in declared and p.declared() == sources[n]}
    skipped = unusable & set(usable)  # pinned only for harnesses this uze does not know
    present = {n: _present(ctx, usable[n], options.force) for n in declared
               if n in usable and n not in skipped}
    todo = [n for n in declared if n not in skipped and present.get(n) is None]
    done = [present.get(n) or _converged(usable[n], "present") for n in declared
            if n not in todo]
    with contextlib.ExitStack() as stack:
        commits: dict[str, str] = {}
        if options.trust or options.dry_run or not todo:
            _check_uncached(paths, ctx, [(n, parsed[n][0], usable.get(n)) for n in todo], stack)
        else:
            commits = ask_first(paths, ctx, options, [_wanted(n, parsed[n][0], usable.get(n))
                                                      for n in todo], stack, ctx.location.project)
        ready = []
        for name in todo:
            pin = usable.get(name)
            folder, found = stack.enter_context(materialised(
                paths, parsed[name][0], ctx, ctx.location.project,
                commit=pin.commit if pin else commits.get(name, ""), cache=not options.dry_run,
                pinned=declare.source_of(pin) if pin and pin.marketplace else None))
            _verify(name, folder, pin)
            ready.append((name, folder, found, pin))
        if not options.dry_run:
            _write_clean(ctx, clean)
        for _name, folder, found, pin in ready:
            harness = ",".join(pin.harnesses) if pin else options.harness
            # uze.toml is the user's intent: a source changed there replaces the old one.
            step = msgspec.structs.replace(options, harness=harness,
                                           project=ctx.location.project, replace=True,
                                           adopt=True, off=_switches(pin),
                                           settings=tuple(pin.settings.items()) if pin
                                           else options.settings)
            outcome = install_folder(paths, folder, found, step, cwd)
            done.append(_installed(ctx, outcome, found))
    dropped = tuple(sorted(set(pins) - set(declared)))
    if dropped and not options.dry_run:
        _drop(ctx, dropped)
    return ConvergeResult(tuple(sorted(done, key=lambda c: c.name)), dropped, options.dry_run,
                          merged, notes)


def _switches(pin: LockedPackage | None) -> tuple[Off, ...] | None:
    """What uze.lock switches off for a package (ADR 0087); None without a pin."""
    return None if pin is None else tuple(Off.from_lock(text) for text in pin.disabled)


def _wanted(name: str, source: Source, pin: LockedPackage | None) -> Wanted:
    if pin is None:
        return Wanted(name, source)
    return Wanted(name, source, pin.commit, pin, ",".join(pin.harnesses),
                  declare.source_of(pin) if pin.marketplace else None)


def _converged(pin: LockedPackage, action: str, notes: tuple[str, ...] = (),
               rows: Iterable[Row] = ()) -> Converged:
    return Converged(pin.name, action, pin.version, pin.declared(), pin.commit, pin.tree, notes,
                     tuple(rows))


def _installed(ctx: ScopeContext, outcome: Outcome, pin: declare.Pin) -> Converged:
    from uze.install.edits import edit_notes

    plan, receipt = outcome.result.plan, outcome.result.receipt
    notes = edit_notes(ctx, outcome.result.actions, receipt.artifacts if receipt else ())
    return Converged(plan.package.name, "installed", plan.package.version, pin.declared,
                     pin.commit, plan.tree, tuple(notes), tuple(planned_rows(outcome.result)))


def _write_clean(ctx: ScopeContext, clean: list[declare.Merged]) -> None:
    """Write uze.toml and uze.lock as `declare.read_merged` resolved them (nothing when neither
    had conflict markers), before the first install reads them."""
    if not clean:
        return
    with locked(ctx, store=False), Transaction(ctx.journal_root, ctx.roots.check_write) as tx:
        for merged in clean:
            tx.write(merged.path, merged.data)


def _drop(ctx: ScopeContext, names: tuple[str, ...]) -> None:
    """Unpin packages no longer declared (their installs stay; `uze uninstall` removes them)."""

    with locked(ctx, store=False):
        created = load_created(ctx)
        pins = declare.read_pair(ctx)[1]
        with Transaction(ctx.journal_root, ctx.roots.check_write) as tx:
            path = declare.scope_files(ctx)[1]
            remaining = [p for n, p in pins.items() if n not in names]
            declare.write_lock(tx, ctx, created, path, remaining)
            save_created(tx, ctx, created)
