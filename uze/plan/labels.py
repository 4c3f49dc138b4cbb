"""What a user types to invoke a package's resource in each harness: computed here only.

A harness that loads uze's output as its own plugin (`Harness.claude_plugins`: Claude Code)
lists a package's resources qualified by the package, `<package>:<name>`, whichever route
carried them there: the package's own manifest (ADR 0041) or the one uze generates (ADR 0048).
Every other harness lists the flat, package-qualified names uze writes: `<package>-<name>`.
Stable across install order and other packages (the seeds' promise). Pure.
"""

from __future__ import annotations

from typing import Final

from uze.harnesses import REGISTRY
from uze.package import Agent, Command, Package, Skill

SEP: Final = ":"  # measured with the real binary (ADR 0041): `<plugin>:<name>`


def qualified(harness: str) -> bool:
    """Whether `harness` lists a package's resources as `<package>:<name>` (its plugins)."""
    return REGISTRY[harness].claude_plugins is not None


# The harness whose labels a Claude plugin's own text spells (`superpowers:brainstorming`).
PLUGIN_HARNESS: Final = next(h.id for h in REGISTRY.values() if h.claude_plugins is not None)


def flat(package: str, *parts: str) -> str:
    """`<package>-<parts>`, the package named once: parts that already start with it (a skill
    `gh-cli` of the package `gh-cli`, an agent `c-review-worker` of `c-review`) are not
    prefixed again (issue 31 item 5)."""
    joined = "-".join(parts)
    if joined == package or joined.startswith(f"{package}-"):
        return joined
    return f"{package}-{joined}"


def skill_folder_name(package: str, skill: Skill) -> str:
    """Package-qualified, stable folder (and frontmatter) name: `<package>-<skill>`."""
    return flat(package, skill.name)


def own_name(resource: Skill | Agent) -> str:
    """The resource's own name: its frontmatter `name`, else its file or folder name (Claude
    Code lists `agents/team/planner.md` named `lead` as `<package>:team:lead`; a harness that
    scans skill folders lists a plugin's skill by its frontmatter `name`)."""
    given = resource.frontmatter.get("name")
    return given.strip() if isinstance(given, str) and given.strip() else resource.name


def flat_agent_name(package: str, agent: Agent) -> str:
    """`<package>-<subdirs>-<name>`: the file and frontmatter name of an agent uze writes
    outside a plugin; stable and unique across packages."""
    return flat(package, *agent.subdirs, agent.name)


def flat_command_name(package: str, command: Command) -> str:
    """`<package>-<subdirs>-<name>`: a command's file name outside a plugin."""
    return flat(package, *command.subdirs, command.name)


def command_skill_folder(package: Package, command: Command) -> str:
    """The folder of the user-invoked skill that carries a command where a harness has no
    command surface: its flat name, `-command` added when a skill of the package has it."""
    flat = flat_command_name(package.name, command)
    taken = {skill_folder_name(package.name, skill) for skill in package.skills}
    return f"{flat}-command" if flat in taken else flat


def skill(harness: str, package: Package, skill: Skill) -> str:
    """`<package>:<skill>` in a plugin harness, else `<package>-<skill>`."""
    if qualified(harness):
        return f"{package.name}{SEP}{skill.name}"
    return skill_folder_name(package.name, skill)


def command(harness: str, package: Package, command: Command, *, surface: bool) -> str:
    """`<package>:<subdirs>:<name>` in a plugin harness; elsewhere the flat name of the
    command file (`surface`: the harness has command files) or of the skill that carries it."""
    if qualified(harness):
        return SEP.join((package.name, *command.subdirs, command.name))
    if surface:
        return flat_command_name(package.name, command)
    return command_skill_folder(package, command)


def agent(harness: str, package: Package, agent: Agent) -> str:
    """`<package>:<subdirs>:<name>` in a plugin harness (the name as `agent_name`), else the
    flat name."""
    if qualified(harness):
        return SEP.join((package.name, *agent.subdirs, own_name(agent)))
    return flat_agent_name(package.name, agent)
