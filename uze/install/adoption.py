"""Adoption at install (ADR 0096): a target already there byte for byte, that no receipt of
the scope owns, is taken over instead of refused; one that differs is refused naming both
digests. An MCP server entry is compared by its portable form (ADR 0108, `same_server`).

Any `uze install` adopts what is exactly as it would write it (a file, a folder with exactly
the planned files, a config entry or hook element with an equal value, a region between uze's
markers): the receipt records it as delivered, nothing is written, and `uze uninstall` removes
it as anything uze wrote. A converge also adopts committed edits (ADR 0064,
`uze.install.edits`). Links are never followed: a link where a file or folder is planned
inspects as a conflict and stays refused, as a folder holding one does.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import TYPE_CHECKING, Final

import msgspec

from uze.errors import ConfigBroken, Conflict
from uze.harnesses import REGISTRY
from uze.plan import in_place as ip
from uze.plan.claude_plugin import delivered_whole
from uze.plan.in_place import NOTHING, InPlace
from uze.projections import tree
from uze.projections.digest import content_digest

if TYPE_CHECKING:
    from collections.abc import Sequence

    from uze.harnesses.base import Harness
    from uze.location import Location
    from uze.package import Package
    from uze.plan.model import PlannedArtifact, PlannedEntry
    from uze.state.context import Created, ScopeContext
    from uze.state.receipts import Artifact

ADOPTED: Final = ("already there byte for byte; adopted: uze owns it now, and `uze uninstall` "
                  "removes it")
_SHOWN: Final = 20  # digest lines under a refusal; the rest are counted


def refused(exc: Conflict, ctx: ScopeContext, planned: PlannedArtifact) -> Conflict:
    """`exc` (the refusal of a target that is there and not uze's) with its message and hint,
    and under it one line per differing file or entry naming both digests; `exc` itself when
    there is nothing to compare (a region, a hook element)."""
    lines = differences(ctx, planned)
    if not lines:
        return exc
    more = len(lines) - _SHOWN
    shown = [*lines[:_SHOWN], *([f"... and {more} more"] if more > 0 else [])]
    return Conflict(exc.target, exc.owner, hint=exc.hint, details=shown)


def differences(ctx: ScopeContext, planned: PlannedArtifact) -> list[str]:
    """What differs between the target on disk and what the install would write there:
    `<target>: on disk blake3:<hex>; the package's blake3:<hex>` per file (a folder: per file
    in it, a link or a file only one side has named as such) or per config entry. Empty for a
    region or hook element, a file that does not parse, or nothing there."""
    if planned.type == "file":
        live = _live(planned.path)
        return [] if live is None else [_line(planned.target, live,
                                              content_digest(planned.data))]
    if planned.type == "tree":
        return _folder(planned.path, planned.target, tree.digests_of(planned.files))
    if planned.type == "entry":
        from uze.projections import entry  # start-up: a skills-only install reads no config
        from uze.projections.config_entry import MISSING

        try:
            found = entry.read_value(planned.path, planned.fmt, planned.key_path, planned.target)
        except ConfigBroken:
            return []
        if found is MISSING:
            return []
        return [_line(planned.target + "#" + ".".join(planned.key_path),
                      f"blake3:{entry.value_digest(found)}",
                      entry.value_digest(planned.value))]
    return []


def same_server(ctx: ScopeContext, planned: PlannedArtifact, record: Artifact) -> Artifact | None:
    """`record` (of the planned MCP entry) with the digest of the entry on disk, when that
    entry is not byte for byte the planned one but is its server in portable form
    (`uze.plan.server_form`: what export writes and install reads, so a server written without
    `args`, or with a secret the package has as `${VAR}`); None otherwise: a real difference
    stays refused. Adopted so, the entry keeps its own bytes: status reads it matched and a
    re-install of the same package leaves it as it is."""
    if planned.type != "entry" or record.type != "entry":
        return None
    harness = _mcp_harness(ctx.location, planned)
    if harness is None:
        return None
    from uze.plan.server_form import portable_form  # start-up: only for an MCP entry
    from uze.projections import entry
    from uze.projections.config_entry import MISSING

    try:
        found = entry.read_value(planned.path, planned.fmt, planned.key_path, planned.target)
    except ConfigBroken:
        return None
    name = planned.key_path[-1]
    mine = portable_form(harness, name, planned.value)
    if found is MISSING or mine is None or portable_form(harness, name, found) != mine:
        return None
    return msgspec.structs.replace(record, digest=entry.value_digest(found))


def _mcp_harness(loc: Location, planned: PlannedEntry) -> Harness | None:
    """The harness whose MCP server entry `planned` is (None: another kind of entry)."""
    for harness in map(REGISTRY.__getitem__, planned.harnesses):
        target = harness.mcp
        if target is not None and target.file(loc) == planned.path \
                and target.key(loc, planned.key_path[-1]) == planned.key_path:
            return harness
    return None


def _line(target: str, live: str, planned: str) -> str:
    return f"{target}: on disk {live}; the package's blake3:{planned}"


def _live(path: Path) -> str | None:
    """How the file at `path` reads for a refusal: `blake3:<hex>`, or what it is instead (a
    link is never followed); None when nothing is there."""
    try:
        st = path.lstat()
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link (never followed)"
    if stat.S_ISDIR(st.st_mode):
        return "a folder"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    return f"blake3:{content_digest(path.read_bytes())}"


def _folder(folder: Path, target: str, planned: dict[str, str]) -> list[str]:
    what = _live(folder)
    if what is None:
        return []
    if what != "a folder":
        return [f"{target}: on disk {what}; the package's: a folder of {len(planned)} files"]
    live = tree.list_files(folder)
    out = []
    for rel in sorted(live.keys() | planned.keys()):
        where = f"{target}/{rel}"
        if rel not in planned:
            out.append(f"{where}: on disk {_live(Path(live[rel].path))}; not in the package")
        elif rel not in live:
            out.append(f"{where}: not on disk; the package's blake3:{planned[rel]}")
        elif (found := _live(Path(live[rel].path))) != f"blake3:{planned[rel]}":
            out.append(_line(where, str(found), planned[rel]))
    return out


def claim(ctx: ScopeContext, adopted: Sequence[PlannedArtifact], created: Created) -> None:
    """Note in `created` what an uninstall may tidy after the `adopted` artifacts go:
    each shared file holding one (removed only once nothing but uze's empty rendering is left
    in it, as for a file uze made) and, in a project, each folder on the way to an adopted
    target (removed only when empty). So install then uninstall of a package whose files were
    all there leaves the project without them and without their empty shells."""
    for planned in adopted:
        if planned.type in ("entry", "element", "region"):
            created.files.add(planned.target)
        if ctx.scope == "project":
            project = ctx.location.project
            created.dirs |= {ctx.location.display(folder) for folder in planned.path.parents
                             if folder.is_relative_to(project) and folder != project}


def in_place(loc: Location, package: Package, harnesses: tuple[str, ...]) -> InPlace:
    """Which resources of `package` the targeted harness that loads Claude plugins already has
    in its own places, byte for byte as the package has them (`uze.plan.in_place`), so the
    plan adopts them there instead of writing a plugin copy beside them. Nothing when no such
    harness is targeted or it gets the package whole. Reads only; a link where a file or
    folder is, or inside the folder, is never followed and makes the resource not in place."""
    loads = [h for h in harnesses if REGISTRY[h].claude_plugins is not None]
    if not loads or delivered_whole(package):
        return NOTHING
    harness = loads[0]
    skills = frozenset(
        skill.name for skill in package.skills
        if _holds_folder(ip.skill_folder(loc, harness, skill), ip.skill_files(package, skill)))
    agents = frozenset(
        agent.name for agent in package.agents
        if _holds(ip.agent_file(loc, harness, agent), package.files[agent.relpath].data))
    commands = frozenset(
        command.name for command in package.commands
        if _holds(ip.command_file(loc, harness, command), package.files[command.relpath].data))
    text = package.instructions.text if package.instructions is not None else None
    instructions = text is not None and _holds(ip.instructions_file(loc, harness), text)
    return InPlace(skills, agents, commands, instructions)


def _holds(path: Path | None, data: bytes) -> bool:
    """Whether `path` is a regular file (not a link) holding exactly `data`."""
    if path is None:
        return False
    try:
        return stat.S_ISREG(path.lstat().st_mode) and path.read_bytes() == data
    except OSError:
        return False


def _holds_folder(folder: Path, files: dict[str, bytes]) -> bool:
    """Whether `folder` is a folder (not a link) holding exactly `files` and nothing else."""
    try:
        if not stat.S_ISDIR(folder.lstat().st_mode):
            return False
        live = tree.list_files(folder)
    except OSError:
        return False
    return live.keys() == files.keys() and all(
        _holds(Path(live[rel].path), data) for rel, data in files.items())
