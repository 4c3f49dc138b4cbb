"""Planning: package + location + harnesses -> projections and the artifacts that carry them.

Pure: reads no file and writes nothing. Harnesses that read one location share one artifact
(one skill folder serves every harness that reads its root).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from uze.capabilities import Capability, lookup
from uze.harnesses import REGISTRY, Location
from uze.harnesses.base import invoke_feature
from uze.package import Package, Skill
from uze.projections.frontmatter import edit_frontmatter

_RANK = {"native": 0, "adapted": 1, "degraded": 2, "unsupported": 3}


@dataclass(frozen=True, slots=True)
class PlannedProjection:
    """One (resource, harness) pair, its route and the target of the artifact that carries it."""

    kind: str
    resource: str
    harness: str
    route: str
    reason: str
    target: str
    path: Path | None


@dataclass(frozen=True, slots=True)
class PlannedTree:
    """A folder to write whole: relative path -> bytes."""

    path: Path
    target: str
    files: Mapping[str, bytes]
    executables: frozenset[str]
    harnesses: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PlannedRegion:
    """A region with id `region_id` in the text file at `path`."""

    path: Path
    target: str
    region_id: str
    body: bytes
    harnesses: tuple[str, ...]


PlannedArtifact = PlannedTree | PlannedRegion


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything an install would do, before anything is checked against the disk."""

    package: Package
    tree: str
    location: Location
    harnesses: tuple[str, ...]
    projections: tuple[PlannedProjection, ...]
    artifacts: tuple[PlannedArtifact, ...] = field(default=())


def _worst(*caps: Capability) -> Capability:
    if caps[0].route == "unsupported":  # the base row decides alone when it is unsupported
        return caps[0]
    worst = max(caps, key=lambda cap: _RANK[cap.route])
    reasons = "; ".join(cap.reason for cap in caps if cap.reason)
    return Capability(worst.route, reasons, worst.source)


def skill_folder_name(package: Package, skill: Skill) -> str:
    """Package-qualified, stable folder name: `<package>-<skill>`."""
    return f"{package.name}-{skill.name}"


def _skill_files(package: Package, skill: Skill, harnesses: Iterable[str]) -> dict[str, bytes]:
    files = {rel[len(skill.folder) + 1 :]: package.files[rel].data for rel in skill.files}
    folder = skill_folder_name(package, skill)
    keys: dict[str, object] = {}
    for harness in harnesses:
        dialect = REGISTRY[harness].skill_dialect(skill.invoke)
        keys.update(dialect.frontmatter)
        for rel, render in dialect.extra_files.items():
            files[rel] = render(files.get(rel))
    if "name" in skill.frontmatter and skill.frontmatter["name"] != folder:
        keys = {"name": folder, **keys}
    if keys or skill.has_invoke_key:
        files["SKILL.md"] = edit_frontmatter(files["SKILL.md"], keys, drop=["invoke"])
    return files


def _plan_skill(
    package: Package, skill: Skill, loc: Location, harnesses: tuple[str, ...]
) -> tuple[list[PlannedProjection], list[PlannedTree]]:
    projections: list[PlannedProjection] = []
    roots: dict[Path, list[str]] = {}
    for harness in harnesses:
        cap = _worst(lookup(harness, "skill"), lookup(harness, "skill", invoke_feature(skill.invoke)))
        path = None
        if cap.route != "unsupported":
            path = REGISTRY[harness].skill_root(loc) / skill_folder_name(package, skill)
            roots.setdefault(path, []).append(harness)
        target = loc.display(path) if path else ""
        projections.append(
            PlannedProjection("skill", skill.name, harness, cap.route, cap.reason, target, path)
        )
    trees = [_tree(package, skill, loc, path, tuple(users)) for path, users in roots.items()]
    return projections, trees


def _tree(
    package: Package, skill: Skill, loc: Location, path: Path, users: tuple[str, ...]
) -> PlannedTree:
    files = _skill_files(package, skill, users)
    executables = frozenset(
        rel[len(skill.folder) + 1 :] for rel in skill.files if package.files[rel].executable
    )
    return PlannedTree(path, loc.display(path), files, executables, users)


def _plan_instructions(
    package: Package, loc: Location, harnesses: tuple[str, ...]
) -> tuple[list[PlannedProjection], list[PlannedRegion]]:
    assert package.instructions is not None
    body = package.files[package.instructions].data
    projections: list[PlannedProjection] = []
    files: dict[Path, list[str]] = {}
    for harness in harnesses:
        cap = lookup(harness, "instructions")
        path = None
        if cap.route != "unsupported":
            path = REGISTRY[harness].instructions_file(loc)
            files.setdefault(path, []).append(harness)
        target = f"{loc.display(path)}#{package.name}" if path else ""
        projections.append(
            PlannedProjection("instructions", "AGENTS.md", harness, cap.route, cap.reason, target, path)
        )
    regions = [
        PlannedRegion(path, loc.display(path), package.name, body, tuple(users))
        for path, users in files.items()
    ]
    return projections, regions


def _unsupported_kinds(package: Package, harnesses: tuple[str, ...]) -> list[PlannedProjection]:
    resources = [
        *(("agent", agent.name) for agent in package.agents),
        *(("mcp", server.name) for server in package.mcp_servers),
        *(("hook", group_id) for group_id in _hook_ids(package)),
    ]
    out = []
    for kind, name in resources:
        for harness in harnesses:
            cap = lookup(harness, kind)
            out.append(PlannedProjection(kind, name, harness, cap.route, cap.reason, "", None))
    return out


def _hook_ids(package: Package) -> list[str]:
    if package.hooks is None:
        return []
    ids = []
    for event, groups in package.hooks.hooks.items():
        for index, group in enumerate(groups):
            ids.append(group.id or f"{event}-{index}")
    return ids


def plan_install(
    package: Package, tree: str, loc: Location, harnesses: tuple[str, ...]
) -> Plan:
    """Every projection and artifact for `package` in `loc`, for `harnesses`. Pure."""
    projections: list[PlannedProjection] = []
    artifacts: list[PlannedArtifact] = []
    if package.instructions is not None:
        more, regions = _plan_instructions(package, loc, harnesses)
        projections += more
        artifacts += regions
    for skill in package.skills:
        more, trees = _plan_skill(package, skill, loc, harnesses)
        projections += more
        artifacts += trees
    projections += _unsupported_kinds(package, harnesses)
    return Plan(package, tree, loc, harnesses, tuple(projections), tuple(artifacts))
