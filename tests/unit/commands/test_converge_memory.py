"""A converge keeps no package's bytes alive past that package (ADR 0100).

The memos keyed by a bytes object's id (held digests, reference searches, parsed documents)
keep the object; `uze install` of a uze.toml used to leave every package's files and hook
wrappers in them (0.24 MB per package). Each package's install and check now ends with
`memo.forget()`: when package N is installed, no memo holds a byte of packages 1..N-1.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from uze import memo
from uze.commands import acquire, converge
from uze.paths import Paths
from uze.plan import references
from uze.projections import config_entry, digest

NAMES = ("alpha-pkg", "beta-pkg", "gamma-pkg")


def _package(root: Path, name: str) -> None:
    (root / "skills" / "s").mkdir(parents=True)
    (root / "plugin.json").write_text(json.dumps({"name": name, "version": "1.0.0"}))
    (root / "skills" / "s" / "SKILL.md").write_text(
        f"---\nname: s\ndescription: Skill of {name}; use it for {name}.\n---\nmark-{name}\n")
    (root / "scripts").mkdir()
    (root / "scripts" / "guard.sh").write_text("#!/bin/sh\nexit 0\n")
    (root / "scripts" / "guard.sh").chmod(0o755)
    (root / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"id": f"{name}-guard", "matcher": "shell",
         "hooks": [{"type": "command", "command": "${PLUGIN_ROOT}/scripts/guard.sh"}]}]}}))


def _held() -> list[bytes]:
    """Every bytes object the id-keyed memos keep."""
    found = [data for data, _ in (*digest._HELD.values(), *digest._HELD_CONTENT.values())]
    found += [text for text, _ in references._MENTIONS.values()]
    return found + [data for data, _ in config_entry._DOCUMENTS.values()]


def _mentions(name: str) -> bool:
    """Whether a memo holds a file of package `name` (its SKILL.md; shared files, which hold
    every package's entries, never copy it)."""
    return any(f"mark-{name}".encode() in data for data in _held())


def test_each_package_is_forgotten_before_the_next_is_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    for name in NAMES:
        _package(project / "packages" / name, name)
    (project / "uze.toml").write_text(
        "[packages]\n" + "".join(f'{n} = "./packages/{n}"\n' for n in NAMES))
    paths = Paths(home=tmp_path / "h", uze_home=tmp_path / "uze-home", env={})
    memo.forget()
    starts: list[int] = []  # at each install's start: the bytes objects the memos keep
    ends: list[list[str]] = []  # at each forget: the packages held just before it
    real_install, real_forget = acquire.install_folder, memo.forget

    def install_folder(*args: object, **kwargs: object) -> acquire.Outcome:
        starts.append(len(_held()))
        return real_install(*args, **kwargs)  # type: ignore[arg-type]

    def forget() -> None:
        ends.append([n for n in NAMES if _mentions(n)])
        real_forget()

    monkeypatch.setattr(converge, "install_folder", install_folder)
    monkeypatch.setattr(memo, "forget", forget)
    result = converge.converge(paths, acquire.Options(harness="all", trust=True), project)

    assert [(p.name, p.action) for p in result.packages] == [
        ("alpha-pkg", "installed"), ("beta-pkg", "installed"), ("gamma-pkg", "installed")]
    assert starts == [0, 0, 0]
    # The memos were in use: each package's check, then its install, held its own bytes.
    assert [e for e in ends if e] == [[n] for n in NAMES] * 2
    assert _held() == []
    assert (project / ".claude" / "skills").exists() or (project / ".agents" / "skills").exists()
