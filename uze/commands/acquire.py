"""`uze install SOURCE` for every kind of source: resolve it to a folder (fetching a git
source into its cached mirror), install that folder, and declare and pin the package in the
scope's uze.toml and uze.lock in the same transaction (ADRs 0023, 0024)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from uze import memo
from uze.commands import declare
from uze.commands.declared import keep_unknown
from uze.paths import Paths
from uze.policy import load_policy
from uze.sources.catalog import CATALOGS
from uze.sources.spec import Source, parse_source
from uze.state.context import (
    Created,
    Extra,
    ScopeContext,
    load_created,
    locked,
    open_scope,
    save_created,
)
from uze.state.receipts import Off
from uze.transaction import Transaction
from uze.vocabulary import Scope

if TYPE_CHECKING:
    from uze.install.results import InstallResult
    from uze.state.receipts import Receipt


class Options(msgspec.Struct, frozen=True, kw_only=True):
    """The install options that pass through to the folder install."""

    scope: Scope = "project"
    project: Path | None = None
    harness: str | None = None
    dry_run: bool = False
    force: bool = False
    trust: bool = False
    replace: bool = False
    adopt: bool = False  # take over targets already there as planned (converge)
    accepted: tuple[str, ...] = ()  # consent digests the user said yes to at the question
    settings: tuple[tuple[str, str], ...] = ()  # --set KEY=VALUE, in order (adr/0078)
    ask: tuple[str, ...] | None = None  # at a terminal: settings asked already (install.prepare)
    off: tuple[Off, ...] | None = None  # what is switched off (ADR 0087); None: as installed


class Outcome(msgspec.Struct, frozen=True):
    """An install's result plus the notes for the user (a downgrade)."""

    result: InstallResult
    notes: tuple[str, ...] = ()


def parse(paths: Paths, text: str, cwd: Path, ref: str = "", subdirectory: str = "",
          plugin: str = "", skills: tuple[str, ...] = ()) -> Source:
    """Parse SOURCE with `UZE_GITHUB_URL` as the shorthand's host (`plugin` and `skills`: the
    `--plugin` and `--skill` options)."""
    return parse_source(text, cwd=cwd, ref=ref, subdirectory=subdirectory,
                        github=paths.env.get("UZE_GITHUB_URL", ""), plugin=plugin,
                        skills=skills)


@contextlib.contextmanager
def materialised(paths: Paths, source: Source, ctx: ScopeContext, cwd: Path, *,
                 commit: str = "", cache: bool = True, pinned: Source | None = None,
                 typed: bool = False) -> Iterator[tuple[Path, declare.Pin]]:
    """The package folder `source` names and its pin (a git source: checked out at `commit`,
    default what its ref points at now, in a temporary folder that goes afterwards). For a
    marketplace plugin, `pinned` is the entry's own source as the lock recorded it. A folder
    not `typed` on the command line (read from uze.toml or uze.lock) must be inside the
    project (`declare.check_inside`). The organisation policy (uze.policy) is asked first: a
    refused source is never fetched."""
    _obey_policy(paths, source, cwd, commit, pinned)
    if source.kind == "marketplace":
        from uze.commands.marketplace import entry_checkout

        with entry_checkout(paths, source, ctx, cwd, commit=commit, cache=cache,
                            pinned=pinned) as found:
            yield found
        return
    if source.kind == "folder":
        folder, pin = declare.folder_pin(source, ctx, cwd)
        if not typed:
            declare.check_inside(ctx, folder, source.location)
        with _chosen(paths, source, folder, pin, commit, cache, cwd) as found:
            yield found
        return
    from uze.sources.mirrors import fetched

    with fetched(paths, source, commit, cache=cache) as (folder, resolved), \
            _chosen(paths, source, folder, declare.git_pin(source, resolved), commit, cache,
                    cwd) as found:
        yield found


@contextlib.contextmanager
def _chosen(paths: Paths, source: Source, folder: Path, pin: declare.Pin, commit: str,
            cache: bool, cwd: Path) -> Iterator[tuple[Path, declare.Pin]]:
    """`folder` and `pin` as the source chooses (`uze.commands.published`): asked only of a
    source that chooses a plugin or skills, or whose root holds a catalog, so a package's
    re-install loads none of it."""
    if not (source.plugin or source.skills or any(_is_file(folder / rel) for rel in CATALOGS)):
        yield folder, pin
        return
    from uze.commands.published import chosen

    with chosen(paths, source, folder, pin, commit=commit, cache=cache, cwd=cwd) as found:
        yield found


def _is_file(path: Path) -> bool:
    """Whether `path` is a file; a path the system cannot look up (a name too long) is not:
    the package reader names the folder in its own refusal."""
    try:
        return path.is_file()
    except OSError:
        return False


