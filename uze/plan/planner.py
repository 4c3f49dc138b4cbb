"""Planning: package + location + harnesses -> projections and the artifacts that carry them.

Pure: reads no file and writes nothing. Routes come from the capability map; harnesses that
read one location share one artifact; skill roots are chosen so no harness sees a skill twice.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from uze.capabilities import Capability, lookup
from uze.harnesses import HARNESS_IDS, REGISTRY, Location
from uze.harnesses.base import invoke_feature
from uze.package import Agent, InvokePolicy, Package, Skill
from uze.plan import claude_plugin
from uze.plan.agents import agent_label, render_agent
from uze.plan.builder import Builder, worst
from uze.plan.commands import (
    SURFACES,
    command_file,
    command_label,
    command_skill,
    render_command,
)
from uze.plan.envelopes import context_note
from uze.plan.model import Plan, PlannedFile, PlannedRegion, PlannedTree
from uze.plan.overrides import read_overrides
from uze.plan.references import rewrite_plan
from uze.plan.runs import plan_claude_hooks, plan_hooks, plan_mcp
from uze.plan.skill_roots import choose_roots
from uze.projections.frontmatter import edit_frontmatter
from uze.trust import executions


def skill_folder_name(package: Package, skill: Skill) -> str:
    """Package-qualified, stable folder name: `<package>-<skill>`."""
    return f"{package.name}-{skill.name}"


def _skill_files(package: Package, skill: Skill, harnesses: tuple[str, ...]) -> dict[str, bytes]:
    files = {skill.inner(rel): package.files[rel].data for rel in skill.files}
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


def _plan_skills(b: Builder) -> None:
    supported = [h for h in b.harnesses if lookup(h, "skill").route != "unsupported"]
    reads = {h: REGISTRY[h].skill_roots(b.loc) for h in supported}
    dedupes = {h for h in supported if REGISTRY[h].dedupes_skills}
    choice = choose_roots(reads, dedupes)
    for skill in b.package.skills:
        feature = invoke_feature(skill.invoke)
        users: dict[Path, list[str]] = {}
        for harness in b.harnesses:
            cap = worst(lookup(harness, "skill"), lookup(harness, "skill", feature))
            root = choice.serving.get(harness)
            if harness in choice.unserved:
                cap = Capability("unsupported", choice.unserved[harness], "skill_roots")
            path = (root / skill_folder_name(b.package, skill)
                    if root and cap.route != "unsupported" else None)
            if path is not None:
                users.setdefault(path, []).append(harness)
            b.add("skill", skill.name, harness, cap, path, feature,
                  label=skill_folder_name(b.package, skill))
        for path, harnesses in users.items():
            files = _skill_files(b.package, skill, tuple(harnesses))
            executables = frozenset(
                skill.inner(rel) for rel in skill.files if b.package.files[rel].executable
            )
            b.artifacts.append(PlannedTree(path, b.loc.display(path), files, executables,
                                           tuple(harnesses)))


def _plan_commands(b: Builder) -> None:
    """Each command: the harness's own command surface, else a skill only the user invokes."""
    skilled = [h for h in b.harnesses if h not in SURFACES
               and lookup(h, "command").route != "unsupported"]
    choice = choose_roots({h: REGISTRY[h].skill_roots(b.loc) for h in skilled},
                          {h for h in skilled if REGISTRY[h].dedupes_skills})
    taken = {skill_folder_name(b.package, skill) for skill in b.package.skills}
    for command in b.package.commands:
        label = command_label(b.package.name, command)
        folder = f"{label}-command" if label in taken else label
        users: dict[Path, list[str]] = {}
        for harness in b.harnesses:
            cap = lookup(harness, "command")
            if harness in SURFACES and cap.route != "unsupported":
                original = b.package.files[command.relpath].data
                rendered = render_command(harness, command, original)
                cap = Capability(rendered.route, rendered.reason, cap.source)
                file = command_file(harness, b.loc, label)
                b.add("command", command.name, harness, cap, file, label=label)
                b.artifacts.append(PlannedFile(file, b.loc.display(file), rendered.data,
                                               (harness,)))
                continue
            root = choice.serving.get(harness)
            if harness in choice.unserved:
                cap = Capability("unsupported", choice.unserved[harness], "skill_roots")
            elif cap.route != "unsupported":
                cap = worst(cap, lookup(harness, "skill", "invoke.user_only"))
            path = root / folder if root and cap.route != "unsupported" else None
            if path is not None:
                users.setdefault(path, []).append(harness)
            b.add("command", command.name, harness, cap, path, label=folder)
        for path, harnesses in users.items():
            files = _policy_files({"SKILL.md": command_skill(folder, command)}, tuple(harnesses))
            b.artifacts.append(PlannedTree(path, b.loc.display(path), files, frozenset(),
                                           tuple(harnesses)))


def _policy_files(files: dict[str, bytes], harnesses: tuple[str, ...]) -> dict[str, bytes]:
    """A user-only skill's files with its `invoke` policy in each harness's own terms."""
    keys: dict[str, object] = {}
    for harness in harnesses:
        dialect = REGISTRY[harness].skill_dialect(InvokePolicy(model=False, user=True))
        keys.update(dialect.frontmatter)
        for rel, render in dialect.extra_files.items():
            files[rel] = render(files.get(rel))
    files["SKILL.md"] = edit_frontmatter(files["SKILL.md"], keys, drop=["invoke"])
    return files


