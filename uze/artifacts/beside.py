"""The new version of a file the user edited, written beside it, like dpkg's conffile table.

unchanged since install -> replaced; edited and unchanged upstream -> kept; edited and changed
upstream -> kept, the new version written beside it as `<file>.uze-new` (which then belongs to
the user, like the edit). `--force` is the caller's (it replaces the whole artifact). Used by
the folder and file kinds' `merge`.
"""

from __future__ import annotations

import glob
import itertools
from pathlib import Path
from typing import Final

from uze.patterns import compile_later
from uze.projections.digest import content_digest
from uze.projections.tree import list_files
from uze.transaction import Transaction

NEW_SUFFIX: Final = ".uze-new"
_NEW_NAME: Final = compile_later(r".+\.uze-new(\.[0-9]+)?")


def live_digest(path: Path) -> str | None:
    """The content digest of the regular file at `path`; None for a link, folder or nothing."""
    if path.is_symlink() or not path.is_file():
        return None
    return content_digest(path.read_bytes())


def beside_path(path: Path, data: bytes) -> tuple[Path, bool]:
    """Where the new version of the edited file at `path` goes, and whether to write it there.

    `<name>.uze-new`, else `<name>.uze-new.1`, `.2`, ...: a file already at one of these names
    is the user's, so it is never overwritten. One that already holds exactly
    `data` is the answer, with nothing to write (an upgrade run twice writes one copy).
    """
    digest = content_digest(data)
    for count in itertools.count():
        suffix = NEW_SUFFIX if count == 0 else f"{NEW_SUFFIX}.{count}"
        candidate = path.with_name(path.name + suffix)
        if not candidate.exists() and not candidate.is_symlink():
            return candidate, True
        if live_digest(candidate) == digest:
            return candidate, False
    raise AssertionError("unreachable")  # pragma: no cover - itertools.count() never ends


def write_beside(tx: Transaction, path: Path, data: bytes) -> Path:
    """Write `data` at `beside_path(path, data)` unless it is there already; return that path."""
    target, write = beside_path(path, data)
    if write:
        tx.write(target, data, 0o644)
    return target


def waiting(path: Path, *, folder: bool) -> list[Path]:
    """The new versions an upgrade left beside edits (`<file>.uze-new`, `.uze-new.1`, ...): at
    the file `path`, or anywhere below the folder `path` (links never followed), sorted."""
    if folder:
        if path.is_symlink() or not path.is_dir():
            return []
        return sorted(path / rel for rel, item in list_files(path).items()
                      if _NEW_NAME.fullmatch(item.name) and not item.is_symlink())
    if not path.parent.is_dir():
        return []
    found = path.parent.glob(glob.escape(path.name) + NEW_SUFFIX + "*")
    return sorted(p for p in found if _NEW_NAME.fullmatch(p.name) and not p.is_symlink())
