"""A command (Claude Code's format) for each harness: its own command surface where it has one,
else a user-invoked skill (docs/harnesses.md). Pure: bytes, a route and a reason.

- Claude Code: the file as written, in `.claude/commands/` (native).
- OpenCode: a Markdown command in `.opencode/commands/`; its templates read `$ARGUMENTS`, `$1`,
  `@file` and `` !`cmd` `` as Claude's do; Claude-only keys are left out (adapted).
- Every other harness: a skill only the user invokes, the body as its instructions. (Gemini
  CLI's own TOML commands are not written until a real-binary oracle shows they load.)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Final

import msgspec
import yaml

from uze.harnesses import claude_code, opencode
from uze.location import Location
from uze.package import Command
from uze.vocabulary import Route

SURFACES: Final = ("claude_code", "opencode")
_CLAUDE_ONLY: Final = ("allowed-tools", "argument-hint", "model", "disable-model-invocation")
_FOLDERS: Final[dict[str, Callable[[Location], Path]]] = {
    "claude_code": lambda loc: loc.pick(".claude/commands",
                                        claude_code.config_dir(loc.paths) / "commands"),
    "opencode": lambda loc: loc.pick(".opencode/commands",
                                     opencode.config_dir(loc.paths) / "commands"),
}
_SUFFIX: Final = {"claude_code": ".md", "opencode": ".md"}


class RenderedCommand(msgspec.Struct, frozen=True):
    """The bytes for one harness, its route and what differs (the reason)."""

    data: bytes
    route: Route
    reason: str


def command_label(package: str, command: Command) -> str:
    """`<package>-<subdirs>-<name>`: the name a user types, stable across install order."""
    return "-".join((package, *command.subdirs, command.name))


def command_file(harness: str, loc: Location, label: str) -> Path:
    """Where `harness` reads the command `label` (one of SURFACES)."""
    return _FOLDERS[harness](loc) / f"{label}{_SUFFIX[harness]}"


def _dropped(command: Command, harness: str) -> str:
    found = [key for key in _CLAUDE_ONLY if key in command.frontmatter]
    return f"Claude-only keys left out for {harness}: {', '.join(found)}" if found else ""


def render_command(harness: str, command: Command, original: bytes) -> RenderedCommand:
    """The command for a harness with its own command surface (one of SURFACES)."""
    if harness == "claude_code":
        return RenderedCommand(original, "native", "")
    if harness == "opencode":
        head = {"description": command.description}
        front = yaml.safe_dump(head, sort_keys=False, allow_unicode=True)
        data = f"---\n{front}---\n{command.body}".encode()
        why = _dropped(command, "OpenCode")
        return RenderedCommand(data, "adapted", "; ".join(filter(None, [
            "an OpenCode command (.opencode/commands)", why])))
    raise ValueError(f"{harness} has no command surface uze writes")  # callers check SURFACES


def command_skill(label: str, command: Command) -> bytes:
    """SKILL.md of the user-invoked skill that carries a command where there is no command
    surface; `invoke: {model: false, user: true}` is translated per harness like any skill's."""
    head = {"name": label, "description": command.description,
            "invoke": {"model": False, "user": True}}
    front = yaml.safe_dump(head, sort_keys=False, allow_unicode=True)
    return f"---\n{front}---\n{command.body}".encode()