def _plan_instructions(b: Builder) -> None:
    instructions = b.package.instructions
    if instructions is None:
        return
    body = instructions.text
    files: dict[Path, list[str]] = {}
    caps = {h: lookup(h, "instructions") for h in b.harnesses}
    for harness in b.harnesses:
        if caps[harness].route != "unsupported":
            files.setdefault(REGISTRY[harness].instructions_file(b.loc), []).append(harness)
    for harness in b.harnesses:
        cap = caps[harness]
        path = REGISTRY[harness].instructions_file(b.loc) if cap.route != "unsupported" else None
        also = [p for p in REGISTRY[harness].also_reads(b.loc) if p in files and p != path]
        if also:
            cap = Capability("degraded", f"it also reads {b.loc.display(also[0])}, which uze "
                             "writes for another harness: it sees these instructions twice",
                             cap.source)
        if instructions.source and cap.route != "unsupported":
            cap = worst(cap, Capability("adapted", context_note(instructions), cap.source))
        b.add("instructions", instructions.name, harness, cap, path,
              suffix=f"#{b.package.name}")
    b.artifacts += [
        PlannedRegion(path, b.loc.display(path), b.package.name, body, tuple(users))
        for path, users in files.items()
    ]


def _plan_agent(b: Builder, agent: Agent) -> None:
    label = agent_label(b.package.name, agent)
    for harness in b.harnesses:
        cap, fmt = lookup(harness, "agent"), REGISTRY[harness].agents
        if cap.route == "unsupported" or fmt is None:
            b.add("agent", agent.name, harness, cap, None)
            continue
        rendered = render_agent(b.package.name, agent, harness, fmt)
        whys = [*rendered.lost, *rendered.notes]
        if rendered.dropped:
            whys.append(f"dropped fields {harness} does not read: {', '.join(rendered.dropped)}")
        if whys:
            route = "degraded" if rendered.lost or rendered.dropped else (
                "adapted" if cap.route == "native" else cap.route)
            cap = Capability(route, "; ".join(filter(None, [cap.reason, *whys])), cap.source)
        path = fmt.folder(b.loc) / f"{label}{fmt.suffix}"
        b.add("agent", agent.name, harness, cap, path, label=label)
        b.artifacts.append(PlannedFile(path, b.loc.display(path), rendered.data, (harness,)))


def _plan_claude_plugin(b: Builder, harness: str) -> None:
    """The whole package, its own manifest included, as one Claude Code plugin (ADR 0041)."""
    path = claude_plugin.folder(b.loc, b.package)
    cap = Capability("native", claude_plugin.reason(b.loc), "uze/plan/claude_plugin.py")
    for kind, resource, label, feature in claude_plugin.resources(b.package):
        b.add(kind, resource, harness, cap, path, feature, label=label)
    files = {rel: f.data for rel, f in b.package.files.items()}
    executables = frozenset(rel for rel, f in b.package.files.items() if f.executable)
    b.artifacts.append(PlannedTree(path, b.loc.display(path), files, executables, (harness,)))


def _also_in_claude_plugin(b: Builder, harnesses: tuple[str, ...]) -> None:
    """A harness that reads Claude Code's skill root (OpenCode scans `.claude/skills/**`) also
    lists the plugin's skills, under their own names: its rows are degraded and say so."""
    root = claude_plugin.folder(b.loc, b.package).parent
    readers = {h for h in harnesses if root in REGISTRY[h].skill_roots(b.loc)}
    for index, p in enumerate(b.projections):
        if p.kind != "skill" or p.harness not in readers or p.path is None:
            continue
        skill = next(s for s in b.package.skills if s.name == p.resource)
        listed = claude_plugin.listed_name(skill)
        why = (f"{p.harness} also lists it as {listed!r} from Claude Code's plugin folder "
               f"{b.loc.display(root / b.package.name)}, which it reads too")
        reason = "; ".join(filter(None, [p.reason, why]))
        b.projections[index] = msgspec.structs.replace(p, route="degraded", reason=reason)


def plan_install(package: Package, tree: str, loc: Location, harnesses: tuple[str, ...]) -> Plan:
    """Every projection and artifact for `package` in `loc`, for `harnesses`. Pure.

    Raises PackageInvalid for malformed author overrides.
    """
    b = Builder(package, loc, harnesses, read_overrides(package, HARNESS_IDS))
    _plan_instructions(b)
    rest = b
    whole = [h for h in harnesses if REGISTRY[h].claude_plugins]
    if whole and claude_plugin.delivered_whole(package):
        _plan_claude_plugin(b, whole[0])
        others = tuple(h for h in harnesses if h != whole[0])
        rest = Builder(package, loc, others, b.overrides, b.projections, b.artifacts)
    _plan_skills(rest)
    if rest is not b:
        _also_in_claude_plugin(b, rest.harnesses)
    _plan_commands(rest)
    for agent in package.agents:
        _plan_agent(rest, agent)
    plan_mcp(rest)
    plan_hooks(rest)
    plan_claude_hooks(rest)
    rewrite_plan(package, b.projections, b.artifacts)
    delivered = {p.resource for p in b.projections if p.kind == "mcp" and p.path is not None}
    hooked = {p.resource for p in b.projections if p.kind == "hook" and p.path is not None}
    skills: dict[str, set[str]] = {}
    agents: dict[str, set[str]] = {}
    for p in b.projections:
        if p.path is not None and p.kind in ("skill", "agent"):
            (skills if p.kind == "skill" else agents).setdefault(p.harness, set()).add(p.resource)
    written = {h: fmt.allowed for h in harnesses if (fmt := REGISTRY[h].agents) is not None}
    commands = {p.resource for p in b.projections
                if p.kind == "command" and p.harness in SURFACES and p.path is not None}
    runs = tuple(executions(package, delivered, hooked, skills, agents, written, commands))
    return Plan(package, tree, loc, harnesses, tuple(b.projections), tuple(b.artifacts), runs)
