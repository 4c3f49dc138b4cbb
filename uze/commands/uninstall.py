"""`uze uninstall NAME`: remove what uze owns and still matches; keep and report every edit."""

from __future__ import annotations

from pathlib import Path
from typing import Final, Literal

import msgspec

from uze import progress
from uze.artifacts import parts
from uze.artifacts import registry as kinds
from uze.artifacts.kind import Action
from uze.errors import NotInstalled
from uze.paths import Paths
from uze.state.context import (
    Created,
    ScopeContext,
    drop_ignore,
    load_created,
    locked,
    open_scope,
    register_project,
    registered_projects,
    save_created,
)
from uze.state.receipts import Receipt
from uze.transaction import Transaction
from uze.vocabulary import Scope

Op = Literal["remove", "trim", ""]  # what uninstall does to an artifact ("": leaves it)


class UninstallResult(msgspec.Struct, frozen=True):
    """What was removed and what was kept (with why), per artifact."""

    name: str
    actions: tuple[Action, ...]
    dry_run: bool

    @property
    def kept(self) -> tuple[Action, ...]:
        """The artifacts left in place because the user changed them."""
        return tuple(a for a in self.actions if a.action == "kept")


def _decide(ctx: ScopeContext, receipt: Receipt, force: bool) -> list[tuple[Action, Op]]:
    """One decision per artifact, and after a plugin folder the user edited, one `kept` line
    per edited file (nothing to do for it: the folder's trim keeps it)."""
    decisions: list[tuple[Action, Op]] = []
    for record in receipt.artifacts:
        key = kinds.record_key(record)
        state = kinds.inspect_record(ctx, record)
        if state == "matched" or (force and state == "drifted"):
            detail = "" if state == "matched" else "changed since install; removed (--force)"
            decisions.append((Action(key, "remove", detail), "remove"))
        elif state == "missing":
            decisions.append((Action(key, "gone", "already missing"), ""))
        elif state == "drifted" and parts.is_parted(record):
            left = parts.kept(ctx, record)
            decisions.append((Action(key, "remove", parts.trim_detail(left)), "trim"))
            decisions += [(Action(f"{key}/{rel}", "kept", _why_kept(state) if why == parts.EDITED
                                  else "yours, not uze's; kept"), "")
                          for rel, why in left.items()]
        else:
            decisions.append((Action(key, "kept", _why_kept(state)), ""))
    return decisions


WAITING: Final = "the new version an update left beside your edit; kept (it is yours)"


def _waiting(ctx: ScopeContext, receipt: Receipt,
             decisions: list[tuple[Action, Op]]) -> tuple[Action, ...]:
    """The `.uze-new` files an upgrade left beside the edits of the package's files, and in
    its folders kept whole: uninstall does not remove them, and says so (a trimmed plugin
    folder lists what it keeps itself)."""
    from uze.artifacts.beside import waiting

    ops = {action.target: op for action, op in decisions}
    return tuple(Action(ctx.location.display(new), "kept", WAITING)
                 for r in receipt.artifacts
                 if r.type == "file" or (r.type == "tree" and ops.get(kinds.record_key(r)) == "")
                 for new in waiting(ctx.location.resolve(r.target), folder=r.type == "tree"))


def _why_kept(state: str) -> str:
    if state == "drifted":
        return "changed since install; kept (uze uninstall --force removes it)"
    if state == "blocked":
        return "its uze markers are broken; kept (repair the markers by hand)"
    return "replaced by something uze did not write; kept"


def _prune(tx: Transaction, ctx: ScopeContext, created: Created, last: bool) -> None:
    """Remove folders uze created once they are empty; forget the record when none remain."""
    if last:  # the record itself lives in .uze/: it must go before .uze/ can
        tx.remove(ctx.created_file)
        drop_ignore(tx, ctx, created)
    deepest_first = sorted(created.dirs, key=lambda d: len(Path(d).parts), reverse=True)
    created.dirs = {
        rel for rel in deepest_first
        if not tx.remove_dir(ctx.location.resolve(rel)) and ctx.location.resolve(rel).exists()
    }
    if not last:
        save_created(tx, ctx, created)
    # With no receipt left, what user files keep alive belongs to the user, as the files do.


def _apply(ctx: ScopeContext, receipt: Receipt, decisions: list[tuple[Action, Op]]) -> None:
    from uze.commands.declare import forget

    created = load_created(ctx)
    with Transaction(ctx.journal_root, ctx.roots.check_write) as tx:
        records = {kinds.record_key(r): r for r in receipt.artifacts}
        doomed = [records[a.target] for a, op in decisions if op == "remove"]
        trimmed = [records[a.target] for a, op in decisions if op == "trim"]
        progress.stage(f"removing {receipt.name}", total=len(doomed) + len(trimmed))
        for record in kinds.removal_order(doomed):
            kinds.remove_record(tx, ctx, record, created)
            progress.advance()
        for record in trimmed:
            assert parts.is_parted(record)  # decided so by _decide
            parts.trim(tx, ctx, record)
            progress.advance()
        tx.remove(ctx.receipt_file(receipt.name))
        forget(tx, ctx, created, receipt.name)  # its declaration and pin, in this transaction
        last = not any(name != receipt.name for name in ctx.receipt_names())
        _prune(tx, ctx, created, last)
        if ctx.scope == "project" and last:
            register_project(tx, ctx.paths, ctx.location.project, present=False)
        progress.stage(f"making {tx.writes} changes durable (sync)")


def uninstall(
    paths: Paths,
    name: str,
    *,
    scope: Scope = "project",
    project: Path | None = None,
    dry_run: bool = False,
    force: bool = False,
    cwd: Path,
) -> UninstallResult:
    """Uninstall package `name` from one scope. Raises NotInstalled when it has no receipt."""
    ctx = open_scope(paths, scope, project, cwd)
    if ctx.receipt(name) is None:
        raise NotInstalled(name, scope, ctx.location.display(ctx.receipts_dir),
                           ctx.receipt_names())
    if dry_run:
        receipt = ctx.receipt(name)
        assert receipt is not None
        decisions = _decide(ctx, receipt, force)
        return UninstallResult(name, tuple(a for a, _ in decisions)
                               + _waiting(ctx, receipt, decisions), True)
    # projects.json (the GC roots) changes here, and the store lock guards it (gc, install).
    with locked(ctx, store=True):
        registered_projects(paths)  # a damaged registry is named before anything is written
        receipt = ctx.receipt(name)
        if receipt is None:
            raise NotInstalled(name, scope, ctx.location.display(ctx.receipts_dir))
        decisions = _decide(ctx, receipt, force)
        waiting = _waiting(ctx, receipt, decisions)
        _apply(ctx, receipt, decisions)
        ctx.forget_stamp(name)
        ctx.forget_consent(name)
    return UninstallResult(name, tuple(a for a, _ in decisions) + waiting, False)
