"""uze/doctor/versions.py (ADR 0085): installed and version in the protocol's words, versions
kept by binary path, size, mtime and real path; a first run asks every unknown binary at once."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

from uze.doctor.versions import VersionCache, cache_path
from uze.paths import Paths


def _paths(tmp_path: Path) -> Paths:
    return Paths(home=tmp_path / "home", uze_home=tmp_path / "uze-home", env={})


def _binaries(tmp_path: Path, *names: str) -> str:
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    for name in names:
        (folder / name).write_text("#!/bin/sh\n", encoding="utf-8")
        (folder / name).chmod(0o755)
    return str(folder)


def test_unknown_binaries_are_asked_at_once_and_each_only_once(tmp_path: Path) -> None:
    search = _binaries(tmp_path, "claude", "codex", "gemini")
    asked: list[str] = []
    together = threading.Barrier(3, timeout=10)  # breaks unless all three ask at the same time

    def ask(path: str) -> subprocess.CompletedProcess[str]:
        asked.append(Path(path).name)
        together.wait()
        return subprocess.CompletedProcess([path], 0, f"{Path(path).name} 1.2.3\n", "")

    cache = VersionCache(_paths(tmp_path))
    cache.prefetch(["claude", "codex", "gemini", "kimi"], search, ask)
    assert sorted(asked) == ["claude", "codex", "gemini"]
    found = {b: cache.find(b, search, ask) for b in ("claude", "codex", "gemini", "kimi")}
    assert len(asked) == 3, "find used what prefetch asked"
    assert {b: f.version for b, f in found.items()} == {
        "claude": "1.2.3", "codex": "1.2.3", "gemini": "1.2.3", "kimi": None}
    assert found["kimi"].installed.status == "failed"
    cache.save()
    again = VersionCache(_paths(tmp_path))
    again.prefetch(["claude", "codex", "gemini"], search, ask)
    assert again.find("codex", search, ask).version == "1.2.3" and len(asked) == 3
    assert cache_path(_paths(tmp_path)).is_file()


def test_a_failed_answer_is_not_kept_and_a_refused_run_is_denied(tmp_path: Path) -> None:
    search = _binaries(tmp_path, "opencode")
    cache = VersionCache(_paths(tmp_path))
    found = cache.find("opencode", search, lambda p: subprocess.CompletedProcess(
        [p], 126, "", f"{p}: Permission denied"))
    assert (found.installed.status, found.version_check.status) == ("verified", "denied")
    assert "Permission denied" in found.version_check.reason
    cache.save()
    assert not cache_path(_paths(tmp_path)).exists()


def test_an_unreadable_cache_is_ignored_and_rewritten(tmp_path: Path) -> None:
    search = _binaries(tmp_path, "claude")
    path = cache_path(_paths(tmp_path))
    path.parent.mkdir(parents=True)
    path.write_text("{not json", encoding="utf-8")
    cache = VersionCache(_paths(tmp_path))
    found = cache.find("claude", search, lambda p: subprocess.CompletedProcess([p], 0, "2.0.1", ""))
    assert found.version == "2.0.1"
    cache.save()
    assert '"version":"2.0.1"' in path.read_text(encoding="utf-8")
