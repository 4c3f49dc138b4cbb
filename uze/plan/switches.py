"""A plan with some of the package switched off (`uze disable`, ADR 0087). Pure.

A switch (`uze.state.receipts.Off`) names one resource or the whole package, in one harness or
in all of them. Switched off in a harness that loads the package as a Claude Code plugin
(`Harness.claude_plugins` with a `switch` file), the whole package keeps its plugin folder and
gets `enabledPlugins."<package>@skills-dir": false` in that settings file: the harness's own
switch (claude 2.1.197 lists the plugin `disabled`, both scopes). One skill switched off in one
harness whose own skill switch the real binary honours in that scope (`Skills.off`: Gemini CLI's
`skills.disabled`, Codex's user `[[skills.config]]`, ADR 0098) keeps its folder and gets that
switch, an element uze owns, unless the same skill is also switched off by removal in another
harness (then the folder goes for all of them). Everything else that is off
is left out of the plan, so the install that applies it removes what uze owns there (an edited
artifact is kept and reported, as by uninstall) and the install that switches it on again
writes it back from the same stored package, byte for byte.

The plan's projections keep every projection that is off (`Plan.disabled` says which), so
status shows each as `disabled` where it would be delivered.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import msgspec

from uze.errors import UzeError
from uze.harnesses import REGISTRY, Location
from uze.package import Package
from uze.plan import claude_plugin, labels
from uze.plan.in_place import NOTHING, InPlace
from uze.plan.model import (
    Plan,
    PlannedArtifact,
    PlannedElement,
    PlannedEntry,
    PlannedProjection,
    PlannedTree,
)
from uze.plan.planner import plan_install
from uze.state.receipts import Off

PLUGIN_SUFFIX = "@skills-dir"  # how Claude Code names a plugin of its skill root (ADR 0041)


def resources(package: Package) -> dict[str, str]:
    """Every resource a switch may name: name -> kind (the first kind that uses the name)."""
    found: dict[str, str] = {}
    for kind, names in (("skill", (s.name for s in package.skills)),
                        ("command", (c.name for c in package.commands)),
                        ("agent", (a.name for a in package.agents)),
                        ("mcp", (m.name for m in package.mcp_servers))):
        for name in names:
            found.setdefault(name, kind)
    return found


def _without(package: Package, gone: set[str]) -> Package:
    """The package minus the resources named `gone` (a skill's files too)."""
    if not gone:
        return package
    skills = tuple(s for s in package.skills if s.name not in gone)
    dropped = {f for s in package.skills if s.name in gone for f in s.files}
    dropped |= {c.relpath for c in package.commands if c.name in gone}
    dropped |= {a.relpath for a in package.agents if a.name in gone}
    return msgspec.structs.replace(
        package, skills=skills,
        commands=tuple(c for c in package.commands if c.name not in gone),
        agents=tuple(a for a in package.agents if a.name not in gone),
        mcp_servers=tuple(m for m in package.mcp_servers if m.name not in gone),
        files={rel: f for rel, f in package.files.items() if rel not in dropped})


def _switched(loc: Location, package: Package, harness: str) -> PlannedEntry | None:
    """`enabledPlugins."<package>@skills-dir": false` in `harness`'s settings, or None for a
    harness with no such switch."""
    plugins = REGISTRY[harness].claude_plugins
    if plugins is None or plugins.switch is None:
        return None
    path = plugins.switch(loc)
    return PlannedEntry(path, loc.display(path), "json",
                        ("enabledPlugins", f"{package.name}{PLUGIN_SUFFIX}"), False,
                        (harness,))


def _native(package: Package, loc: Location, harnesses: tuple[str, ...],
            off: tuple[Off, ...]) -> tuple[Off, ...]:
    """The switches a harness's own skill switch carries in this scope (see the module)."""
    kinds = resources(package)

    def own(o: Off) -> bool:
        switch = REGISTRY[o.harness].skills.off if o.harness in harnesses else None
        return (bool(o.resource) and kinds.get(o.resource) == "skill" and switch is not None
                and switch.file(loc) is not None)
    return tuple(o for o in off
                 if own(o) and all(own(other) for other in off if other.resource == o.resource))


def _skill_off(loc: Location, package: Package, o: Off) -> PlannedElement:
    """The element that switches skill `o.resource` off in `o.harness` (`_native` chose it)."""
    switch = REGISTRY[o.harness].skills.off
    path = switch.file(loc) if switch is not None else None
    assert switch is not None and path is not None  # _native checked both
    skill = next(s for s in package.skills if s.name == o.resource)
    name = labels.skill_folder_name(package, skill)  # the name the harness lists it by
    return PlannedElement(path, loc.display(path), switch.fmt, switch.key_path, f"off:{name}",
                          switch.element(name), name, (o.harness,))


def _plugin_folder(plan: Plan, harness: str) -> PlannedArtifact | None:
    folder = claude_plugin.folder(plan.location, plan.package)
    return next((a for a in plan.artifacts if isinstance(a, PlannedTree) and a.path == folder
                 and a.harnesses == (harness,)), None)


def _carries(projections: Iterable[PlannedProjection], artifact: PlannedArtifact,
             off: Callable[[PlannedProjection], bool]) -> bool:
    """Whether `artifact` delivers a projection `off` selects (its path is the artifact's or
    inside it): a copy of the package or a hook's wrapper, which no harness lists, is not."""
    return any(off(p) and p.path is not None
               and (p.path == artifact.path or p.path.is_relative_to(artifact.path))
               for p in projections)


def _shared(full: Plan, on: Iterable[str], quiet: set[str]) -> None:
    """Raise when an artifact that delivers something to a harness switched off is also read
    by one left on: uze cannot take it from one without the other."""
    left = set(on)
    for artifact in full.artifacts:
        readers = set(artifact.harnesses)
        if readers & quiet and readers & left and _carries(
                full.projections, artifact, lambda p: p.harness in quiet):
            off, kept = sorted(readers & quiet), sorted(readers & left)
            raise UzeError(
                f"{full.package.name}: {', '.join(off)} reads {artifact.target} with "
                f"{', '.join(kept)}; switching it off there would switch it off in both",
                hint=f"disable it without --harness, or with --harness {','.join(off + kept)}")


def _key(a: PlannedArtifact) -> tuple[object, ...]:
    return (a.type, a.target, getattr(a, "region_id", None), getattr(a, "key_path", None),
            getattr(a, "group", None))


def _each_harness(kept: Package, tree: str, loc: Location, on: tuple[str, ...],
                  off: tuple[Off, ...], part: Plan, artifacts: list[PlannedArtifact]
                  ) -> list[PlannedArtifact]:
    """`artifacts` with the resources switched off in some harnesses only left out there: an
    artifact takes its form in the plan without the resources off in every harness that reads
    it (gone, or a plugin folder without them); when its readers differ in what is off and that
    changes it, uze cannot switch it off in one and not the other (UzeError)."""
    by_harness: dict[str, frozenset[str]] = {}
    for o in off:
        if o.resource and o.harness in on:
            by_harness[o.harness] = by_harness.get(o.harness, frozenset()) | {o.resource}
    if not by_harness:
        return artifacts
    plans: dict[frozenset[str], dict[tuple[object, ...], PlannedArtifact]] = {}

    def form(names: frozenset[str], key: tuple[object, ...]) -> PlannedArtifact | None:
        if names not in plans:
            plans[names] = {_key(a): a for a in plan_install(_without(kept, set(names)), tree,
                                                             loc, on).artifacts}
        return plans[names].get(key)

    out: list[PlannedArtifact] = []
    for artifact in artifacts:
        key, sets = _key(artifact), {by_harness.get(h, frozenset()) for h in artifact.harnesses}
        least, most = frozenset.intersection(*sets), frozenset.union(*sets)
        if not most:
            out.append(artifact)
            continue
        new = form(most, key)
        if new != (form(least, key) if least else artifact):
            if not _carries(part.projections, artifact,
                            lambda p: any(o.covers(p.resource, p.harness) for o in off)):
                new = form(least, key) if least else artifact  # a copy no harness lists
                if new is not None:
                    out.append(new)
                continue
            offs = sorted(h for h in artifact.harnesses if by_harness.get(h) == most)
            ons = sorted(set(artifact.harnesses) - set(offs))
            raise UzeError(
                f"{kept.name}: {', '.join(offs)} reads {artifact.target} with {', '.join(ons)}; "
                f"switching {', '.join(sorted(most))} off in one would switch it off in both",
                hint=f"disable it without --harness, or with --harness {','.join(offs + ons)}")
        if new is not None:
            out.append(new)
    return out


def plan_switched(package: Package, tree: str, loc: Location, harnesses: tuple[str, ...],
                  off: tuple[Off, ...], here: InPlace = NOTHING) -> Plan:
    """`plan_install` with `off` switched off (see the module); `here`: what is in place
    (plan_install). Raises UzeError when a harness switched off shares an artifact with one
    left on."""
    whole = plan_install(package, tree, loc, harnesses, here)
    if not off:
        return whole
    native = _native(package, loc, harnesses, off)
    removed = tuple(o for o in off if o not in native)
    gone = {o.resource for o in removed if o.resource and not o.harness}
    quiet = {h for h in harnesses if any(not o.resource and o.harness in ("", h) for o in removed)}
    kept = _without(package, gone)
    full = plan_install(kept, tree, loc, harnesses, here) if gone else whole
    on = tuple(h for h in harnesses if h not in quiet)
    part = plan_install(kept, tree, loc, on, here) if quiet and on else full
    artifacts: list[PlannedArtifact] = list(part.artifacts) if on else []
    for harness in sorted(quiet):
        entry = _switched(loc, package, harness)
        folder = _plugin_folder(full, harness) if entry is not None else None
        if entry is not None and folder is not None:
            artifacts += [folder, entry]
    _shared(full, on, quiet)
    artifacts = _each_harness(kept, tree, loc, on, removed, part, artifacts)
    artifacts += [_skill_off(loc, package, o) for o in native]
    projections = [p for p in (part.projections if on else ())
                   if not any(o.covers(p.resource, p.harness) for o in off)]
    projections += [p for p in whole.projections
                    if any(o.covers(p.resource, p.harness) for o in off)]
    # consent covers what the package runs when all of it is on: switching part of it off
    # or on again never asks again, nor forgets what was accepted (ADR 0087)
    return Plan(package, tree, loc, harnesses, tuple(projections), tuple(artifacts),
                whole.executions, disabled=off)

