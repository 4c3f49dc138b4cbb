"""Planning: package + location + harnesses -> projections and the artifacts that carry them.

Pure: reads no file and writes nothing. Routes come from the capability map; harnesses that
read one location share one artifact; skill roots are chosen so no harness sees a skill twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Literal

import msgspec

from uze import claude_plugin
from uze.agents_render import agent_label, render_agent
from uze.capabilities import Capability, lookup
from uze.commands_render import (
    SURFACES,
    command_file,
    command_label,
    command_skill,
    render_command,
)
from uze.harnesses import HARNESS_IDS, REGISTRY, Location
from uze.harnesses.base import invoke_feature
from uze.hooks.claude import claude_code_group, untranslated_reason
from uze.hooks.delivery import (
    GroupDelivery,
    deliver_claude_group,
    deliver_hooks,
    opencode_bridge,
)
from uze.hooks.opencode_plugin import plugin_file_name
from uze.mcp_dialects import without_defaults
from uze.overrides import Overrides, read_overrides
from uze.package import Agent, InvokePolicy, Package, Skill
from uze.plugin_root import as_written, hook_folder, plugin_root, resolve_server
from uze.projections.config_entry import format_key_path
from uze.projections.frontmatter import edit_frontmatter
from uze.skill_roots import choose_roots
from uze.trust import Execution, executions, trust_digest
from uze.vocabulary import ConfigFormat, Kind, Route

_RANK = {"native": 0, "adapted": 1, "degraded": 2, "unsupported": 3}


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
    """One entry at `key_path` in the config file at `path` (an MCP server)."""

    type: ClassVar[Literal["entry"]] = "entry"  # its kind (uze.artifacts.registry)

    path: Path
    target: str
    fmt: ConfigFormat
    key_path: tuple[str, ...]
    value: dict[str, object]
    harnesses: tuple[str, ...]


class PlannedElement(msgspec.Struct, frozen=True):
    """One element appended to the array at `key_path` (a hook group); `marker` is its command."""

    type: ClassVar[Literal["element"]] = "element"  # its kind (uze.artifacts.registry)

    path: Path
    target: str
    fmt: ConfigFormat
    key_path: tuple[str, ...]
    group: str
    value: dict[str, object]
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

    @property
    def trust(self) -> str:
        """Digest of what the package will run and of every file of it ("" when nothing runs)."""
        return trust_digest(list(self.executions), self.tree)

    def unmet_requirements(self) -> list[PlannedProjection]:
        """Projections the author marked `required` whose route is not native."""
        return [p for p in self.projections if p.level == "required" and p.route != "native"]


class _Builder(msgspec.Struct):
    package: Package
    loc: Location
    harnesses: tuple[str, ...]
    overrides: Overrides
    projections: list[PlannedProjection] = msgspec.field(default_factory=list)
    artifacts: list[PlannedArtifact] = msgspec.field(default_factory=list)

    def add(self, kind: Kind, resource: str, harness: str, cap: Capability,
            path: Path | None, feature: str = "base", suffix: str = "", label: str = "") -> None:
        level = self.overrides.level(harness, kind, feature) or ""
        reason = cap.reason
        if level == "optional" and cap.route != "native":
            reason = f"{reason} (optional for this package)"
        target = f"{self.loc.display(path)}{suffix}" if path is not None else ""
        self.projections.append(
            PlannedProjection(kind, resource, harness, cap.route, reason, target, path, level,
                              label if path is not None else "")
        )


def _worst(*caps: Capability) -> Capability:
    if caps[0].route == "unsupported":  # the base row decides alone when it is unsupported
        return caps[0]
    worst = max(caps, key=lambda cap: _RANK[cap.route])
    reasons = "; ".join(cap.reason for cap in caps if cap.reason)
    return Capability(worst.route, reasons, worst.source)


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


def _plan_skills(b: _Builder) -> None:
    supported = [h for h in b.harnesses if lookup(h, "skill").route != "unsupported"]
    reads = {h: REGISTRY[h].skill_roots(b.loc) for h in supported}
    dedupes = {h for h in supported if REGISTRY[h].dedupes_skills}
    choice = choose_roots(reads, dedupes)
    for skill in b.package.skills:
        feature = invoke_feature(skill.invoke)
        users: dict[Path, list[str]] = {}
        for harness in b.harnesses:
            cap = _worst(lookup(harness, "skill"), lookup(harness, "skill", feature))
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


def _plan_commands(b: _Builder) -> None:
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
                cap = _worst(cap, lookup(harness, "skill", "invoke.user_only"))
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


def _plan_instructions(b: _Builder) -> None:
    if b.package.instructions is None:
        return
    body = b.package.files[b.package.instructions].data
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
        b.add("instructions", "AGENTS.md", harness, cap, path, suffix=f"#{b.package.name}")
    b.artifacts += [
        PlannedRegion(path, b.loc.display(path), b.package.name, body, tuple(users))
        for path, users in files.items()
    ]


def _plan_agent(b: _Builder, agent: Agent) -> None:
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


def _mcp_cap(b: _Builder, harness: str) -> Capability:
    base = lookup(harness, "mcp")
    if b.loc.scope == "project" and base.route != "unsupported":
        scoped = lookup(harness, "mcp", "project")
        return scoped if scoped.route != "unsupported" else base
    return base


def _translated_cap(cap: Capability, harness: str, translated: Any) -> Capability:
    if translated.unsupported:
        return Capability("unsupported", translated.unsupported, cap.source)
    if translated.degraded:
        return Capability("degraded", "; ".join([*filter(None, [cap.reason]),
                                                 *translated.degraded]), cap.source)
    return cap


def _machine_bound(b: _Builder, harness: str, cap: Capability, what: str) -> Capability:
    """`cap` made `degraded` where a project-scope entry names this machine's absolute path
    (the harness has no project-relative form proven, adr/0039)."""
    if b.loc.scope != "project" or cap.route == "unsupported":
        return cap
    why = (f"{what} names this machine's absolute path to the package copy: {harness} has no "
           "project-relative form proven with its binary, so a teammate's clone needs "
           "`uze install` and differs in this entry (adr/0039)")
    return Capability("degraded", "; ".join(filter(None, [cap.reason, why])), cap.source)


def _plan_mcp(b: _Builder) -> None:
    root = plugin_root(b.loc, b.package.name)
    users: list[str] = []
    for portable in b.package.mcp_servers:
        for harness in b.harnesses:
            written = as_written(b.loc, root, REGISTRY[harness].project_forms.mcp)
            server, needs_root = resolve_server(portable, written or str(root))
            cap, target = _mcp_cap(b, harness), REGISTRY[harness].mcp
            if needs_root and written is None:
                cap = _machine_bound(b, harness, cap, "the server's command")
            if cap.route == "unsupported" or target is None:
                b.add("mcp", server.name, harness, cap, None)
                continue
            dialect = target.dialect if target.expands_defaults else without_defaults(
                harness, target.dialect)
            translated = dialect(server)
            cap = _translated_cap(cap, harness, translated)
            if translated.value is None:
                b.add("mcp", server.name, harness, cap, None)
                continue
            path, key = target.file(b.loc), target.key(b.loc, server.name)
            b.add("mcp", server.name, harness, cap, path, suffix=f"#{format_key_path(key)}",
                  label=server.name)
            b.artifacts.append(PlannedEntry(path, b.loc.display(path), target.fmt, key,
                                            translated.value, (harness,)))
            if needs_root and harness not in users:
                users.append(harness)
    if users:
        _plan_package_copy(b, root, tuple(users))


def _plan_hook_group(b: _Builder, harness: str, d: GroupDelivery, wrappers: Path) -> bool:
    """Add one group's projection and its config artifact; True if it is delivered."""
    path, target = None, REGISTRY[harness].hooks
    if target is not None and d.element is not None:
        path = target.file(b.loc)
    elif target is not None and d.bridge is not None and (folder := target.file(b.loc)):
        path = folder / plugin_file_name(b.package.name)
    route, reason = (d.route, d.reason) if path or d.route == "unsupported" else (
        "unsupported", f"{harness} reads hooks only from its user config; use --scope user")
    cap = Capability(route, reason, "uze/hooks/delivery.py")
    if REGISTRY[harness].project_forms.hook is None:
        cap = _machine_bound(b, harness, cap, "the hook command")
    if path is None or d.wrapper is None or route == "unsupported":
        b.add("hook", d.group, harness, cap, None)
        return False
    if d.element is None:  # the `plugin` layout: the package's plugin file carries the group
        b.add("hook", d.group, harness, cap, path)
        return True
    key, owner = d.element.key_path, f"{b.package.name}/{d.group}"  # ids are per package
    display = b.loc.display(path)
    if d.element.named:
        b.add("hook", d.group, harness, cap, path, suffix=f"#{format_key_path(key)}")
        entry = PlannedEntry(path, display, d.element.fmt, key, d.element.value, (harness,))
        b.artifacts.append(entry)
        return True
    b.add("hook", d.group, harness, cap, path, suffix=f"#{format_key_path(key)}[{owner}]")
    wrapper = wrappers / d.wrapper.path  # the marker: what the command names, in any form
    marker = b.loc.display(wrapper) if b.loc.scope == "project" else str(wrapper)
    b.artifacts.append(PlannedElement(path, display, d.element.fmt, key, owner, d.element.value,
                                      marker, (harness,)))
    return True


