"""`uze pack DIR --out OUT [--check] [--marketplace NAME]`: one portable package -> one folder
per publishing harness in its own plugin format (issue 34 item 4, ADRs 0091 and 0097).

Pack reads the package with the reader install uses (every problem at once, nothing written),
computes every output file in memory (`uze.packing`), and only then writes. The output is a
function of the package's bytes alone (keys sorted, 2-space JSON, one final newline).
`check=True` writes nothing and lists each file that differs from what pack would write
(missing, other bytes, other executable bit).

OUT holds `<harness>/` per envelope (`uze.packing.envelopes`: the Claude Code plugin, the Codex
plugin, the Gemini CLI extension), each a complete folder its harness loads. With
`marketplace`, DIR is a folder of packages (each subfolder with a `plugin.json`): each is packed
into `OUT/<package>/`, and OUT gets both catalogs (`uze.packing.catalogs`). OUT may be a direct
subfolder of DIR (`uze pack . --out dist`: DIR is read without it); deeper inside DIR, or DIR
itself, is a usage error. Files of OUT pack does not write are left alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from uze.errors import UsageError, UzeError
from uze.fs import atomic_write, make_dir
from uze.names import name_problem
from uze.package import Package, read_package
from uze.package.layout import CODEX_MANIFEST, PORTABLE_MANIFEST
from uze.packing.catalogs import catalogs
from uze.packing.envelopes import Envelope, claude_harness, envelope_harness, envelopes
from uze.packing.files import PackedFile
from uze.packing.hooks import not_packed


class PackResult(msgspec.Struct, frozen=True):
    """What pack wrote (or, with `check`, found different: `differs`), and what it left out."""

    package: str  # the package's name, or the marketplace's
    out: Path
    files: tuple[str, ...]
    envelopes: tuple[str, ...]  # the envelope folders, relative to OUT
    differs: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    checked: bool = False
    catalogs: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        """The human view: what was written (or differs), and what was left out."""
        if self.checked and self.differs:
            head = [f"{self.out}: {len(self.differs)} of {len(self.files)} files differ from "
                    f"what `uze pack` writes for {self.package}:",
                    *(f"  {path}" for path in self.differs)]
        elif self.checked:
            head = [f"{self.out}: all {len(self.files)} files are as `uze pack` writes them "
                    f"for {self.package}"]
        else:
            head = [f"packed {self.package} into {self.out}: {len(self.files)} files, "
                    f"envelopes {', '.join(f'{e}/' for e in self.envelopes)}",
                    *(f"catalog {path}" for path in self.catalogs)]
        return [*head, *(f"not packed: {line}" for line in self.skipped)]

    def to_json(self) -> dict[str, Any]:
        """The `--json` document."""
        return {"schema": 2, "package": self.package, "out": str(self.out),
                "files": list(self.files), "envelopes": list(self.envelopes),
                "catalogs": list(self.catalogs), "checked": self.checked,
                "differs": list(self.differs), "skipped": list(self.skipped)}


def _inside(path: Path, folder: Path) -> bool:
    return path != folder and path.is_relative_to(folder)


def _read(source: Path, out: Path) -> Package:
    """The portable package at `source`; OUT a direct subfolder of it is not read."""
    if not (source / PORTABLE_MANIFEST).is_file():
        raise UzeError(f"{source}: not a portable package (no plugin.json at its root)",
                       hint="pack reads a package in uze's format (docs/package-format.md)")
    skip = frozenset({out.name}) if out.parent == source else frozenset()
    return read_package(source, deliverable=True, skip=skip)


def _envelope_files(package: Package, prefix: str) -> tuple[list[PackedFile], list[str],
                                                            list[Envelope]]:
    made = envelopes(package)
    files = [PackedFile(f"{prefix}{e.harness}/{item.relpath}", item.data, item.executable)
             for e in made for item in e.files]
    skipped = [line for e in made for line in e.skipped] + not_packed(package)
    return files, skipped, made


def planned(source: Path, out: Path, marketplace: str | None = None
            ) -> tuple[str, list[PackedFile], list[str], list[str], list[str]]:
    """Read `source` and compute every file pack writes into `out`: (name, files, skipped,
    envelope folders, catalogs). Raises before any write."""
    source, out = source.resolve(), out.resolve()
    if out == source or (_inside(out, source) and out.parent != source):
        raise UsageError(f"--out {out} is inside the package folder {source}",
                         hint="choose a folder outside it, or a direct subfolder (`--out dist`)")
    if marketplace is None:
        package = _read(source, out)
        files, skipped, made = _envelope_files(package, "")
        return package.name, _sorted(files), skipped, [e.harness for e in made], []
    return _market(source, out, marketplace)


def _market(source: Path, out: Path, marketplace: str
            ) -> tuple[str, list[PackedFile], list[str], list[str], list[str]]:
    """`planned` for a folder of packages: each in `OUT/<package>/`, and both catalogs."""
    if (problem := name_problem(marketplace)) is not None:
        raise UsageError(f"--marketplace {marketplace!r}: {problem}",
                         hint="a marketplace name is written like a package name")
    folders = sorted(p for p in source.iterdir() if p.is_dir() and p != out
                     and (p / PORTABLE_MANIFEST).is_file()) if source.is_dir() else []
    if not folders:
        raise UzeError(f"{source}: no package folders (subfolders with a plugin.json)",
                       hint="--marketplace packs a folder of packages, one per subfolder")
    packages: list[Package] = []
    files: list[PackedFile] = []
    skipped: list[str] = []
    made_all: list[str] = []
    for folder in folders:
        package = _read(folder, out)
        if package.name in {p.name for p in packages}:
            raise UzeError(f"{folder}: a second package named {package.name}",
                           hint="each package of a marketplace needs its own name")
        made_files, notes, made = _envelope_files(package, f"{package.name}/")
        packages.append(package)
        files += made_files
        skipped += [f"{package.name}: {line}" for line in notes]
        made_all += [f"{package.name}/{e.harness}" for e in made]
    listed = catalogs(marketplace, packages, claude_harness().id,
                      envelope_harness(CODEX_MANIFEST).id)
    return (marketplace, _sorted(files + listed), skipped, made_all,
            [item.relpath for item in listed])


def _sorted(files: list[PackedFile]) -> list[PackedFile]:
    return sorted(files, key=lambda item: item.relpath)


def _differs(out: Path, item: PackedFile) -> bool:
    path = out / item.relpath
    if path.is_symlink() or not path.is_file():
        return True
    return path.read_bytes() != item.data or bool(path.stat().st_mode & 0o100) != item.executable


def pack(source: Path, out: Path, *, check: bool = False, marketplace: str | None = None
         ) -> PackResult:
    """Write the envelope folders (and, with `marketplace`, the catalogs) into `out` (created
    when absent); with `check`, write nothing and name each file that differs from what pack
    would write. Files of `out` pack does not write are left as they are."""
    name, files, skipped, made, listed = planned(source, out, marketplace)
    result = PackResult(name, out, tuple(item.relpath for item in files), tuple(made),
                        skipped=tuple(skipped), checked=check, catalogs=tuple(listed))
    if check:
        differs = tuple(item.relpath for item in files if _differs(out, item))
        return msgspec.structs.replace(result, differs=differs)
    if out.exists() and not out.is_dir():
        raise UzeError(f"--out {out} is not a folder", hint="name a folder (it is created)")
    for item in files:
        if not _differs(out, item):
            continue
        target = out / item.relpath
        make_dir(target.parent, parents=True)
        atomic_write(target, item.data, 0o755 if item.executable else 0o644)
    return result
