"""A command (Claude Code's format) for each harness: its own command surface where it has one,
else a user-invoked skill (DESIGN section 5). Pure: bytes, a route and a reason.

- Claude Code: the file as written, in `.claude/commands/` (native).
- OpenCode: a Markdown command in `.opencode/commands/`; its templates read `$ARGUMENTS`, `$1`,
  `@file` and `` !`cmd` `` as Claude's do; Claude-only keys are left out (adapted).
- Gemini CLI: a TOML command in `.gemini/commands/` (`description`, `prompt`): `$ARGUMENTS`
  becomes `{{args}}`, `` !`cmd` `` becomes `!{cmd}`, `@path` becomes `@{path}`; positional
  `$1`... have no equivalent (degraded).
- Every other harness: a skill only the user invokes, the body as its instructions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Final

import msgspec
import yaml

from uze.harnesses import claude_code, gemini_cli, opencode
from uze.location import Location
from uze.package import Command
from uze.vocabulary import Route

SURFACES: Final = ("claude_code", "opencode", "gemini_cli")
_POSITIONAL: Final = re.compile(r"\$[1-9]")
_SHELL: Final = re.compile(r"!`([^`\n]+)`")
_FILE_REF: Final = re.compile(r"(?<![\w@{])@([\w./-]*[\w/-])")
_CLAUDE_ONLY: Final = ("allowed-tools", "argument-hint", "model", "disable-model-invocation")
_FOLDERS: Final[dict[str, Callable[[Location], Path]]] = {
    "claude_code": lambda loc: loc.pick(".claude/commands",
                                        claude_code.config_dir(loc.paths) / "commands"),
    "opencode": lambda loc: loc.pick(".opencode/commands",
                                     opencode.config_dir(loc.paths) / "commands"),
    "gemini_cli": lambda loc: loc.pick(".gemini/commands",
                                       gemini_cli.gemini_dir(loc.paths) / "commands"),
}
_SUFFIX: Final = {"claude_code": ".md", "opencode": ".md", "gemini_cli": ".toml"}


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
    return _gemini(command)


def _gemini(command: Command) -> RenderedCommand:
    import tomlkit  # only a Gemini command needs it

    prompt = command.body.replace("$ARGUMENTS", "{{args}}")
    prompt = _SHELL.sub(lambda m: "!{" + m.group(1) + "}", prompt)
    prompt = _FILE_REF.sub(lambda m: "@{" + m.group(1) + "}", prompt)
    document = tomlkit.document()
    document.add("description", command.description)
    document.add("prompt", tomlkit.string(prompt, multiline=True))
    notes = ["a Gemini CLI TOML command: $ARGUMENTS as {{args}}, !`cmd` as !{cmd}, @path as "
             "@{path}"]
    why = _dropped(command, "Gemini CLI")
    if _POSITIONAL.search(command.body):
        notes.append("Gemini CLI has no positional arguments: $1... stay literal")
        return RenderedCommand(tomlkit.dumps(document).encode(), "degraded",
                               "; ".join(filter(None, [*notes, why])))
    return RenderedCommand(tomlkit.dumps(document).encode(), "adapted",
                           "; ".join(filter(None, [*notes, why])))


def command_skill(label: str, command: Command) -> bytes:
    """SKILL.md of the user-invoked skill that carries a command where there is no command
    surface; `invoke: {model: false, user: true}` is translated per harness like any skill's."""
    head = {"name": label, "description": command.description,
            "invoke": {"model": False, "user": True}}
    front = yaml.safe_dump(head, sort_keys=False, allow_unicode=True)
    return f"---\n{front}---\n{command.body}".encode()
