"""Preflight: what an install does to each artifact, decided against the previous receipt and
the disk before anything is written; every conflict is raised here."""

from __future__ import annotations

import msgspec

from uze import fs
from uze.artifacts import parts
from uze.artifacts import registry as kinds
from uze.artifacts.kind import Action
from uze.errors import Conflict, UzeError
from uze.install import adoption, edits
from uze.install.owners import owners as owned_by
from uze.plan.model import Plan, PlannedArtifact
from uze.state.context import ScopeContext
from uze.state.receipts import Artifact, Receipt


class Step(msgspec.Struct, frozen=True):
    """One artifact's action, what to write (None: nothing) and its previous record."""

    action: Action
    planned: PlannedArtifact | None
    old: Artifact | None
    trim: bool = False  # remove: only the files still as uze wrote them (uze.artifacts.parts)


def _check_free(ctx: ScopeContext, planned: PlannedArtifact, key: str,
                owners: dict[str, str]) -> None:
    """Raise unless `planned` can be created: no other package's, a place uze may write, and
    nothing in the way there (its kind's check)."""
    if key in owners:
        raise Conflict(key, f"already delivered by package {owners[key]}")
    why = fs.replace_problem(planned.path)
    if why == "is read-only":
        raise UzeError(f"{planned.target} is read-only; uze edits only files you can write",
                       hint="make it writable (chmod u+w) if uze may add to it, or leave out "
                            "that harness")
    if why is not None:
        raise UzeError(f"{planned.target} {why}; uze replaces only files you may write",
                       hint="ask its owner to make it yours (or writable for you), or leave out "
                            "that harness")
    try:
        kinds.of(planned).check_free(ctx, planned, key)
    except Conflict as exc:  # there and not uze's: name both digests (adoption.refused)
        raise adoption.refused(exc, ctx, planned) from None


def _step_for_owned(ctx: ScopeContext, planned: PlannedArtifact, old: Artifact,
                    force: bool) -> Step:
    kind = kinds.of(planned)
    key = kind.planned_key(planned)
    state = kinds.inspect_record(ctx, old)
    same = old.type == planned.type and (kind.unchanged(planned, old) or (
        state == "matched" and adoption.same_server(ctx, planned, old) == old))
    if state == "blocked":
        raise kinds.of(old).blocked(ctx, old)
    if state == "missing":
        kind.check_shape(planned)
        return Step(Action(key, "create", "missing; delivered again"), planned, old)
    if state == "matched":
        return Step(Action(key, "unchanged" if same else "replace"), planned, old)
    if force:
        return Step(Action(key, "replace", f"{state}; replaced (--force)",
                           files=edits.differing(ctx, old)), planned, old)
    if same or state != "drifted":
        return Step(Action(key, "kept", f"{state} since install; kept"), None, old)
    if old.type != planned.type:  # a folder where a file was, or back: nothing to merge into
        return Step(Action(key, "kept", "edited since install; kept (new version not applied; "
                                         "--force takes it)"), None, old)
    action = kind.edited(planned, key)
    return Step(action, planned if action.action == "merge" else None, old)


def _steps_for_dropped(ctx: ScopeContext, old: Artifact, force: bool) -> list[Step]:
    key = kinds.record_key(old)
    state = kinds.inspect_record(ctx, old)
    if state == "matched" or (force and state == "drifted"):
        return [Step(Action(key, "remove"), None, old)]
    kept = f"{state}; no longer in the package, left as it is"
    if state == "drifted" and parts.is_parted(old):
        left = parts.kept(ctx, old)
        return [Step(Action(key, "remove", parts.trim_detail(left)), None, old, trim=True),
                *(Step(Action(f"{key}/{rel}", "kept", kept), None, None) for rel in left)]
    return [Step(Action(key, "kept", kept), None, None)]


def _adoptable(ctx: ScopeContext, planned: PlannedArtifact, adopt: bool) -> Artifact | None:
    """The record of a target already there that the install takes over: byte for byte as
    planned (any install, ADR 0096), an MCP entry in the planned portable form (ADR 0108), or
    with `adopt` a committed edit of it too (ADR 0064)."""
    record = kinds.of(planned).adopt(ctx, planned)
    if record is None or adopt or kinds.inspect_record(ctx, record) == "matched":
        return record
    return adoption.same_server(ctx, planned, record)  # its server in portable form (ADR 0108)


def preflight(ctx: ScopeContext, plan: Plan, previous: Receipt | None, force: bool,
              adopt: bool = False) -> list[Step]:
    """Decide every artifact's action; raise on any conflict before anything is written.
    A target already there byte for byte as planned, and no other receipt's, is adopted
    (ADR 0096): recorded as delivered, nothing written. `adopt`: a committed edit of it is
    taken over too (`uze install` of a committed project, ADR 0024, 0064); any other target
    there and not uze's is refused, naming both digests.

    Every place the install writes is checked first: no link on the way in a project, nothing
    outside the scope's places (ADR 0020)."""
    for path in (ctx.receipt_file(plan.package.name), ctx.created_file,
                 *(planned.path for planned in plan.artifacts)):
        ctx.roots.check_write(path)
    owned = {kinds.record_key(r): r for r in (previous.artifacts if previous else [])}
    owners = owned_by(ctx, exclude=plan.package.name)
    steps: list[Step] = []
    for planned in plan.artifacts:
        kind = kinds.of(planned)
        key = kind.planned_key(planned)
        old = owned.pop(key, None)
        adopted = _adoptable(ctx, planned, adopt) if old is None and key not in owners else None
        if adopted is not None:
            action, write = edits.adopted_action(ctx, plan, adopted, key, force)
            steps.append(Step(action, planned if write else None, adopted))
        elif old is None:
            _check_free(ctx, planned, key, owners)
            steps.append(Step(Action(key, "create"), planned, None))
        else:
            steps.append(_step_for_owned(ctx, planned, old, force))
    steps += [step for old in owned.values() for step in _steps_for_dropped(ctx, old, force)]
    return steps
