"""A command (Claude Code's format) for each harness: its own command surface where it has one,
else a user-invoked skill (docs/harnesses.md). Pure: bytes, a route and a reason.

- A harness with a `CommandSurface` in its module renders the command itself: Claude Code
  writes the file as written in `.claude/commands/` (native); OpenCode a Markdown command in
  `.opencode/commands/` without Claude-only keys (adapted).
- Every other harness: a skill only the user invokes, the body as its instructions. (Gemini
  CLI's own TOML commands are not written until a real-binary oracle shows they load.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import msgspec

from uze.harnesses import REGISTRY
from uze.location import Location
from uze.package import Command
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


def render_command(harness: str, command: Command, original: bytes) -> RenderedCommand:
    """The command for a harness with its own command surface (one of SURFACES)."""
    surface = REGISTRY[harness].commands
    if surface is None:
        raise ValueError(f"{harness} has no command surface uze writes")  # callers check
    return RenderedCommand(*surface.render(command, original))


def command_skill(label: str, command: Command) -> bytes:
    """SKILL.md of the user-invoked skill that carries a command where there is no command
    surface; `invoke: {model: false, user: true}` is translated per harness like any skill's."""
    import yaml  # start-up: YAML loads only to write a command (ADR 0051)

    head = {"name": label, "description": command.description,
            "invoke": {"model": False, "user": True}}
    front = yaml.safe_dump(head, sort_keys=False, allow_unicode=True)
    return f"---\n{front}---\n{command.body}".encode()
