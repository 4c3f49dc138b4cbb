"""Planning: package + location + harnesses -> projections and the artifacts that carry them.

Pure: reads no file and writes nothing. Routes come from the capability map; harnesses that
read one location share one artifact; skill roots are chosen so no harness sees a skill twice.
"""

from __future__ import annotations

from pathlib import Path

from uze.capabilities import Capability, lookup
from uze.harnesses import HARNESS_IDS, REGISTRY, Location
from uze.harnesses.base import invoke_feature
from uze.package import Agent, Command, Package, Skill
from uze.plan import claude_generated, claude_plugin, in_place, labels, verbatim
from uze.plan.agents import COSMETIC, render_agent
from uze.plan.builder import Builder, worst
from uze.plan.claude_generated import GeneratedPlugin
from uze.plan.commands import (
    SURFACES,
    command_file,
    command_skill,
    policy_files,
    render_command,
    skill_losses,
)
from uze.plan.envelopes import context_note
from uze.plan.in_place import NOTHING, InPlace
from uze.plan.model import Plan, PlannedEntry, PlannedFile, PlannedRegion, PlannedTree
from uze.plan.overrides import read_overrides
from uze.plan.references import rewrite_plan
from uze.plan.skill_roots import RootChoice, choose_roots, unlisted_elsewhere
from uze.projections.frontmatter import edit_frontmatter
from uze.trust import executions


def _skill_files(package: Package, skill: Skill, harnesses: tuple[str, ...],
                 in_plugin: bool = False) -> dict[str, bytes]:
    """The skill's files for `harnesses`; its frontmatter `name` is `<package>-<skill>` where
    it has one. In a plugin folder (`in_plugin`) it has none: Claude Code lists a plugin's skill
    by its folder, and OpenCode, which scans `.claude/skills/**/SKILL.md`, lists no skill
    without a `name`, so it never sees this copy (claude 2.1.197, opencode 1.18.33; ADR 0048)."""
    files = {skill.inner(rel): package.files[rel].data for rel in skill.files}
    folder = labels.skill_folder_name(package, skill)
    keys: dict[str, object] = {}
    for harness in harnesses:
        dialect = REGISTRY[harness].skills.dialect(skill.invoke)
        keys.update(dialect.frontmatter)
        for rel, render in dialect.extra_files.items():
            files[rel] = render(files.get(rel))
    if in_plugin:
        if keys or skill.has_invoke_key or "name" in skill.frontmatter:
            files["SKILL.md"] = edit_frontmatter(files["SKILL.md"], keys, drop=["invoke", "name"])
        return files
    if "name" in skill.frontmatter and skill.frontmatter["name"] != folder:
        keys = {"name": folder, **keys}
    if keys or skill.has_invoke_key:
        files["SKILL.md"] = edit_frontmatter(files["SKILL.md"], keys, drop=["invoke"])
    return files


def _skill_reads(b: Builder, harnesses: list[str], plugin: GeneratedPlugin | None
                 ) -> dict[str, tuple[Path, ...]]:
    """The roots each harness reads skills from. With a plugin folder, the harness that loads
    it reads only the folder, and no other harness is served from the root that holds it: a
    skill folder written there would be a second, flat copy for the plugin's harness."""
    reads = {h: REGISTRY[h].skills.roots(b.loc) for h in harnesses}
    if plugin is None:
        return reads
    return {h: (plugin.path,) if h == plugin.harness
            else tuple(root for root in roots if root != plugin.path.parent)
            for h, roots in reads.items()}


