"""A command (Claude Code's format) for each harness: its own command surface where it has one,
else a user-invoked skill (docs/harnesses.md). Pure: bytes, a route and a reason.

- A harness with a `CommandSurface` in its module renders the command itself: Claude Code
  writes the file as written in `.claude/commands/` (native); OpenCode a Markdown command in
  `.opencode/commands/` without Claude-only keys (adapted).
- Gemini CLI: a TOML command in `.gemini/commands/` (a Gemini command as written, native; a
  Claude command translated, adapted; adr/0068).
- Every other harness: a skill only the user invokes, the body as its instructions. What
  the skill loses is said only where the command has it (`skill_losses`): arguments a body
  uses (`$ARGUMENTS`, `$1`...; a skill gets none substituted) and the frontmatter keys a skill
  does not carry (`model`, `allowed-tools`, `argument-hint`).
- A command read from another format (a Gemini CLI TOML command, `Command.converted`) is
  written to Claude Code's and OpenCode's surfaces as Markdown made from it (`source`):
  adapted, its reason saying so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import msgspec

from uze.harnesses import REGISTRY
from uze.location import Location
from uze.package import Command, InvokePolicy
from uze.patterns import compile_later
from uze.projections.frontmatter import edit_frontmatter, plain_dump
from uze.vocabulary import Route

# The harnesses with their own command files (`Harness.commands`), in registry order.
SURFACES: Final = tuple(h.id for h in REGISTRY.values() if h.commands is not None)


class RenderedCommand(msgspec.Struct, frozen=True):
    """The bytes for one harness, its route and what differs (the reason)."""

    data: bytes
    route: Route
    reason: str


def command_file(harness: str, loc: Location, label: str) -> Path:
    """Where `harness` reads the command `label` (one of SURFACES)."""
    surface = REGISTRY[harness].commands
    if surface is None:
        raise ValueError(f"{harness} has no command surface uze writes")
    return surface.folder(loc) / f"{label}{surface.suffix}"


def render_command(harness: str, command: Command, raw: bytes) -> RenderedCommand:
    """The command for a harness with its own command surface (one of SURFACES); `raw` is
    the command's file: given as written to a surface of its own format (a Gemini CLI TOML
    command to Gemini CLI's), else as Markdown (`source`)."""
    surface = REGISTRY[harness].commands
    if surface is None:
        raise ValueError(f"{harness} has no command surface uze writes")  # callers check
    own = bool(command.converted) == (surface.suffix == ".toml")
    original = raw if own else source(command, {command.relpath: raw})
    rendered = RenderedCommand(*surface.render(command, original))
    if not command.converted or own:
        return rendered
    reason = "; ".join(filter(None, [command.converted, rendered.reason]))
    route: Route = "adapted" if rendered.route == "native" else rendered.route
    return RenderedCommand(rendered.data, route, reason)


def source(command: Command, files: dict[str, bytes]) -> bytes:
    """The command's Markdown file: as written, or made from a command of another format."""
    if not command.converted:
        return files[command.relpath]
    front = plain_dump(command.frontmatter)
    if front is None and command.frontmatter:
        import yaml  # start-up: YAML loads only for a command header that is not plain text

        front = yaml.safe_dump(dict(command.frontmatter), sort_keys=False, allow_unicode=True)
    head = f"---\n{front}---\n" if command.frontmatter else ""
    return f"{head}{command.body}".encode()


_ARGUMENTS: Final = compile_later(r"\$(ARGUMENTS\b|[0-9])")
_SHELL: Final = compile_later(r"!`([^`\n]+)`")  # as uze.trust reads a command's inline shell
# The frontmatter keys of a Claude command a skill does not carry, and what each loss means.
_SKILL_DROPS: Final = {
    "model": "it runs on the session's model, not {value!r}",
    "allowed-tools": "its allowed-tools ({value}) are not granted: the harness asks as usual",
    "argument-hint": "its argument hint is not shown",
}


def skill_losses(harness: str, command: Command) -> tuple[list[str], list[str]]:
    """What a command loses as a skill in `harness`: (losses that make the route degraded,
    notes). Only what the command has is named."""
    lost: list[str] = []
    if _ARGUMENTS.search(command.body):
        lost.append(f"its body uses {', '.join(sorted(set(_uses(command.body))))}, which "
                    f"{harness} does not substitute in a skill: the arguments reach the model "
                    "only as the words after the skill's name")
    shells = _SHELL.findall(command.body)
    if shells:
        lost.append(f"its body runs {len(shells)} inline shell line(s) (!`...`) when invoked "
                    f"as a command; {harness} shows them to the model as text in a skill")
    notes: list[str] = []
    for key, why in _SKILL_DROPS.items():
        value = command.frontmatter.get(key)
        if value not in (None, "", []):
            shown = value if isinstance(value, str) else ", ".join(map(str, value)) if \
                isinstance(value, list) else value
            (lost if key == "model" else notes).append(why.format(value=shown))
    return lost, notes


def _uses(body: str) -> list[str]:
    return [f"${match.group(1)}" for match in _ARGUMENTS.finditer(body)]


def command_skill(label: str, command: Command) -> bytes:
    """SKILL.md of the user-invoked skill that carries a command where there is no command
    surface; `invoke: {model: false, user: true}` is translated per harness like any skill's."""
    import yaml  # start-up: YAML loads only to write a command (ADR 0051)

    head = {"name": label, "description": command.description,
            "invoke": {"model": False, "user": True}}
    front = yaml.safe_dump(head, sort_keys=False, allow_unicode=True)
    return f"---\n{front}---\n{command.body}".encode()


def policy_files(files: dict[str, bytes], harnesses: tuple[str, ...]) -> dict[str, bytes]:
    """A user-only skill's files with its `invoke` policy in each harness's own terms."""
    keys: dict[str, object] = {}
    for harness in harnesses:
        dialect = REGISTRY[harness].skills.dialect(InvokePolicy(model=False, user=True))
        keys.update(dialect.frontmatter)
        for rel, render in dialect.extra_files.items():
            files[rel] = render(files.get(rel))
    files["SKILL.md"] = edit_frontmatter(files["SKILL.md"], keys, drop=["invoke"])
    return files
