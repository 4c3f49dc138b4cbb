"""Paths: every location uze reads or writes, resolved once from the environment.

Nothing else in uze reads os.environ, Path.home() or platformdirs: pass a Paths value down.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import msgspec

from uze.errors import UsageError, UzeError

PROJECT_MARKERS: Final = (".uze", ".git")
# Every variable `env_dir` may read: the re-install shortcut keys its stamp on their values
# (ADR 0016), so a harness home that moves is never answered from an old plan.
LOCATION_ENV: Final = (
    "XDG_CONFIG_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "KIMI_CODE_HOME",
    "DSH_HOME", "DSH_AGENTS_HOME",
)


class Paths(msgspec.Struct, frozen=True):
    """Resolved roots. `home` is the user's home; `uze_home` holds the store and user receipts."""

    home: Path
    uze_home: Path
    env: Mapping[str, str]
    lock_timeout: float = 10.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Paths:
        """Build Paths from `env` (default: the process environment)."""
        env = dict(os.environ if env is None else env)
        home = Path(env["HOME"]) if env.get("HOME") else Path.home()
        uze_home = Path(env["UZE_HOME"]) if env.get("UZE_HOME") else _default_uze_home()
        timeout = _lock_timeout(env.get("UZE_LOCK_TIMEOUT", "10"))
        return cls(home=home.absolute(), uze_home=uze_home.absolute(), env=env,
                   lock_timeout=timeout)

    @property
    def store(self) -> Path:
        """The content-addressed store root."""
        return self.uze_home / "store"

    @property
    def user_receipts(self) -> Path:
        """Receipts of user-scope installs."""
        return self.uze_home / "receipts"

    @property
    def projects_registry(self) -> Path:
        """The list of projects that hold receipts (GC roots)."""
        return self.uze_home / "projects.json"

    def env_dir(self, name: str, default: Path) -> Path:
        """A harness's own override variable (e.g. CODEX_HOME) or its default location.

        Raises ValueError for a variable not in LOCATION_ENV."""
        if name not in LOCATION_ENV:
            raise ValueError(f"{name} is not in uze.paths.LOCATION_ENV; add it there")
        value = self.env.get(name)
        return Path(value).absolute() if value else default

    @property
    def xdg_config(self) -> Path:
        """XDG_CONFIG_HOME or ~/.config."""
        return self.env_dir("XDG_CONFIG_HOME", self.home / ".config")


def progress_delay(default: float) -> float:
    """UZE_PROGRESS_DELAY: seconds before long work draws its progress (0 to 3600), else
    `default` (unset, not a number, or out of range: progress is a display, never an error)."""

    try:
        delay = float(os.environ.get("UZE_PROGRESS_DELAY", default))
    except ValueError:
        return default
    return delay if math.isfinite(delay) and 0 <= delay <= 3600 else default


def terminal_forced() -> bool | None:
    """Whether the environment says stdout is a terminal or not, as rich reads it:
    `TTY_COMPATIBLE` 1 or 0, else `FORCE_COLOR` (set and not empty: a terminal); None when
    neither says (then stdout's own `isatty` decides)."""
    compatible = os.environ.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "1"
    force = os.environ.get("FORCE_COLOR")
    return None if force is None else force != ""


def _lock_timeout(text: str) -> float:
    """UZE_LOCK_TIMEOUT as seconds: a finite number, zero or more. Raises UzeError otherwise."""

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:

        raise UzeError(f"UZE_LOCK_TIMEOUT={text!r} is not a number of seconds",
                       hint="set it to a number such as 10, or unset it (default 10)")
    return value


def _default_uze_home() -> Path:
    import platformdirs  # only when UZE_HOME is unset: 20 ms of every start-up otherwise

    return Path(platformdirs.user_data_dir("uze", appauthor=False))


def resolve_project(explicit: Path | None, cwd: Path) -> Path:
    """The project root: `explicit`, else the nearest ancestor of `cwd` holding .uze/ or .git.

    Falls back to `cwd` itself when no ancestor has a marker. Raises UsageError when
    `explicit` names something that is not a folder (a file, a broken link).
    """
    if explicit is not None:
        try:
            kind = explicit.is_dir() or not (explicit.exists() or explicit.is_symlink())
        except OSError as error:  # a name too long to look up
            raise UsageError(f"--project: {error.strerror}: {explicit}",
                             hint="name the project's folder (or leave --project out)") from None
        if not kind:
            raise UsageError(f"--project {explicit}: not a folder",
                             hint="name the project's folder (or leave --project out)")
        return explicit.absolute()
    return marked_project(cwd) or cwd.absolute()


def marked_project(cwd: Path) -> Path | None:
    """The nearest ancestor of `cwd` (itself included) holding .uze/ or .git, or None."""
    start = cwd.absolute()
    for folder in (start, *start.parents):
        if any((folder / marker).exists() for marker in PROJECT_MARKERS):
            return folder
    return None
