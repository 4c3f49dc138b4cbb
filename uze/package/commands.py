"""Commands: `commands/**/<name>.md` (and what the Claude manifest's `commands` names), read
in Claude Code's command format: frontmatter (`description`, `argument-hint`, `allowed-tools`,
`model`, `disable-model-invocation`) and a body with `$ARGUMENTS`, `$1`, `@file`, `!` shell.

A command that cannot be read (not UTF-8, frontmatter not YAML) is skipped with a located
warning; so is a second command of one name. A name that breaks the rule is made valid.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Final

from uze.package.issues import issue
from uze.package.layout import ComponentPaths, bare_name, files_under
from uze.package.model import Command
from uze.package.names import name_problem
from uze.package.tree import Tree
from uze.package.validate import read_frontmatter

COMMANDS: Final = "commands"


def validate_commands(
    tree: Tree, paths: ComponentPaths, warnings: list[str]
) -> tuple[Command, ...]:
    """Every command of the package, sorted by name; what cannot be read is a warning."""
    roots = (COMMANDS, *paths.commands)
    found: dict[str, Command] = {}
    for relpath in files_under(tree, roots, ".md"):
        command = _read(tree, relpath, roots, warnings)
        if command is None:
            continue
        if command.name in found:
            used = found[command.name].relpath
            warnings.append(issue(relpath, f"command name {command.name!r} is already used by "
                                  f"{used}; skipped"))
            continue
        found[command.name] = command
    return tuple(found[name] for name in sorted(found))


def _read(tree: Tree, relpath: str, roots: tuple[str, ...], warnings: list[str]) -> Command | None:
    parsed = read_frontmatter(tree, relpath, warnings)
    if parsed is None:
        return None
    frontmatter, body = parsed
    stem = PurePosixPath(relpath).stem
    name = stem if name_problem(stem) is None else bare_name(stem)
    if name is None:
        warnings.append(issue(relpath, f"{name_problem(stem)} (the file name is the command's "
                              "name); skipped"))
        return None
    if name != stem:
        warnings.append(issue(relpath, f"{name_problem(stem)}; installed as {name!r}"))
    return Command(name, relpath, frontmatter, body, _subdirs(relpath, roots))


def _subdirs(relpath: str, roots: tuple[str, ...]) -> tuple[str, ...]:
    if relpath in roots:
        return ()
    root = max((r for r in roots if relpath.startswith(f"{r}/")), key=len, default="")
    inner = relpath[len(root) + 1 :] if root else relpath
    return PurePosixPath(inner).parent.parts
