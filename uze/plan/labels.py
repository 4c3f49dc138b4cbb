"""What a user types to invoke a package's resource in each harness: computed here only.

A harness that loads uze's output as its own plugin (`Harness.claude_plugins`: Claude Code)
lists a package's resources qualified by the package, `<package>:<name>`, whichever route
carried them there: the package's own manifest (ADR 0041) or the one uze generates (ADR 0048).
Every other harness lists the flat, package-qualified names uze writes: `<package>-<name>`.
Stable across install order and other packages (the seeds' promise). Pure.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Final

from uze.harnesses import REGISTRY
from uze.package import Agent, Command, Package, Skill

SEP: Final = ":"  # measured with the real binary (ADR 0041): `<plugin>:<name>`


def qualified(harness: str) -> bool:
    """Whether `harness` lists a package's resources as `<package>:<name>` (its plugins)."""
    return REGISTRY[harness].claude_plugins is not None


# The harness whose labels a Claude plugin's own text spells (`superpowers:brainstorming`).
PLUGIN_HARNESS: Final = next(h.id for h in REGISTRY.values() if h.claude_plugins is not None)


def flat(package: str, *parts: str, siblings: Collection[str] = ()) -> str:
    """`<package>-<parts>`, the package named once: parts that already start with it (a skill
    `gh-cli` of the package `gh-cli`, an agent `c-review-worker` of `c-review`) are not
    prefixed again (issue 31 item 5), unless a sibling of the same kind is named by the rest
    (`siblings`: a skill `plan` beside `kit-plan` in `kit`), which would be the same name: then
    the package is named twice (`kit-kit-plan`). Injective over one kind of one package."""
    joined = "-".join(parts)
    if joined == package:
        return joined
    if joined.startswith(f"{package}-") and joined.removeprefix(f"{package}-") not in siblings:
        return joined
    return f"{package}-{joined}"


def skill_folder_name(package: Package, skill: Skill) -> str:
    """Package-qualified, stable folder (and frontmatter) name: `<package>-<skill>`."""
    return flat(package.name, skill.name, siblings={s.name for s in package.skills})


def own_name(resource: Skill | Agent) -> str:
    """The resource's own name: its frontmatter `name`, else its file or folder name (Claude
    Code lists `agents/team/planner.md` named `lead` as `<package>:team:lead`; a harness that
    scans skill folders lists a plugin's skill by its frontmatter `name`)."""
    given = resource.frontmatter.get("name")
    return given.strip() if isinstance(given, str) and given.strip() else resource.name


def flat_agent_name(package: Package, agent: Agent) -> str:
    """`<package>-<subdirs>-<name>`: the file and frontmatter name of an agent uze writes
    outside a plugin; stable and unique within the package (and across packages but for
    names that spell another package's prefix)."""
    siblings = {"-".join((*a.subdirs, a.name)) for a in package.agents}
    return flat(package.name, *agent.subdirs, agent.name, siblings=siblings)


def flat_command_name(package: Package, command: Command) -> str:
    """`<package>-<subdirs>-<name>`: a command's file name outside a plugin."""
    siblings = {"-".join((*c.subdirs, c.name)) for c in package.commands}
    return flat(package.name, *command.subdirs, command.name, siblings=siblings)


def command_skill_folder(package: Package, command: Command) -> str:
    """The folder of the user-invoked skill that carries a command where a harness has no
    command surface: its flat name, `-command` added when a skill of the package has it."""
    flat = flat_command_name(package, command)
    taken = {skill_folder_name(package, skill) for skill in package.skills}
    return f"{flat}-command" if flat in taken else flat


def skill(harness: str, package: Package, skill: Skill) -> str:
    """`<package>:<skill>` in a plugin harness, else `<package>-<skill>`."""
    if qualified(harness):
        return f"{package.name}{SEP}{skill.name}"
    return skill_folder_name(package, skill)


def command(harness: str, package: Package, command: Command, *, surface: bool) -> str:
    """`<package>:<subdirs>:<name>` in a plugin harness; elsewhere the flat name of the
    command file (`surface`: the harness has command files) or of the skill that carries it."""
    if qualified(harness):
        return SEP.join((package.name, *command.subdirs, command.name))
    if surface:
        return flat_command_name(package, command)
    return command_skill_folder(package, command)


def agent(harness: str, package: Package, agent: Agent) -> str:
    """`<package>:<subdirs>:<name>` in a plugin harness (the name as `agent_name`), else the
    flat name."""
    if qualified(harness):
        return SEP.join((package.name, *agent.subdirs, own_name(agent)))
    return flat_agent_name(package, agent)
