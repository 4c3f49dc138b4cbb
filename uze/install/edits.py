"""Committed edits: a delivered file a teammate edited and committed, met by `uze install` in a
clone where this user has no receipt yet (ADR 0064).

The file is kept and adopted into the receipt as the package's, recorded with the digest of
the locked bytes, so it reads as drifted (status shows it; uninstall keeps it; an upgrade
writes the new version beside it as `.uze-new`). `--force` puts the locked bytes back. In a
package that runs something, this user's consent covers the package's own bytes (ADR 0021),
never an edit somebody else committed: such a file is named as not covered, and the receipt
lists it (`Receipt.unconsented`) until the accepted bytes are back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from uze.artifacts import registry as kinds
from uze.artifacts.beside import NEW_SUFFIX, waiting
from uze.artifacts.kind import Action
from uze.install.adoption import ADOPTED
from uze.projections.tree import list_files

if TYPE_CHECKING:
    from uze.plan.model import Plan
    from uze.state.context import ScopeContext
    from uze.state.receipts import Artifact, Receipt

COMMITTED_KEPT: Final = ("a committed edit (not as the locked package has it); kept and adopted "
                         "as edited (`uze install --force` puts the locked bytes back)")
UNCONSENTED: Final = ("a committed edit of a package that runs something: NOT covered by your "
                      "consent; kept (`uze install --force` puts back the bytes you accepted)")
COMMITTED_RESTORED: Final = "a committed edit; overwritten with the locked bytes (--force)"


def adopted_action(ctx: ScopeContext, plan: Plan, adopted: Artifact, key: str,
                   force: bool) -> tuple[Action, bool]:
    """What install does with a target already there and no receipt here (`adopted`: the
    record uze would write), and whether it writes the planned bytes: as planned, taken over;
    a committed edit, kept (with `force`: replaced)."""
    if kinds.inspect_record(ctx, adopted) == "matched":
        return Action(key, "unchanged", ADOPTED, adopted=True), True
    files = differing(ctx, adopted)
    if force:
        return Action(key, "replace", COMMITTED_RESTORED, files=files), True
    return Action(key, "kept", UNCONSENTED if plan.executions else COMMITTED_KEPT,
                  files=files), False


def differing(ctx: ScopeContext, record: Artifact) -> tuple[str, ...]:
    """For a folder not as `record` has it: each file that differs (`edited_files`), read
    before anything is written, so that a report can name the files an install kept or put
    back; empty for any other artifact (its target names it)."""
    return tuple(edited_files(ctx, record)[0]) if record.type == "tree" else ()


def unconsented_keys(plan: Plan, actions: Sequence[Action], previous: Receipt | None
                     ) -> list[str]:
    """The keys of the artifacts an install leaves as a committed edit nobody here accepted:
    those adopted now, and those the previous receipt named that stay edited. Empty when the
    package runs nothing (consent covers nothing then)."""
    if not plan.executions:
        return []
    kept = {action.target for action in actions if action.action in ("kept", "merge")}
    carried = set(previous.unconsented) & kept if previous is not None else set()
    return sorted(carried | {a.target for a in actions if a.detail == UNCONSENTED})


def edit_notes(ctx: ScopeContext, actions: Sequence[Action],
               records: Sequence[Artifact] = ()) -> list[str]:
    """One line per artifact an install kept as edited or put back with --force, for the
    report of a converge: a folder's line names each file that differed (`Action.files`, or
    read now from the receipt's record in `records`), not the folder; then each new version
    waiting beside an edit."""
    folders = {kinds.record_key(r): r for r in records if r.type == "tree"}
    out = []
    for a in actions:
        if a.action in ("kept", "merge") or (a.action == "replace" and "--force" in a.detail):
            record = folders.get(a.target) if a.action != "replace" else None
            changed, beside = (list(a.files), []) if a.files or record is None \
                else edited_files(ctx, record)
            out += [f"{file.removesuffix(' (edited)')}: {a.detail}" for file in changed] \
                or [f"{a.target}: {a.detail}"]
            out += [f"{new}: a new version waiting" for new in beside]
    return out


def edited_files(ctx: ScopeContext, record: Artifact) -> tuple[list[str], list[str]]:
    """For an artifact not as uze wrote it: what differs, one line per file (`path (edited)`,
    `(gone)`, `(added)`; a config entry or region by its key), and each new version waiting
    beside an edit (`<file>.uze-new`), as targets."""
    if record.type == "region":
        return [f"{record.target} (region {record.region})"], []
    if record.type == "entry" or record.type == "element":
        return [f"{record.target} ({'.'.join(record.key_path)})"], []
    where = ctx.location.resolve(record.target)
    if record.type == "file":
        return [record.target], [ctx.location.display(p) for p in waiting(where, folder=False)]
    live = list_files(where) if where.is_dir() and not where.is_symlink() else {}
    changed, beside = [], []
    for rel in sorted(live.keys() | record.files.keys()):
        target = f"{record.target}/{rel}"
        if NEW_SUFFIX in rel.rpartition("/")[2] and rel not in record.files:
            beside.append(target)
        elif rel not in live or rel not in record.files:
            changed.append(f"{target} ({'gone' if rel not in live else 'added'})")
        elif live[rel].is_symlink() or ctx.hashes.digest(
                live[rel].path, live[rel].stat(follow_symlinks=False)) != record.files[rel]:
            changed.append(f"{target} (edited)")
    return changed, beside


def kept_edits(ctx: ScopeContext, actions: Sequence[Action]) -> list[str]:
    """For an upgrade's report: each edit it kept, and where the new version waits (the
    `.uze-new` files beside a file, or in a folder, that an update merged)."""
    out = []
    for action in actions:
        if action.action == "kept":
            out.append(f"{action.target}: {action.detail}")
        elif action.action == "merge":
            path = ctx.location.resolve(action.target)
            new = [ctx.location.display(p) for p in waiting(path, folder=path.is_dir())]
            out.append(f"{action.target}: your edit kept; the new version is in "
                       + (", ".join(new) if new else "the package (nothing beside it changed)"))
    return out
