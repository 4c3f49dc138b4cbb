"""Isolated environment for every test: temporary HOME, XDG dirs, UZE_HOME and project.

An autouse guard makes resolving the real home directory raise, so no test can touch it.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

HARNESS_OVERRIDES = (
    "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "OPENCODE_CONFIG_DIR",
    "OPENCODE_CONFIG", "KIMI_CODE_HOME", "DSH_HOME",
)


@dataclass(frozen=True)
class Sandbox:
    """The temporary world one test runs in."""

    root: Path
    home: Path
    uze_home: Path
    project: Path

    @property
    def env(self) -> dict[str, str]:
        """The environment a uze subprocess gets."""
        return dict(os.environ)


@pytest.fixture(autouse=True)
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Sandbox]:
    """tmp HOME, XDG_*, UZE_HOME and a git project as cwd; the real home is unreachable."""
    home, uze_home, project = tmp_path / "home", tmp_path / "uze-home", tmp_path / "project"
    for folder in (home, uze_home, project / ".git"):
        folder.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("UZE_HOME", str(uze_home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("PATH", str(Path(os.sys.executable).parent) + os.pathsep + "/usr/bin:/bin")
    for name in HARNESS_OVERRIDES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(project)

    def _no_real_home(*_args: object, **_kwargs: object) -> Path:
        raise AssertionError("a test tried to resolve the real home directory")

    monkeypatch.setattr(pathlib.Path, "home", classmethod(_no_real_home))
    yield Sandbox(tmp_path, home, uze_home, project)