def _plan_hooks(b: _Builder) -> None:
    """Portable groups, and Claude-protocol groups on every harness but Claude Code, through
    generated wrappers in the package's one wrapper folder."""
    claude = b.package.claude_hooks.groups if b.package.claude_hooks is not None else ()
    if b.package.hooks is None and not claude:
        return
    root, wrappers = plugin_root(b.loc, b.package.name), hook_folder(b.loc, b.package.name)
    files: dict[str, bytes] = {}
    for harness in b.harnesses:
        delivered: tuple[GroupDelivery, ...] = ()
        written = as_written(b.loc, wrappers, REGISTRY[harness].project_forms.hook)
        if b.package.hooks is not None:
            delivered = deliver_hooks(harness, b.package.hooks, b.package.name, wrappers, root,
                                      written)
        if not REGISTRY[harness].claude_hooks_verbatim:  # else verbatim: _plan_claude_hooks
            delivered += tuple(deliver_claude_group(harness, group, b.package.name, wrappers,
                                                    root, written) for group in claude)
        for d in delivered:
            if _plan_hook_group(b, harness, d, wrappers) and d.wrapper is not None:
                files[d.wrapper.path] = d.wrapper.data
        target = REGISTRY[harness].hooks
        folder = target.file(b.loc) if target is not None and target.layout == "plugin" else None
        bridge = opencode_bridge(b.package.name, delivered) if folder else None
        if folder is not None and bridge is not None:
            path = folder / plugin_file_name(b.package.name)
            b.artifacts.append(PlannedFile(path, b.loc.display(path), bridge, (harness,)))
    if files:
        b.artifacts.append(PlannedTree(wrappers, b.loc.display(wrappers), files,
                                       frozenset(files), tuple(b.harnesses)))
        _plan_package_copy(b, root, tuple(b.harnesses))