def _plan_skills(b: Builder, plugin: GeneratedPlugin | None, here: InPlace) -> None:
    """Each skill in the roots `choose_roots` picks; for the harness that loads the plugin
    folder, inside it (`skills/<skill>/`), or where it already is (`uze.plan.in_place`)."""
    supported = [h for h in b.harnesses if lookup(h, "skill").route != "unsupported"]
    reads = _skill_reads(b, supported, plugin)
    dedupes = {h for h in supported if REGISTRY[h].skills.dedupes}
    choice = choose_roots(reads, dedupes)
    kept = in_place.keeper(b.loc, b.package, here, plugin.harness, plugin.path.parent, reads,
                           dedupes, choice) if plugin is not None and here.skills else None
    for skill in b.package.skills:
        feature = invoke_feature(skill.invoke)
        users: dict[Path, list[str]] = {}
        served = kept.serve(skill) if kept is not None else in_place.Served(None, {}, choice)
        for harness in b.harnesses:
            cap = worst(lookup(harness, "skill"), lookup(harness, "skill", feature))
            if served.place is not None and harness in served.harnesses:
                why, label = served.harnesses[harness]
                users.setdefault(served.place, []).append(harness)
                b.add("skill", skill.name, harness, worst(cap, why), served.place, feature,
                      label=label)
                continue
            root = served.others.serving.get(harness)
            if harness in served.others.unserved:
                cap = Capability("unsupported", served.others.unserved[harness], "skill_roots")
            path = (root / labels.skill_folder_name(b.package, skill)
                    if root and cap.route != "unsupported" else None)
            part = ""
            if plugin is not None and path is not None and root == plugin.path:
                path, cap = plugin.path, plugin.route(cap)
                part = claude_generated.skill_prefix(skill.name)
            if path is not None:
                users.setdefault(path, []).append(harness)
            b.add("skill", skill.name, harness, cap, path, feature,
                  label=labels.skill(harness, b.package, skill), part=part)
        executables = frozenset(
            skill.inner(rel) for rel in skill.files if b.package.files[rel].executable
        )
        _keep_from_models(b, skill, {p: h for p, h in users.items() if p != served.place})
        for path, harnesses in users.items():
            if path == served.place:
                b.artifacts.append(in_place.skill_tree(b.loc, b.package, skill, path,
                                                       tuple(harnesses)))
                continue
            if plugin is not None and path == plugin.path:
                files = _skill_files(b.package, skill, tuple(harnesses), in_plugin=True)
                plugin.add(claude_generated.skill_prefix(skill.name), files, executables,
                           tuple(harnesses))
                continue
            files = _skill_files(b.package, skill, tuple(harnesses))
            b.artifacts.append(PlannedTree(path, b.loc.display(path), files, executables,
                                           tuple(harnesses)))


def _keep_from_models(b: Builder, skill: Skill, users: dict[Path, list[str]]) -> None:
    """A user-only skill's entry in the config of each harness it is written for that keeps it
    from the model by config, not by a key of the skill (OpenCode, adr/0084)."""
    if skill.invoke.model or not skill.invoke.user:
        return
    name = labels.skill_folder_name(b.package, skill)
    for harness in (h for harnesses in users.values() for h in harnesses):
        switch = REGISTRY[harness].skills.user_only
        if switch is not None:
            path = switch.file(b.loc)
            b.artifacts.append(PlannedEntry(path, b.loc.display(path), switch.fmt,
                                            switch.key(name), switch.value, (harness,)))


def _plan_commands(b: Builder, plugin: GeneratedPlugin | None, here: InPlace) -> None:
    """Each command: the harness's own command surface (the plugin folder for the harness
    that loads it, or its own file already in place), else a skill only the user invokes."""
    choice, seen_by = _command_roots(b)
    for command in b.package.commands:
        folder = labels.command_skill_folder(b.package, command)
        users: dict[Path, list[str]] = {}
        for harness in b.harnesses:
            cap = lookup(harness, "command")
            if harness in SURFACES and cap.route != "unsupported":
                rendered = render_command(harness, command,
                                          b.package.files[command.relpath].data)
                cap = Capability(rendered.route, rendered.reason, cap.source)
                if harness in seen_by:
                    cap = _offered_as_skill(cap, harness, folder, seen_by[harness], b.loc)
                label = labels.command(harness, b.package, command, surface=True)
                own = in_place.command_file(b.loc, harness, command) \
                    if plugin is not None and harness == plugin.harness \
                    and command.name in here.commands else None
                if own is not None:
                    shown = "/" + labels.SEP.join((*command.subdirs, command.name))
                    b.add("command", command.name, harness,
                          worst(cap, in_place.route(b.loc, own, in_place.listed("command", shown))),
                          own, label=shown)
                    b.artifacts.append(in_place.own_file(
                        b.loc, own, b.package.files[command.relpath].data, harness))
                    continue
                if plugin is not None and harness == plugin.harness:
                    b.add("command", command.name, harness, plugin.route(cap), plugin.path,
                          label=label, part=plugin.add_command(command, rendered.data))
                    continue
                file = command_file(harness, b.loc, labels.flat_command_name(b.package,
                                                                             command))
                b.add("command", command.name, harness, cap, file, label=label)
                b.artifacts.append(PlannedFile(file, b.loc.display(file), rendered.data,
                                               (harness,)))
                continue
            root = choice.serving.get(harness)
            if harness in choice.unserved:
                cap = Capability("unsupported", choice.unserved[harness], "skill_roots")
            elif cap.route != "unsupported":
                cap = _as_skill(cap, harness, command)
            path = root / folder if root and cap.route != "unsupported" else None
            if path is not None:
                users.setdefault(path, []).append(harness)
            b.add("command", command.name, harness, cap, path,
                  label=labels.command(harness, b.package, command, surface=False))
        for path, harnesses in users.items():
            files = policy_files({"SKILL.md": command_skill(folder, command)}, tuple(harnesses))
            b.artifacts.append(PlannedTree(path, b.loc.display(path), files, frozenset(),
                                           tuple(harnesses)))


