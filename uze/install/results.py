"""What `install` returns, in a module light enough for the re-install shortcut to build it
without importing the planner (ADR 0016)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from uze.artifacts.kind import Action
    from uze.location import Location
    from uze.plan.model import Plan
    from uze.state.receipts import ProjectionRecord, Receipt


class RecordedPackage(msgspec.Struct, frozen=True):
    """The name and version a receipt records (the shortcut reads no package: no warnings)."""

    name: str
    version: str
    warnings: tuple[str, ...] = ()


class RecordedExecution(msgspec.Struct, frozen=True):
    """One accepted command line, as the receipt records its `describe()`."""

    line: str

    def describe(self) -> str:
        """The line, as `uze.trust.Execution.describe` wrote it."""
        return self.line


class RecordedPlan(msgspec.Struct, frozen=True):
    """The parts of a Plan that `install --json` and its table show, read back from a receipt
    that records exactly that plan (built by `build_receipt` from it)."""

    package: RecordedPackage
    tree: str
    location: Location
    harnesses: tuple[str, ...]
    projections: tuple[ProjectionRecord, ...]
    executions: tuple[RecordedExecution, ...]

    @classmethod
    def of(cls, receipt: Receipt, location: Location) -> RecordedPlan:
        """The plan `receipt` was written from, as far as the install result shows it."""
        return cls(RecordedPackage(receipt.name, receipt.version), receipt.tree, location,
                   tuple(receipt.harnesses), tuple(receipt.projections),
                   tuple(RecordedExecution(line) for line in receipt.executions))


class InstallResult(msgspec.Struct, frozen=True):
    """The plan, the action per artifact, and the receipt written (None on a dry run)."""

    plan: Plan | RecordedPlan
    actions: tuple[Action, ...]
    dry_run: bool
    receipt: Receipt | None
    writes: int
