"""Export's file kinds: skills, agents and commands, read from the folders the harness's data
names (`Harness.skills.roots`, `agents.folder`, `commands.folder`), each copied byte for byte
with its executable bit (ADR 0095). What uze owns is skipped; what is not a resource the
package format carries is listed with the reason."""

from __future__ import annotations

from pathlib import Path

from uze.exporting.model import Exported, ExportKind, Found, Left
from uze.exporting.owned import Owned
from uze.location import Location
from uze.names import name_problem
from uze.package.tree import read_tree

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


def read_files(kind: ExportKind, folder: Path, suffix: str, loc: Location, owned: Owned,
               found: Found) -> None:
    """Each `*<suffix>` file below `folder` (agents, commands), at the same path below
    `<kind>s/` in the package; the resource is its path without the suffix."""
    if not folder.is_dir():
        return
    for path in sorted(folder.rglob(f"*{suffix}")):
        relpath = path.relative_to(folder).as_posix()
        if owned.owns_path(path) or any(part.startswith(".") for part in path.relative_to(
                folder).parts):
            continue
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