def _obey_policy(paths: Paths, source: Source, cwd: Path, commit: str,
                 pinned: Source | None) -> None:
    """Refuse what `[sources] allow` and `[pins] required` do not let through: the source, and
    for a marketplace plugin the marketplace's own source and the entry's pin."""
    policy = load_policy(paths)
    policy.check_source(source, cwd, locked=bool(commit))
    if source.kind != "marketplace" or (policy.allow is None and not policy.pins):
        return
    from uze.commands.marketplace import entry_source, registered_source

    market = registered_source(paths, source.marketplace)
    if market is not None:
        policy.check_source(market, cwd, locked=True)
    own = pinned or entry_source(paths, source)
    policy.check_source(own, cwd, locked=bool(commit))


def install_folder(paths: Paths, folder: Path, pin: declare.Pin, options: Options, cwd: Path
                   ) -> Outcome:
    """Install the package at `folder` and record `pin` for it (nothing on a dry run)."""
    from uze.commands.install_verb import install_or_unchanged

    notes: list[str] = []
    recorded: list[bool] = []
    if not options.replace:
        _check_origin(paths, folder, pin, options, cwd)

    def extra(tx: Transaction, ctx: ScopeContext, created: Created, receipt: Receipt) -> None:
        old = declare.read_pair(ctx)[1].get(receipt.name)
        entry = keep_unknown(old, declare.locked(receipt, pin))
        notes.extend(declare.provenance(old, entry, options.replace))
        declare.record(tx, ctx, created, entry, pin.declared)
        recorded.append(True)

    result = install_or_unchanged(
        paths, folder, scope=options.scope, project=options.project, harness=options.harness,
        dry_run=options.dry_run, force=options.force, trust=options.trust, cwd=cwd, extra=extra,
        adopt=options.adopt, accepted=options.accepted, settings=dict(options.settings),
        ask=options.ask,
        off=options.off,
    )
    if not options.dry_run and not recorded and result.receipt is not None:
        _record_unchanged(paths, result.receipt, options, cwd, pin, extra)
    memo.forget()  # the next package of a converge or update must not find this one's bytes
    return Outcome(result, tuple(notes))


def _check_origin(paths: Paths, folder: Path, pin: declare.Pin, options: Options, cwd: Path
                  ) -> None:
    """Refuse a package whose name is pinned from another source, before anything is written
    (`record` checks again inside the transaction, against a concurrent command)."""
    ctx = open_scope(paths, options.scope, options.project, cwd)
    pins = declare.read_pair(ctx)[1]
    if not any(declare.moved_origin(p, msgspec.structs.replace(
            p, source=pin.source, subdirectory=pin.subdirectory, marketplace=pin.marketplace,
            plugin=pin.plugin)) for p in pins.values()):
        return
    from uze.package import read_package

    name = read_package(folder).name
    if name in pins:
        probe = msgspec.structs.replace(pins[name], source=pin.source,
                                        subdirectory=pin.subdirectory, marketplace=pin.marketplace,
                                        ref=pin.ref, plugin=pin.plugin, skills=list(pin.skills))
        declare.provenance(pins[name], probe, replace=False)


def _record_unchanged(paths: Paths, receipt: Receipt, options: Options, cwd: Path,
                      pin: declare.Pin, extra: Extra) -> None:
    """A re-install the shortcut answered: write the pair only if it does not say this yet."""

    ctx = open_scope(paths, options.scope, options.project, cwd)
    declared, pins = declare.read_pair(ctx)
    old = pins.get(receipt.name)
    same = old == keep_unknown(old, declare.locked(receipt, pin))
    if declared.get(receipt.name) == pin.declared and same:
        return  # the pair says this already: nothing is written
    with locked(ctx, store=False):
        created = load_created(ctx)
        with Transaction(ctx.journal_root, ctx.roots.check_write) as tx:
            extra(tx, ctx, created, receipt)
            save_created(tx, ctx, created)


def install_source(paths: Paths, text: str, options: Options, cwd: Path, *, ref: str = "",
                   subdirectory: str = "", plugin: str = "", skills: tuple[str, ...] = ()
                   ) -> Outcome:
    """`uze install SOURCE`. Writes nothing on error or dry run (a git source's mirror is a
    cache: a dry run that needs one fetches into a temporary one)."""
    source = parse(paths, text, cwd, ref, subdirectory, plugin, skills)
    ctx = open_scope(paths, options.scope, options.project, cwd)
    with materialised(paths, source, ctx, cwd, cache=not options.dry_run,
                      typed=True) as (folder, pin):
        return install_folder(paths, folder, pin, options, cwd)
