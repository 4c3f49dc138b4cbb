"""Whether a harness is installed and the version it reports, in the protocol's words.

`<binary> --version` costs 0.3-2 s per harness (a node process starts), and doctor asks every
installed harness on every run. A version found is kept in `$UZE_HOME/cache/harness-versions.json`
keyed by the path found on PATH, with the size, mtime (ns) and real path of the file it runs:
installing another version replaces that file, so one of them moves and the binary is asked
again (ADR 0085). A failed or timed-out call is never kept. The cache only saves time: a file
uze cannot read is ignored and rewritten, one it cannot write is left as it is.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Final

import msgspec

from uze import fs
from uze.doctor.evidence import Status

if TYPE_CHECKING:
    import subprocess

    from uze.paths import Paths

_VERSION: Final = re.compile(r"\d+\.\d+\.\d+")
_DENIED: Final = re.compile(r"permission denied|EACCES|EPERM", re.IGNORECASE)
CACHE_SCHEMA: Final = 1


class Check(msgspec.Struct, frozen=True):
    """One check of a harness record: its status and, unless verified, why."""

    status: Status
    reason: str = ""


class Found(msgspec.Struct, frozen=True):
    """`installed` and `version` of one harness: the path on PATH and the version it printed."""

    path: str | None
    version: str | None
    installed: Check
    version_check: Check


class _Entry(msgspec.Struct, frozen=True):
    size: int
    mtime_ns: int
    real: str
    version: str


class _CacheFile(msgspec.Struct, frozen=True):
    schema: int = CACHE_SCHEMA
    binaries: dict[str, _Entry] = msgspec.field(default_factory=dict)


def cache_path(paths: Paths) -> Path:
    """Where the versions found are kept."""
    return paths.uze_home / "cache" / "harness-versions.json"


def _identity(path: str) -> tuple[int, int, str] | None:
    """(size, mtime_ns, real path) of the file `path` runs, or None when it cannot be read."""
    try:
        st = Path(path).stat()
        real = Path(path).resolve()
    except (OSError, RuntimeError):
        return None
    return st.st_size, st.st_mtime_ns, str(real)


def _not_executable(binary: str, search: str) -> str | None:
    """A file named `binary` on the search path that the user may not run, or None."""
    for folder in search.split(os.pathsep):
        candidate = Path(folder or ".") / binary
        if candidate.is_file() and not os.access(candidate, os.X_OK):
            return str(candidate)
    return None


class VersionCache:
    """The versions found before, read once per doctor run and written once at its end."""

    def __init__(self, paths: Paths) -> None:
        self.path = cache_path(paths)
        self.binaries: dict[str, _Entry] = {}
        self.asked: dict[str, subprocess.CompletedProcess[str]] = {}  # by prefetch
        self.changed = False
        with contextlib.suppress(OSError, msgspec.ValidationError, msgspec.DecodeError):
            found = msgspec.json.decode(self.path.read_bytes(), type=_CacheFile)
            if found.schema == CACHE_SCHEMA:
                self.binaries = dict(found.binaries)

    def prefetch(self, binaries: Iterable[str], search: str,
                 ask: Callable[[str], subprocess.CompletedProcess[str]]) -> None:
        """Ask every binary on `search` the cache does not know for its version at once, so a
        first run costs the slowest harness, not the sum (each `--version` starts a node)."""
        paths = [p for b in binaries if (p := shutil.which(b, path=search)) and not self._known(p)]
        if len(paths) < 2:
            return
        from concurrent.futures import ThreadPoolExecutor  # start-up: only when versions are asked

        with ThreadPoolExecutor(max_workers=len(paths)) as pool:
            self.asked |= dict(zip(paths, pool.map(ask, paths), strict=True))

    def _known(self, path: str) -> bool:
        entry, identity = self.binaries.get(path), _identity(path)
        return entry is not None and (entry.size, entry.mtime_ns, entry.real) == identity

    def find(self, binary: str, search: str,
             ask: Callable[[str], subprocess.CompletedProcess[str]]) -> Found:
        """The binary on `search` (a PATH value) and its version; `ask(path)` runs
        `<path> --version` when the cache does not know this file (and `prefetch` did not)."""
        path = shutil.which(binary, path=search)
        if path is None:
            blocked = _not_executable(binary, search)
            if blocked is not None:
                denied = Check("denied", f"{blocked} is not executable by this user")
                return Found(None, None, denied, Check("unverified", "not installed"))
            return Found(None, None, Check("failed", f"`{binary}` is not on PATH"),
                         Check("unverified", "not installed"))
        if self._known(path):
            return Found(path, self.binaries[path].version, Check("verified"), Check("verified"))
        identity = _identity(path)
        result = self.asked.pop(path, None) or ask(path)
        match = _VERSION.search(result.stdout) or _VERSION.search(result.stderr)
        if result.returncode == 0 and match:
            if identity is not None:
                self.binaries[path] = _Entry(*identity, match.group(0))
                self.changed = True
            return Found(path, match.group(0), Check("verified"), Check("verified"))
        said = (result.stderr.strip() or result.stdout.strip()).splitlines()[:1]
        why = f"{path} --version printed no version" + (f": {said[0][:160]}" if said else "")
        status: Status = "denied" if _DENIED.search(result.stderr) else "failed"
        return Found(path, None, Check("verified"), Check(status, why))

    def save(self) -> None:
        """Write the cache if a version was found this run (errors ignored: a cache)."""
        if not self.changed:
            return
        data = msgspec.json.encode(_CacheFile(binaries=dict(sorted(self.binaries.items()))))
        with contextlib.suppress(OSError):
            fs.atomic_write(self.path, data, durable=False)
