"""Resources a user already has where Claude Code reads its own, adopted where they are
(ADR 0096).

A package reaches Claude Code as one generated plugin folder (ADR 0048). A skill, agent or
command that is already, byte for byte as the package has it, in the project's or user's own
Claude Code places (`.claude/skills/<folder>/`, `.claude/agents/<file>`,
`.claude/commands/<file>`; the whole CLAUDE.md for the instructions) is left there and adopted
instead: a plugin copy beside it would list it twice (`review` and `<package>:review`).
The install reads the disk once to say which (`uze.install.adoption.in_place`); everything
here is pure: where each resource would be and which bytes it must hold.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Final

import msgspec

from uze.capabilities import Capability
from uze.harnesses import REGISTRY
from uze.location import Location
from uze.package import Agent, Command, Package, Skill
from uze.plan.builder import Builder
from uze.plan.model import PlannedFile, PlannedTree
from uze.plan.skill_roots import RootChoice, choose_roots

SOURCE: Final = "uze/plan/in_place.py"


class InPlace(msgspec.Struct, frozen=True):
    """The resources found in place, by name (the package's), and whether the instructions
    are the whole of the harness's instructions file."""

    skills: frozenset[str] = frozenset()
    agents: frozenset[str] = frozenset()
    commands: frozenset[str] = frozenset()
    instructions: bool = False

    def __bool__(self) -> bool:
        return bool(self.skills or self.agents or self.commands or self.instructions)


NOTHING: Final = InPlace()


def skill_folder(loc: Location, harness: str, skill: Skill) -> Path:
    """`<the harness's own skill root>/<the skill's folder name>`."""
    return REGISTRY[harness].skills.roots(loc)[0] / PurePosixPath(skill.folder or "skill").name


def skill_files(package: Package, skill: Skill) -> dict[str, bytes]:
    """The skill's files as the package has them, relative to its folder."""
    return {skill.inner(rel): package.files[rel].data for rel in skill.files}


def agent_file(loc: Location, harness: str, agent: Agent) -> Path | None:
    """Where the harness reads its own agent of this file name (None: it reads none)."""
    fmt = REGISTRY[harness].agents
    if fmt is None:
        return None
    return fmt.folder(loc).joinpath(*agent.subdirs, PurePosixPath(agent.relpath).name)


def command_file(loc: Location, harness: str, command: Command) -> Path | None:
    """Where the harness reads its own command of this file name (None: no command folder)."""
    surface = REGISTRY[harness].commands
    if surface is None:
        return None
    return surface.folder(loc).joinpath(*command.subdirs, PurePosixPath(command.relpath).name)


def instructions_file(loc: Location, harness: str) -> Path:
    """The harness's instructions file in `loc`."""
    return REGISTRY[harness].instructions.file(loc)


def instructions(b: Builder, files: dict[Path, list[str]], own: str | None) -> Path | None:
    """The instructions file of `own` adopted whole (its region taken out of `files`, the file
    added to the plan), or None: no such harness, or another one writes a region there."""
    kept = REGISTRY[own].instructions.file(b.loc) if own is not None else None
    if own is None or kept is None or files.get(kept) != [own] \
            or b.package.instructions is None:
        return None
    del files[kept]
    b.artifacts.append(own_file(b.loc, kept, b.package.instructions.text, own))
    return kept


def route(loc: Location, path: Path, listed: str) -> Capability:
    """The route of a resource adopted in place: native, saying where it stays and how the
    harness lists it (`listed`: its own name, not `<package>:<name>`)."""
    return Capability("native", f"already in {loc.display(path)}: adopted where it is, "
                      f"{listed} (ADR 0096)", SOURCE)


def skill_label(skill: Skill, path: Path) -> str:
    """How a harness lists a skill of its own skill root: its frontmatter `name`, else its
    folder's name."""
    name = skill.frontmatter.get("name")
    return name if isinstance(name, str) and name else path.name


def listed(kind: str, name: str) -> str:
    """What the route says of how the harness lists a `kind` of its own places."""
    return f"the {kind} is listed as {name!r}, not under the package's name"


def skill_tree(loc: Location, package: Package, skill: Skill, path: Path,
               harnesses: tuple[str, ...]) -> PlannedTree:
    """The skill folder adopted where it is: exactly the package's files."""
    executables = frozenset(skill.inner(rel) for rel in skill.files
                            if package.files[rel].executable)
    return PlannedTree(path, loc.display(path), skill_files(package, skill), executables,
                       harnesses)


def own_file(loc: Location, path: Path, data: bytes, harness: str) -> PlannedFile:
    """An agent, command or instructions file adopted where it is: exactly the package's."""
    return PlannedFile(path, loc.display(path), data, (harness,))


class Served(msgspec.Struct, frozen=True):
    """One skill found in place: its folder, each harness it serves there (the route it takes
    at best, and its label), and the root choice for every other harness."""

    place: Path | None
    harnesses: dict[str, tuple[Capability, str]]
    others: RootChoice


class Keeper(msgspec.Struct, frozen=True):
    """Which harnesses a skill in place serves: the one that loads the plugin, and each other
    targeted harness that reads the same root and lists the skill there (OpenCode reads
    `.claude/skills/**/SKILL.md` with a frontmatter `name`, ADR 0048). The others are then
    served from roots none of those read (`apart`), or a skill would be listed twice."""

    loc: Location
    package: Package
    here: InPlace
    loader: str
    sharers: tuple[str, ...]
    normal: RootChoice
    apart: RootChoice

    def serve(self, skill: Skill) -> Served:
        """Where `skill` is served in place, if it is, and the roots for the rest."""
        if skill.name not in self.here.skills:
            return Served(None, {}, self.normal)
        place = skill_folder(self.loc, self.loader, skill)
        label = skill_label(skill, place)
        why = route(self.loc, place, listed("skill", label))
        served = {self.loader: (why, label)}
        if not self.sharers or not isinstance(skill.frontmatter.get("name"), str):
            return Served(place, served, self.normal)
        for harness in self.sharers:
            served[harness] = (_shared_route(self.loc, harness, skill, place), label)
        return Served(place, served, self.apart)


def keeper(loc: Location, package: Package, here: InPlace, loader: str, root: Path,
           reads: dict[str, tuple[Path, ...]], dedupes: set[str], normal: RootChoice
           ) -> Keeper:
    """The `Keeper` for skills in place in `root` (the loader's own skill root), given the
    roots each supported harness reads (`reads`) and the plan's usual choice (`normal`)."""
    sharers = tuple(h for h in reads if h != loader and root in REGISTRY[h].skills.roots(loc))
    avoid = {r for h in sharers for r in REGISTRY[h].skills.roots(loc)}
    rest = {h: tuple(r for r in roots if r not in avoid) for h, roots in reads.items()
            if h != loader and h not in sharers}
    apart = choose_roots(rest, dedupes & rest.keys())
    return Keeper(loc, package, here, loader, sharers, normal, apart)


def _shared_route(loc: Location, harness: str, skill: Skill, place: Path) -> Capability:
    """The route of a harness that lists the skill from the loader's folder in place: as that
    folder is, so degraded where its invoke policy would have been written for it."""
    dialect = REGISTRY[harness].skills.dialect(skill.invoke)
    user_only = REGISTRY[harness].skills.user_only is not None and skill.invoke.user \
        and not skill.invoke.model
    reason = (f"the skill already in {loc.display(place)}, which {harness} lists too: adopted "
              "where it is (ADR 0096)")
    if dialect.frontmatter or dialect.extra_files or user_only:
        return Capability("degraded", f"{reason}; its invoke policy is not written in "
                          f"{harness}'s terms there", SOURCE)
    return Capability("native", reason, SOURCE)