def _command_roots(b: Builder) -> tuple[RootChoice, dict[str, Path]]:
    """Where the skills that carry commands go, and the harnesses with a command surface that
    would list them too (each with the root it reads them from).

    A harness with its own command surface (OpenCode) must not also find the command as a
    skill its model may invoke (issue 31 item 5): roots it reads are left out, unless that
    leaves a harness unserved (Antigravity reads only `.agents/skills`); then its command row
    is degraded and says so (ADR 0070)."""
    skilled = [h for h in b.harnesses if h not in SURFACES
               and lookup(h, "command").route != "unsupported"]
    reads = {h: REGISTRY[h].skills.roots(b.loc) for h in skilled}
    dedupes = {h for h in skilled if REGISTRY[h].skills.dedupes}
    surfaced = {h: REGISTRY[h].skills.roots(b.loc) for h in b.harnesses
                if h in SURFACES and lookup(h, "command").route != "unsupported"}
    avoid = {root for roots in surfaced.values() for root in roots}
    apart = choose_roots({h: tuple(r for r in roots if r not in avoid)
                          for h, roots in reads.items()}, dedupes)
    shared = choose_roots(reads, dedupes)
    choice = apart if len(apart.serving) >= len(shared.serving) else shared
    written = set(choice.serving.values()) if b.package.commands else set()
    seen_by = {h: next(r for r in roots if r in written)
               for h, roots in surfaced.items() if written & set(roots)}
    return choice, seen_by


def _offered_as_skill(cap: Capability, harness: str, folder: str, root: Path,
                      loc: Location) -> Capability:
    """`harness`'s command row when it also lists the command's skill copy (`_command_roots`):
    degraded, because its model can invoke what only the user should."""
    why = (f"{harness} also lists it as the skill {folder!r} from {loc.display(root)}, "
           "which uze writes for another harness: its model can invoke this user-only command")
    return Capability("degraded", "; ".join(filter(None, [cap.reason, why])), cap.source)


def _as_skill(cap: Capability, harness: str, command: Command) -> Capability:
    """The route of a command delivered as a user-only skill: the policy's route, degraded
    where the command loses what it has (uze.plan.commands.skill_losses), noted otherwise."""
    cap = worst(cap, lookup(harness, "skill", "invoke.user_only"))
    lost, notes = skill_losses(harness, command)
    if not lost and not notes:
        return cap
    route = "degraded" if lost else cap.route
    return Capability(route, "; ".join(filter(None, [cap.reason, *lost, *notes])), cap.source)


def _plan_instructions(b: Builder, claude: str | None, own: str | None = None) -> None:
    """The instructions region in each harness's instructions file. `claude` is the harness
    that loads a Claude-native package as a Claude plugin: Claude Code installing the plugin
    itself loads no context file of another harness's manifest, so context named by
    `gemini-extension.json` is not added to its instructions file. `own`: the harness whose
    instructions file is already the text, whole (`uze.plan.in_place`): adopted as it is,
    unless another harness writes a region into the same file."""
    instructions = b.package.instructions
    if instructions is None:
        return
    body = instructions.text
    files: dict[Path, list[str]] = {}
    caps = {h: lookup(h, "instructions") for h in b.harnesses}
    if claude is not None and instructions.source:
        caps[claude] = Capability(
            "unsupported", f"{claude} loads the package as a Claude plugin, whose manifest "
            f"names no instructions; {instructions.name} is the context {instructions.source} "
            "names for another harness", "uze/plan/planner.py")
    for harness in b.harnesses:
        if caps[harness].route != "unsupported":
            files.setdefault(REGISTRY[harness].instructions.file(b.loc), []).append(harness)
    kept = in_place.instructions(b, files, own)
    for harness in b.harnesses:
        cap = caps[harness]
        path = REGISTRY[harness].instructions.file(b.loc) if cap.route != "unsupported" else None
        if kept is not None and harness == own and path == kept:
            b.add("instructions", instructions.name, harness,
                  in_place.route(b.loc, kept, "the whole file"), kept)
            continue
        also = [p for p in REGISTRY[harness].instructions.also_reads(b.loc)
                if p in files and p != path]
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


