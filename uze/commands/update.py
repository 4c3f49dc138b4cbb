"""`uze outdated` (read-only) and `uze update [NAME...]`: each pinned package against what its
ref points at now, and moving the pins (ADR 0024).

`outdated` asks each remote (`git ls-remote`) and writes nothing anywhere; a package is
compared by tree digest: a folder's now, a git package's at the commit its repository moved to
(checked out in a temporary repository), so a commit that changed another package of the same
repository leaves this one current (ADR 0074). `update` installs each package whose pin
moves, at the new commit, in the install's own transaction (the lock is written there too); the
install asks for consent again when what the package runs changed (ADR 0007).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import msgspec

from uze.commands import declare
from uze.commands.acquire import Options, install_folder, materialised
from uze.commands.declare import source_of
from uze.commands.declared import opaque_harnesses
from uze.commands.selection import narrowed
from uze.errors import UzeError, did_you_mean
from uze.install.rows import Row, planned_rows
from uze.paths import Paths
from uze.policy import load_policy
from uze.sources.catalog import Catalog
from uze.sources.lockfile import LockedPackage
from uze.sources.spec import Source
from uze.state.context import ScopeContext, open_scope


class Drift(msgspec.Struct, frozen=True):
    """One pinned package: locked against current. `state` is current, outdated or updated."""

    name: str
    source: str
    locked_version: str
    locked_commit: str
    locked_tree: str
    current_commit: str
    current_tree: str
    state: str
    version: str = ""  # the version installed by update ("" otherwise)
    notes: tuple[str, ...] = ()  # each edit update kept, and where the new version is
    projections: tuple[Row, ...] = ()  # the routes update installed (uze.install.rows)

    def head(self) -> str:
        """Its line: up to date, outdated, or updated from which to which."""
        old = self.locked_commit[:12] or self.locked_tree[:12]
        new = self.current_commit[:12] or self.current_tree[:12]
        if self.state == "current":
            return f"{self.name} {self.locked_version}: up to date ({old})"
        if self.state == "updated":
            return f"{self.name}: {self.locked_version} -> {self.version} ({old} -> {new})"
        return f"{self.name} {self.locked_version}: {self.state} ({old} -> {new})"


class DriftReport(msgspec.Struct, frozen=True):
    """Every pinned package asked about."""

    packages: tuple[Drift, ...]
    dry_run: bool = False
    notes: tuple[str, ...] = ()  # harness ids of the lock this uze skipped (ADR 0062)

    def to_json(self) -> dict[str, Any]:
        """The `--json` document."""
        return {"schema": 1, "dry_run": self.dry_run,
                "packages": [msgspec.to_builtins(p) for p in self.packages]}

    def lines(self) -> list[str]:
        """The human report of `outdated`, one line per package (`update`: uze.ui.team_view
        adds each updated package's routes)."""
        out = []
        for p in self.packages:
            out.append(p.head())
            out += [f"  {note}" for note in p.notes]
        return out or ["nothing pinned in uze.lock"]


def _root(ctx: ScopeContext) -> Path:
    return ctx.location.project if ctx.scope == "project" else ctx.paths.uze_home


def _current(paths: Paths, ctx: ScopeContext, pin: LockedPackage,
             fresh: dict[str, Catalog], stack: contextlib.ExitStack) -> tuple[str, str]:
    """(commit, tree) the pin's source gives now; a git source's tree only when it moved.
    `fresh`: the catalogs of its marketplaces, read again for this command."""
    source = _entry_source(paths, pin, fresh)
    if source.kind == "git":
        from uze.sources.git import current_commit

        return current_commit(paths, source), ""
    if not declare.folder_pin(source, ctx, _root(ctx))[0].is_dir():
        raise UzeError(f"{pin.name}: the folder {pin.source} is not there",
                       hint="reinstall it from where it is now: uze install PATH")
    return "", _tree_now(paths, ctx, pin, fresh, stack)


def _tree_now(paths: Paths, ctx: ScopeContext, pin: LockedPackage, fresh: dict[str, Catalog],
              stack: contextlib.ExitStack, commit: str = "") -> str:
    """The tree digest of what install would take from the pin's source now (at `commit`):
    the plugin and `--skill` names it chose, and a marketplace plugin narrowed by its catalog
    entry's lists, as the lock's tree was made; never the whole folder when the pin holds a
    part of it. A git source is checked out in a temporary repository kept open on `stack`."""
    from uze.commands.converge import tree_of

    source = _entry_source(paths, pin, fresh)
    # a folder is only read here, as install read it when the user typed it (ADR 0057 refuses
    # outside folders where a lock would make uze *install* from them)
    folder, _found = stack.enter_context(materialised(
        paths, source, ctx, _root(ctx), commit=commit, cache=False,
        typed=source.kind == "folder"))
    if pin.marketplace:  # the entry's own source chooses nothing: narrow it as install did
        entry = fresh[pin.marketplace].entry(pin.name) if pin.marketplace in fresh else None
        folder = stack.enter_context(narrowed(folder, entry, tuple(pin.skills)))
    return tree_of(folder, pin.settings)[1]


def _entry_source(paths: Paths, pin: LockedPackage, fresh: dict[str, Catalog]) -> Source:
    """Where a pin's package is now: a marketplace plugin's entry as the catalog lists it."""
    if not pin.marketplace:
        return source_of(pin)
    if pin.marketplace in fresh:
        entry = fresh[pin.marketplace].entry(pin.name)
        if entry is None or entry.source is None:
            raise UzeError(f"marketplace {pin.marketplace} no longer lists {pin.name}"
                           + (f" as a source uze installs ({entry.why})" if entry else ""),
                           hint=f"`uze search {pin.name}`; or `uze uninstall {pin.name}`")
        return entry.source
    from uze.commands.marketplace import entry_source

    return entry_source(paths, Source("marketplace", pin.name, marketplace=pin.marketplace))


def _selected(pins: dict[str, LockedPackage], names: tuple[str, ...]) -> list[LockedPackage]:
    unknown = [n for n in names if n not in pins]
    if unknown:
        raise UzeError(f"not pinned in uze.lock: {', '.join(unknown)}",
                       hint=f"{did_you_mean(unknown[0], pins)}`uze outdated` lists the pinned "
                            "packages")
    return [pins[n] for n in sorted(names or pins)]


def _drift(pin: LockedPackage, commit: str, tree: str) -> Drift:
    moved = (tree != pin.tree) if tree else (commit != pin.commit)
    return Drift(pin.name, pin.declared(), pin.version, pin.commit, pin.tree, commit, tree,
                 "outdated" if moved else "current")


def _drifts(paths: Paths, ctx: ScopeContext, pins: list[LockedPackage],
            fresh: dict[str, Catalog], stack: contextlib.ExitStack) -> list[Drift]:
    """Each pin against its source now. A git pin whose repository moved is checked out at the
    new commit (in a temporary repository: nothing under $UZE_HOME; packages of one repository
    share one fetch, kept open on `stack`) and compared by tree: a commit that changed none of
    this package's bytes (another plugin of its marketplace, another package of a monorepo)
    leaves it current, its pin where it is (ADR 0074)."""
    out = []
    for pin in pins:
        commit, tree = _current(paths, ctx, pin, fresh, stack)
        if commit and pin.commit and commit != pin.commit:
            tree = _tree_now(paths, ctx, pin, fresh, stack, commit)
        out.append(_drift(pin, commit, tree))
    return out


def _catalogs(paths: Paths, pins: list[LockedPackage], *, save: bool) -> dict[str, Catalog]:
    """The catalogs of the registered marketplaces `pins` come from, read again, one read each."""
    markets = {pin.marketplace for pin in pins if pin.marketplace}
    if not markets:
        return {}
    from uze.commands.marketplace import read_again

    return read_again(paths, markets, save=save)


def outdated(paths: Paths, names: tuple[str, ...], options: Options, cwd: Path) -> DriftReport:
    """Each pinned package against its source now (a marketplace plugin: against its
    marketplace's catalog now). Writes nothing; raises when a source cannot be reached (never
    reports it up to date)."""
    ctx = open_scope(paths, options.scope, options.project, cwd)
    selected = _selected(declare.read_pair(ctx)[1], names)
    fresh = _catalogs(paths, selected, save=False)
    with contextlib.ExitStack() as stack:
        return DriftReport(tuple(_drifts(paths, ctx, selected, fresh, stack)))


def update(paths: Paths, names: tuple[str, ...], options: Options, cwd: Path) -> DriftReport:
    """Move each selected pin to what its ref points at now (a marketplace plugin: what its
    marketplace lists now; the catalog is read again and kept) and install it there: every
    package's consent question first, before anything is written (ADR 0064)."""
    from uze.commands.converge import Wanted, ask_first
    from uze.install.edits import kept_edits

    ctx = open_scope(paths, options.scope, options.project, cwd)
    pins, unusable, notes = opaque_harnesses(declare.read_pair(ctx)[1])
    selected = _selected(pins, names)
    fresh = _catalogs(paths, selected, save=not options.dry_run)
    with contextlib.ExitStack() as stack:
        report = _drifts(paths, ctx, selected, fresh, stack)
        moving = [(pins[d.name], d) for d in report
                  if d.state != "current" and not options.dry_run and d.name not in unusable]
        sources = {pin.name: Source("marketplace", pin.name, marketplace=pin.marketplace,
                                    skills=tuple(pin.skills))
                   if pin.marketplace else source_of(pin) for pin, _drift in moving}
        policy = load_policy(paths)
        for pin, _moved in moving:  # a moved pin is nobody's choice: not past `[pins] required`
            policy.check_source(_entry_source(paths, pin, fresh), _root(ctx))
        if not options.trust and moving:
            ask_first(paths, ctx, options, [
                Wanted(pin.name, sources[pin.name], drift.current_commit,
                       harness=",".join(pin.harnesses)) for pin, drift in moving],
                stack, _root(ctx))
        for pin, drift in moving:
            step = msgspec.structs.replace(options, harness=",".join(pin.harnesses),
                                           project=ctx.location.project, replace=True)
            with materialised(paths, sources[pin.name], ctx, _root(ctx),
                              commit=drift.current_commit) as (folder, found):
                outcome = install_folder(paths, folder, found, step, cwd)
            report[report.index(drift)] = msgspec.structs.replace(
                drift, state="updated", version=outcome.result.plan.package.version,
                current_tree=outcome.result.plan.tree,
                notes=tuple(kept_edits(ctx, outcome.result.actions)),
                projections=tuple(planned_rows(outcome.result)))
    return DriftReport(tuple(report), options.dry_run, notes)
