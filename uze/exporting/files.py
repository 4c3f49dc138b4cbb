"""Export's file kinds: skills, agents and commands, read from the folders the harness's data
names (`Harness.skills.roots`, `agents.folder`, `commands.folder`), each copied byte for byte
with its executable bit (ADR 0095). What uze owns is skipped; what is not a resource the
package format carries is listed with the reason."""

from __future__ import annotations

from pathlib import Path

import yaml

from uze.exporting.model import Exported, ExportKind, Found, Left
from uze.exporting.owned import Owned
from uze.location import Location
from uze.names import name_problem
from uze.package.gemini import COMMANDS, read_commands
from uze.package.tree import PackageFile, Tree, read_tree

CLAUDE_PLUGIN_MANIFEST = ".claude-plugin/plugin.json"


def _children(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(child for child in folder.iterdir() if not child.name.startswith("."))


def _skill_problem(folder: Path) -> str | None:
    """Why the folder is not a skill the package format carries, or None."""
    if (folder / CLAUDE_PLUGIN_MANIFEST).is_file():
        return ("a Claude Code plugin folder (loaded as <name>@skills-dir), not a skill: its "
                "own manifest, not a package resource")
    if not folder.is_dir():
        return "not a folder: a skill is a folder holding SKILL.md"
    if not (folder / "SKILL.md").is_file():
        return "no SKILL.md: not a skill"
    problem = name_problem(folder.name)
    return f"{problem}; rename the folder to export it" if problem else None


def read_skills(roots: tuple[Path, ...], loc: Location, owned: Owned, found: Found) -> None:
    """Each skill folder of each root (the first root holding a name wins), every file in it:
    `skills/<name>/...`. A link to a folder is read where it points (the `skills` CLI links
    skills into a harness's root)."""
    seen: dict[str, str] = {}
    for root in roots:
        for folder in _children(root):
            if owned.owns_path(folder):
                continue
            source = loc.display(folder)
            problem = _skill_problem(folder)
            if problem is None and folder.name in seen:
                problem = f"a skill of this name is already read from {seen[folder.name]}"
            if problem is None:
                problem = _copy_skill(folder, found)
            if problem is not None:
                found.left.append(Left("skill", folder.name, source, problem))
                continue
            seen[folder.name] = source
            found.exported.append(Exported("skill", folder.name, source,
                                           f"skills/{folder.name}"))


def _copy_skill(folder: Path, found: Found) -> str | None:
    """Copy the skill's files into `found`; the first problem reading them, or None."""
    tree = read_tree(folder.resolve())
    if tree.issues:
        return f"cannot be read whole: {tree.issues[0]}"
    for relpath, item in sorted(tree.files.items()):
        found.add(f"skills/{folder.name}/{relpath}", item.data, item.executable)
    return None


def resource_files(folder: Path, suffix: str, owned: Owned) -> list[tuple[Path, str]]:
    """Each `*<suffix>` file below `folder` that uze does not own and no hidden folder holds,
    with its path inside `folder` (POSIX), sorted."""
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.rglob(f"*{suffix}")):
        inner = path.relative_to(folder)
        if not owned.owns_path(path) and not any(part.startswith(".") for part in inner.parts):
            found.append((path, inner.as_posix()))
    return found


def read_files(kind: ExportKind, folder: Path, suffix: str, loc: Location, owned: Owned,
               found: Found) -> None:
    """Each `*<suffix>` file below `folder` (agents, commands), at the same path below
    `<kind>s/` in the package; the resource is its path without the suffix."""
    for path, relpath in resource_files(folder, suffix, owned):
        resource = relpath[: -len(suffix)]
        source = loc.display(path)
        if not path.is_file():
            found.left.append(Left(kind, resource, source, "not a file"))
            continue
        try:
            data = path.read_bytes()
        except OSError as error:
            found.left.append(Left(kind, resource, source,
                                   f"cannot be read: {error.strerror}"))
            continue
        target = f"{kind}s/{relpath}"
        found.add(target, data, bool(path.stat().st_mode & 0o100))
        found.exported.append(Exported(kind, resource, source, target))


def read_toml_commands(folder: Path, loc: Location, owned: Owned, found: Found) -> None:
    """Gemini CLI's TOML commands below `folder`, read by the reader uze has for a Gemini
    extension's commands (`uze.package.gemini.read_commands`: `{{args}}` as `$ARGUMENTS`,
    `!{...}` as `!`...``, `@{...}` as `@path`), written as Markdown commands
    `commands/<path>.md`; what it skips is listed with its reason."""
    files = {}
    for path, inner in resource_files(folder, ".toml", owned):
        try:
            files[f"{COMMANDS}{inner}"] = PackageFile(f"{COMMANDS}{inner}", path.read_bytes(),
                                                      False)
        except OSError as error:
            found.left.append(Left("command", inner, loc.display(path),
                                   f"cannot be read: {error.strerror}"))
    warnings: list[str] = []
    for command in read_commands(Tree(files=files, seen=set(files)), warnings):
        source = loc.display(folder / command.relpath[len(COMMANDS):])
        label = "/".join((*command.subdirs, command.name))
        head = yaml.safe_dump(dict(command.frontmatter), sort_keys=False, allow_unicode=True,
                              width=1000) if command.frontmatter else ""
        text = f"---\n{head}---\n{command.body}" if head else command.body
        target = f"commands/{label}.md"
        found.add(target, (text if text.endswith("\n") else f"{text}\n").encode())
        found.exported.append(Exported("command", label, source, target))
    for line in warnings:
        relpath = line.split(": ")[0]
        source = loc.display(folder / relpath[len(COMMANDS):])
        found.left.append(Left("command", relpath[len(COMMANDS):], source, line))
