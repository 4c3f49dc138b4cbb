"""`uze export --harness H [--scope project|user] [--name N] --out DIR`: what one harness has
in one scope, minus what uze owns, as one portable package (issue 34 item 1, ADR 0095).

Export reads the locations the harness's data names (`uze.exporting.harness`), leaves out
every artifact a receipt of the scope records, turns secrets in server definitions into
`${VARIABLE}` references, and writes the package into a new folder beside OUT that it renames
onto OUT only once the package reads back as `uze check` reads it. OUT must be absent or an
empty folder. On any error nothing is written (the temporary folder is removed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import msgspec

from uze import durability, fs
from uze.errors import UnknownHarness, UsageError, UzeError
from uze.exporting.config import HOOKS_FILE, document_json
from uze.exporting.harness import read_harness
from uze.exporting.model import Exported, Found, Left, Secret
from uze.exporting.owned import Owned, owned_by_uze
from uze.harnesses import HARNESS_IDS, REGISTRY, harness_id
from uze.harnesses.base import Harness
from uze.location import Location, checked_scope
from uze.names import name_problem
from uze.package import Package, read_package
from uze.package.layout import bare_name
from uze.paths import Paths
from uze.state.context import open_scope

VERSION: Final = "0.1.0"
CLAUDE_MANIFEST: Final = ".claude-plugin/plugin.json"


class ExportResult(msgspec.Struct, frozen=True):
    """What export wrote into `out`, what it left out and why, and each secret it replaced by
    a reference (never a value). `warnings` are what `uze check OUT` reports on the package;
    `notes` what an exported item still needs from where it came from."""

    harness: str
    scope: str
    package: str
    version: str
    out: Path
    files: tuple[str, ...]
    exported: tuple[Exported, ...]
    left: tuple[Left, ...]
    secrets: tuple[Secret, ...]
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        """The human view."""
        head = [f"exported {len(self.exported)} resources of {self.harness} ({self.scope} "
                f"scope) as the package {self.package} {self.version} into {self.out}"]
        head += [f"  {item.kind} {item.resource}: {item.source} -> {item.path}"
                 for item in self.exported]
        head += [f"secret: {item.server} {item.field} is now ${{{item.variable}}} (set "
                 f"{item.variable} where the package is installed)" for item in self.secrets]
        head += [f"not exported: {item.kind} {item.resource} ({item.source}): {item.reason}"
                 for item in self.left]
        head += [f"note: {line}" for line in self.notes]
        return head + [f"uze check: {line}" for line in self.warnings]

    def to_json(self) -> dict[str, Any]:
        """The `--json` document."""
        return {"schema": 1, "harness": self.harness, "scope": self.scope,
                "package": {"name": self.package, "version": self.version},
                "out": str(self.out), "files": list(self.files),
                "exported": [item.to_json() for item in self.exported],
                "not_exported": [item.to_json() for item in self.left],
                "secrets": [item.to_json() for item in self.secrets],
                "notes": list(self.notes), "warnings": list(self.warnings)}


def _harness(value: str) -> Harness:
    if "," in value or value.strip() == "all":
        raise UsageError(f"--harness {value!r}: export reads one harness",
                         hint=f"name one: --harness {HARNESS_IDS[0]}")
    found = harness_id(value.strip())
    if found is None:
        raise UnknownHarness(value, HARNESS_IDS)
    return REGISTRY[found]


def _name(given: str | None, harness: Harness, loc: Location) -> str:
    if given is not None:
        problem = name_problem(given)
        if problem is not None:
            raise UsageError(f"--name {given!r}: {problem}",
                             hint="use lowercase letters, digits and single hyphens")
        return given
    made = bare_name(loc.project.name) if loc.scope == "project" else None
    return made or f"{harness.binary}-setup"


def _check_out(out: Path, read_from: list[Path]) -> None:
    """Refuse an OUT that is not absent or an empty folder, whose parent is missing, or that
    lies where export reads (it would read itself next time)."""
    shown = str(out)
    absolute = out.resolve()
    for place in read_from:
        if absolute == place or absolute.is_relative_to(place):
            raise UsageError(f"--out {shown} is inside {place}, which export reads",
                             hint="choose a folder outside the harness's folders and .uze/")
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise UzeError(f"--out {shown}: exists and is not a folder",
                       hint="name a new folder (export creates it) or an empty one")
    if out.is_dir() and any(out.iterdir()):
        raise UzeError(f"--out {shown}: is a folder that is not empty",
                       hint="name a new folder (export creates it) or an empty one; export "
                            "never writes into or over your files")
    if not out.parent.is_dir():
        raise UzeError(f"--out {shown}: its parent folder {out.parent} does not exist",
                       hint=f"create it first (mkdir -p {out.parent}) or name another folder")


def _read_from(harness: Harness, loc: Location) -> list[Path]:
    places = [*harness.skills.roots(loc)]
    places += [harness.agents.folder(loc)] if harness.agents else []
    places += [harness.commands.folder(loc)] if harness.commands else []
    if loc.scope == "project":
        places.append(loc.project / ".uze")
    return [place.resolve() for place in places]


def _manifests(found: Found, name: str, harness: Harness, scope: str) -> None:
    head = {"name": name, "version": VERSION,
            "description": f"Exported from {harness.id} ({scope} scope) by uze export"}
    found.add("plugin.json", document_json(head))
    if HOOKS_FILE in found.files:  # Claude-protocol hooks: the combined layout (ADR 0095)
        found.add(CLAUDE_MANIFEST, document_json(head))


def _write(found: Found, out: Path) -> Package:
    """Write the package beside `out`, read it back as `uze check` does, rename it onto
    `out`; the package read. Nothing is left on failure."""
    temp = out.parent / f".{out.name}{fs.TEMP_MARK}export"
    if temp.exists() or temp.is_symlink():
        fs.remove_tree(temp)  # a killed export's leftover: only export writes this name
    fs.make_dir(temp)
    try:
        written = []
        for item in found.files.values():
            path = temp / item.relpath
            fs.create_new(path, item.data, 0o755 if item.executable else 0o644)
            written.append(path)
        durability.barrier(written)
        package = read_package(temp, deliverable=True)
        fs.rename(temp, out)
    except BaseException:
        fs.remove_tree(temp)
        raise
    return package


def export(paths: Paths, harness: str, *, out: Path, scope: str = "project",
           name: str | None = None, project: Path | None = None, cwd: Path) -> ExportResult:
    """Write what `harness` has in `scope` (minus what uze owns) into the new folder `out`.

    Raises UsageError for a bad argument; UzeError when OUT is taken, a config file does not
    parse, the harness has nothing to export, or has something export cannot read yet
    (`NotExportable`); PackageInvalid if the package would not read back. Writes only OUT."""
    chosen = _harness(harness)
    ctx = open_scope(paths, checked_scope(scope, ("project", "user")), project, cwd)
    package_name = _name(name, chosen, ctx.location)
    out = out if out.is_absolute() else cwd / out
    _check_out(out, _read_from(chosen, ctx.location))
    owned: Owned = owned_by_uze(ctx)
    found = read_harness(chosen, ctx.location, owned)
    if not found.exported:
        raise UzeError(
            f"nothing to export: {chosen.id} has nothing in {scope} scope that uze does not "
            "own", hint="uze reinstalls what it owns from uze.toml; nothing was written",
            details=[f"not exported: {item.kind} {item.resource} ({item.source}): "
                     f"{item.reason}" for item in found.left])
    _manifests(found, package_name, chosen, scope)
    package = _write(found, out)
    return ExportResult(chosen.id, scope, package_name, VERSION, out, tuple(sorted(found.files)),
                        tuple(found.exported), tuple(found.left), tuple(found.secrets),
                        tuple(package.warnings), tuple(found.notes))