def _plan_claude_hooks(b: _Builder) -> None:
    """Claude-protocol groups on the harnesses that read them as their own (Claude Code):
    verbatim into their hook settings (native)."""
    hooks = b.package.claude_hooks
    if hooks is None:
        return
    root = plugin_root(b.loc, b.package.name)
    for harness in b.harnesses:
        target = REGISTRY[harness].hooks
        if not REGISTRY[harness].claude_hooks_verbatim or target is None:
            continue
        settings = target.file(b.loc)
        for group in hooks.groups:
            if settings is None:
                cap = Capability("unsupported", untranslated_reason(harness),
                                 "uze/hooks/claude.py")
                b.add("hook", group.name, harness, cap, None)
                continue
            written = as_written(b.loc, root, REGISTRY[harness].project_forms.hook)
            value, marker = claude_code_group(group, written or str(root))
            key, owner = ("hooks", group.event), f"{b.package.name}/{group.name}"
            cap = Capability("native", "", "uze/hooks/claude.py")
            b.add("hook", group.name, harness, cap, settings,
                  suffix=f"#{format_key_path(key)}[{owner}]")
            b.artifacts.append(PlannedElement(settings, b.loc.display(settings), target.fmt, key,
                                              owner, value, marker, (harness,)))
        if hooks.groups and settings is not None:
            _plan_package_copy(b, root, (harness,))


def _plan_claude_plugin(b: _Builder, harness: str) -> None:
    """The whole package, its own manifest included, as one Claude Code plugin (ADR 0041)."""
    path = claude_plugin.folder(b.loc, b.package)
    cap = Capability("native", claude_plugin.reason(b.loc), "uze/claude_plugin.py")
    for kind, resource, label, feature in claude_plugin.resources(b.package):
        b.add(kind, resource, harness, cap, path, feature, label=label)
    files = {rel: f.data for rel, f in b.package.files.items()}
    executables = frozenset(rel for rel, f in b.package.files.items() if f.executable)
    b.artifacts.append(PlannedTree(path, b.loc.display(path), files, executables, (harness,)))


def _also_in_claude_plugin(b: _Builder, harnesses: tuple[str, ...]) -> None:
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


def _plan_package_copy(b: _Builder, root: Path, users: tuple[str, ...]) -> None:
    if any(isinstance(a, PlannedTree) and a.path == root for a in b.artifacts):
        return
    files = {rel: f.data for rel, f in b.package.files.items()}
    executables = frozenset(rel for rel, f in b.package.files.items() if f.executable)
    b.artifacts.append(PlannedTree(root, b.loc.display(root), files, executables, users))


def hook_ids(package: Package) -> list[str]:
    """Each hook group's id, or `<Event>-<index>` when it has none."""
    if package.hooks is None:
        return []
    return [
        group.id or f"{event}-{index}"
        for event, groups in package.hooks.hooks.items()
        for index, group in enumerate(groups)
    ]


def plan_install(package: Package, tree: str, loc: Location, harnesses: tuple[str, ...]) -> Plan:
    """Every projection and artifact for `package` in `loc`, for `harnesses`. Pure.

    Raises PackageInvalid for malformed author overrides.
    """
    b = _Builder(package, loc, harnesses, read_overrides(package, HARNESS_IDS))
    _plan_instructions(b)
    rest = b
    whole = [h for h in harnesses if REGISTRY[h].claude_plugins]
    if whole and claude_plugin.delivered_whole(package):
        _plan_claude_plugin(b, whole[0])
        others = tuple(h for h in harnesses if h != whole[0])
        rest = _Builder(package, loc, others, b.overrides, b.projections, b.artifacts)
    _plan_skills(rest)
    if rest is not b:
        _also_in_claude_plugin(b, rest.harnesses)
    _plan_commands(rest)
    for agent in package.agents:
        _plan_agent(rest, agent)
    _plan_mcp(rest)
    _plan_hooks(rest)
    _plan_claude_hooks(rest)
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
