"""The state one planning pass accumulates, shared by the planner's steps."""

from __future__ import annotations

from pathlib import Path

import msgspec

from uze.capabilities import Capability
from uze.harnesses import Location
from uze.package import Package
from uze.plan.model import RANK, PlannedArtifact, PlannedProjection
from uze.plan.overrides import Overrides
from uze.vocabulary import Kind


class Builder(msgspec.Struct):
    package: Package
    loc: Location
    harnesses: tuple[str, ...]
    overrides: Overrides
    projections: list[PlannedProjection] = msgspec.field(default_factory=list)
    artifacts: list[PlannedArtifact] = msgspec.field(default_factory=list)

    def add(self, kind: Kind, resource: str, harness: str, cap: Capability,
            path: Path | None, feature: str = "base", suffix: str = "", label: str = "",
            part: str = "") -> None:
        """One projection carried by the artifact at `path` (None: not delivered). `part`: where
        in that folder the resource is (a skill of a plugin folder), which its target names, so
        its state is that of its own files (`uze.artifacts.parts`)."""
        level = self.overrides.level(harness, kind, feature) or ""
        reason = cap.reason
        if level == "optional" and cap.route != "native":
            reason = f"{reason} (optional for this package)"
        inner = f"/{part}" if part else ""
        target = f"{self.loc.display(path)}{inner}{suffix}" if path is not None else ""
        self.projections.append(
            PlannedProjection(kind, resource, harness, cap.route, reason, target, path, level,
                              label if path is not None else "")
        )


def worst(*caps: Capability) -> Capability:
    if caps[0].route == "unsupported":  # the base row decides alone when it is unsupported
        return caps[0]
    worst = max(caps, key=lambda cap: RANK[cap.route])
    reasons = "; ".join(cap.reason for cap in caps if cap.reason)
    return Capability(worst.route, reasons, worst.source)
