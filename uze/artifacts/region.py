"""The region kind (instructions): one package's marked region in a shared text file such as
AGENTS.md or CLAUDE.md; the bytes outside it are never touched."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from uze.artifacts.kind import ADOPTABLE, Action
from uze.errors import Blocked, Conflict, ForeignFile, MarkersBroken
from uze.projections import region, region_file
from uze.state.receipts import RegionArtifact
from uze.vocabulary import LiveState

if TYPE_CHECKING:
    from uze.plan.model import PlannedRegion
    from uze.state.context import Created, ScopeContext
    from uze.transaction import Transaction


def _key(target: str, region_id: str) -> str:
    return f"{target}#{region_id}"


class RegionKind:
    """`Kind[PlannedRegion, RegionArtifact]`: a region between uze's markers."""

    def planned_key(self, planned: PlannedRegion) -> str:
        return _key(planned.target, planned.region_id)

    def record_key(self, record: RegionArtifact) -> str:
        return _key(record.target, record.region)

    def seq(self, record: RegionArtifact) -> int | None:
        return None

    def inspect(self, ctx: ScopeContext, record: RegionArtifact) -> LiveState:
        return region_file.inspect(ctx.location.resolve(record.target), record.region,
                                   record.digest)

    def check_free(self, ctx: ScopeContext, planned: PlannedRegion, key: str) -> None:
        path = planned.path
        if path.is_symlink() or (path.exists() and not path.is_file()):
            raise ForeignFile(planned.target)
        if planned.region_id in region_file.read_regions(path, planned.target):
            raise Conflict(key, "a uze region with this id exists but no receipt owns it",
                           hint="remove that region by hand (both marker lines), then run again")

    def check_shape(self, planned: PlannedRegion) -> None:
        return

    def unchanged(self, planned: PlannedRegion, record: RegionArtifact) -> bool:
        return region_file.body_digest(planned.body) == record.digest

    def blocked(self, ctx: ScopeContext, record: RegionArtifact) -> Blocked:
        return MarkersBroken(record.target, "its uze markers are broken")

    def edited(self, planned: PlannedRegion, key: str) -> Action:
        return Action(key, "kept", "edited since install; kept (new version not applied; "
                                   "--force takes it)", planned.body.decode("utf-8", "replace"))

    def adopt(self, ctx: ScopeContext, planned: PlannedRegion) -> RegionArtifact | None:
        record = RegionArtifact(target=planned.target, region=planned.region_id,
                                digest=region_file.body_digest(planned.body),
                                lead=_adopted_lead(planned), harnesses=list(planned.harnesses))
        return record if self.inspect(ctx, record) in ADOPTABLE else None

    def write(self, tx: Transaction, ctx: ScopeContext, planned: PlannedRegion,
              old: RegionArtifact | None, created: Created) -> RegionArtifact:
        regions = region_file.read_regions(planned.path, planned.target)
        if old is not None and planned.region_id in regions:
            region_file.replace(tx, planned.path, planned.region_id, planned.body)
            lead = old.lead
        else:
            lead, made_file = region_file.add(tx, planned.path, planned.region_id, planned.body)
            if made_file:
                created.files.add(planned.target)
        return RegionArtifact(target=planned.target, region=planned.region_id,
                              digest=region_file.body_digest(planned.body), lead=lead,
                              harnesses=list(planned.harnesses))

    def merge(self, tx: Transaction, planned: PlannedRegion,
              old: RegionArtifact) -> RegionArtifact:
        """Nothing merges into an edited region: it stays as the user left it (`edited` says
        `kept`, so install never calls this)."""
        return old

    def remove(self, tx: Transaction, ctx: ScopeContext, record: RegionArtifact,
               created: Created) -> None:
        if region_file.remove(tx, ctx.location.resolve(record.target), record.region,
                              record.lead, record.target in created.files):
            created.files.discard(record.target)


def _adopted_lead(planned: PlannedRegion) -> str:
    """The separator uze would have put before an existing region (what uninstall takes out
    with it), read back from the bytes before it; "" when none fits. Several can fit: the one
    leaving the file ending in exactly one newline is taken, as most files do."""
    try:
        text = planned.path.read_bytes()
        span = region.scan_regions(text).get(planned.region_id)
    except (OSError, region.BrokenMarkers):
        return ""
    if span is None:
        return ""
    before = text[:span.start]
    eol = region.detect_eol(text)
    for lead in (eol, eol + eol, b""):  # ambiguous bytes: a file ending in one newline wins
        base = before[:len(before) - len(lead)]
        if before.endswith(lead) and region.insert_region(base, planned.region_id,
                                                          planned.body)[1] == lead:
            return lead.decode()
    return ""


KIND: Final = RegionKind()
