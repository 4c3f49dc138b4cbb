"""What a plan is made of: the projections and the artifacts that carry them, as the install,
upgrade and uninstall steps and the receipts read them. Pure values."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar, Literal

import msgspec

from uze.harnesses import Location
from uze.package import Package
from uze.state.receipts import Off
from uze.trust import Execution, trust_digest
from uze.vocabulary import ConfigFormat, Kind, Route

RANK = {"native": 0, "adapted": 1, "degraded": 2, "unsupported": 3}


class PlannedProjection(msgspec.Struct, frozen=True):
    """One (resource, harness) pair, its route and the target of the artifact that carries it.

    `level` is the author's override (`required`, `optional` or "").
    """

    kind: Kind
    resource: str
    harness: str
    route: Route
    reason: str
    target: str
    path: Path | None
    level: str = ""
    label: str = ""  # what a user types in that harness to invoke it ("" where nothing is typed)


class PlannedTree(msgspec.Struct, frozen=True):
    """A folder to write whole: relative path -> bytes."""

    type: ClassVar[Literal["tree"]] = "tree"  # its kind (uze.artifacts.registry)

    path: Path
    target: str
    files: Mapping[str, bytes]
    executables: frozenset[str]
    harnesses: tuple[str, ...]


class PlannedRegion(msgspec.Struct, frozen=True):
    """A region with id `region_id` in the text file at `path`."""

    type: ClassVar[Literal["region"]] = "region"  # its kind (uze.artifacts.registry)

    path: Path
    target: str
    region_id: str
    body: bytes
    harnesses: tuple[str, ...]


class PlannedFile(msgspec.Struct, frozen=True):
    """A whole file to write (an agent definition)."""

    type: ClassVar[Literal["file"]] = "file"  # its kind (uze.artifacts.registry)

    path: Path
    target: str
    data: bytes
    harnesses: tuple[str, ...]


class PlannedEntry(msgspec.Struct, frozen=True):
    """One entry at `key_path` in the config file at `path` (an MCP server, a skill's
    permission)."""

    type: ClassVar[Literal["entry"]] = "entry"  # its kind (uze.artifacts.registry)

    path: Path
    target: str
    fmt: ConfigFormat
    key_path: tuple[str, ...]
    value: object
    harnesses: tuple[str, ...]


class PlannedElement(msgspec.Struct, frozen=True):
    """One element appended to the array at `key_path` (a hook group, a skill's native switch,
    ADR 0098); `marker` is its command or the skill's name."""

    type: ClassVar[Literal["element"]] = "element"  # its kind (uze.artifacts.registry)

    path: Path
    target: str
    fmt: ConfigFormat
    key_path: tuple[str, ...]
    group: str
    value: object
    marker: str
    harnesses: tuple[str, ...]


PlannedArtifact = PlannedTree | PlannedRegion | PlannedFile | PlannedEntry | PlannedElement


class Plan(msgspec.Struct, frozen=True):
    """Everything an install would do, before anything is checked against the disk."""

    package: Package
    tree: str
    location: Location
    harnesses: tuple[str, ...]
    projections: tuple[PlannedProjection, ...]
    artifacts: tuple[PlannedArtifact, ...] = ()
    executions: tuple[Execution, ...] = ()
    # What is switched off (`uze disable`, uze.plan.switches): its projections are listed, its
    # artifacts are not planned (but a Claude Code plugin folder switched off natively).
    disabled: tuple[Off, ...] = ()

    @property
    def trust(self) -> str:
        """Digest of what the package will run and of every file of it ("" when nothing runs)."""
        return trust_digest(list(self.executions), self.tree)

    def unmet_requirements(self) -> list[PlannedProjection]:
        """Projections the author marked `required` whose route is not native."""
        return [p for p in self.projections if p.level == "required" and p.route != "native"]