def _plan_agent(b: Builder, agent: Agent, plugin: GeneratedPlugin | None, here: InPlace) -> None:
    """The agent in each harness's agent folder (the plugin folder for the harness that loads
    it, under its own name there, or its own file already in place)."""
    for harness in b.harnesses:
        cap, fmt = lookup(harness, "agent"), REGISTRY[harness].agents
        if cap.route == "unsupported" or fmt is None:
            b.add("agent", agent.name, harness, cap, None)
            continue
        in_plugin = plugin is not None and harness == plugin.harness
        own = in_place.agent_file(b.loc, harness, agent) \
            if in_plugin and agent.name in here.agents else None
        if own is not None:
            name = labels.own_name(agent)
            b.add("agent", agent.name, harness,
                  worst(cap, in_place.route(b.loc, own, in_place.listed("agent", name))), own,
                  label=name)
            b.artifacts.append(in_place.own_file(b.loc, own, b.package.files[agent.relpath].data,
                                                 harness))
            continue
        name = labels.own_name(agent) if in_plugin else labels.flat_agent_name(b.package, agent)
        rendered = render_agent(agent, harness, fmt, name)
        whys = [*rendered.lost, *rendered.notes]
        dropped = [key for key in rendered.dropped if key not in COSMETIC]
        cosmetic = [key for key in rendered.dropped if key in COSMETIC]
        if dropped:
            whys.append(f"dropped fields {harness} does not read: {', '.join(dropped)}")
        if cosmetic:
            whys.append(f"left out {', '.join(cosmetic)}, which {harness} does not show")
        if whys:
            route = "degraded" if rendered.lost or dropped else (
                "adapted" if cap.route == "native" else cap.route)
            cap = Capability(route, "; ".join(filter(None, [cap.reason, *whys])), cap.source)
        label = labels.agent(harness, b.package, agent)
        if plugin is not None and in_plugin:
            b.add("agent", agent.name, harness, plugin.route(cap), plugin.path, label=label,
                  part=plugin.add_agent(agent, rendered.data))
            continue
        path = fmt.folder(b.loc) / f"{labels.flat_agent_name(b.package, agent)}{fmt.suffix}"
        b.add("agent", agent.name, harness, cap, path, label=label)
        b.artifacts.append(PlannedFile(path, b.loc.display(path), rendered.data, (harness,)))


def _plan_claude_plugin(b: Builder, harness: str) -> None:
    """The whole package, its own manifest included, as one Claude Code plugin (ADR 0041);
    its SKILL.md files without their frontmatter `name` (ADR 0070)."""
    path = claude_plugin.folder(b.loc, b.package)
    cap = Capability("native", claude_plugin.reason(b.loc), "uze/plan/claude_plugin.py")
    parts = claude_plugin.parts(b.package)
    for kind, resource, label, feature in claude_plugin.resources(b.package, harness):
        b.add(kind, resource, harness, cap, path, feature, label=label,
              part=parts.get((kind, resource), ""))
    files = unlisted_elsewhere({rel: f.data for rel, f in b.package.files.items()})
    executables = frozenset(rel for rel, f in b.package.files.items() if f.executable)
    b.artifacts.append(PlannedTree(path, b.loc.display(path), files, executables, (harness,)))


def plan_install(package: Package, tree: str, loc: Location, harnesses: tuple[str, ...],
                 here: InPlace = NOTHING) -> Plan:
    """Every projection and artifact for `package` in `loc`, for `harnesses`. Pure. `here`:
    what the harness that loads Claude plugins already has in its own places, byte for byte
    (read by `uze.install.adoption.in_place`): adopted there, not copied into the plugin.

    Raises PackageInvalid for malformed author overrides.
    """
    b = Builder(package, loc, harnesses, read_overrides(package, HARNESS_IDS))
    rest, plugin = b, None
    loads = [h for h in harnesses if REGISTRY[h].claude_plugins is not None]
    _plan_instructions(b, loads[0] if loads and claude_plugin.claude_native(package) else None,
                       loads[0] if loads and here.instructions else None)
    whole = bool(loads) and claude_plugin.delivered_whole(package)
    if whole:
        _plan_claude_plugin(b, loads[0])
        others = tuple(h for h in harnesses if h != loads[0])
        rest = Builder(package, loc, others, b.overrides, b.projections, b.artifacts)
    elif loads:
        plugin = claude_generated.start(loc, package, loads[0])
    _plan_skills(rest, plugin, here)
    _plan_commands(rest, plugin, here)
    for agent in package.agents:
        _plan_agent(rest, agent, plugin, here)
    if plugin is not None and (folder := plugin.artifact()) is not None:
        b.artifacts.append(folder)
    if (package.mcp_servers or package.tools or package.hooks is not None
            or package.claude_hooks is not None):
        # start-up: hook and server delivery (wrappers, shell quoting) load only for a package
        # that has hooks or servers (ADR 0051)
        from uze.plan.runs import plan_claude_hooks, plan_hooks, plan_mcp
        from uze.plan.tools import plan_tools

        plan_mcp(rest)
        plan_tools(rest)
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
    runs = executions(package, delivered, hooked, skills, agents, written, commands)
    if whole:  # Claude Code gets the package whole: what it runs beyond what uze reads
        runs += verbatim.runs(package, runs)
    return Plan(package, tree, loc, harnesses, tuple(b.projections), tuple(b.artifacts),
                tuple(runs))
