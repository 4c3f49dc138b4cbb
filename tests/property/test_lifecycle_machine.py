"""A state machine over install, upgrade, user edits, uninstall and crashes (issue 6).

It asserts that bytes no receipt owns never change, and that uninstalling everything gives
back the initial tree, except the uze-owned content the user edited, which is kept. A crash
stops an install or uninstall at its Nth write with nothing run after it (no rollback, no
clean-up: the journal stays, like after SIGKILL); the next command recovers it.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from tests.helpers import tree_bytes
from uze import fs
from uze.commands.install import install
from uze.commands.status import status
from uze.commands.uninstall import uninstall
from uze.errors import UzeError
from uze.paths import Paths
from uze.store.store import Store
from uze.transaction import Transaction

USER_FILES = {
    "AGENTS.md": b"# House rules\r\nBe kind.\r\n",
    "CLAUDE.md": b"Claude, read carefully.",
    ".claude/skills/mine/SKILL.md": b"---\nname: mine\ndescription: my own\n---\nmine\n",
    "notes.txt": b"not uze's\n",
}
PACKAGES = ("alpha", "beta")


def _write_package(root: Path, name: str, version: int) -> Path:
    pkg = root / f"{name}-v{version}"
    (pkg / "skills/s").mkdir(parents=True)
    (pkg / "plugin.json").write_text(json.dumps({"name": name, "version": f"{version}.0.0"}))
    (pkg / "AGENTS.md").write_text(f"{name} rules, version {version}.\n")
    (pkg / "skills/s/SKILL.md").write_text(
        f"---\nname: s\ndescription: {name} v{version}\n---\nbody {version}\n")
    return pkg


class Crash(BaseException):
    """The process died here: nothing after this point runs (no rollback, no discard)."""


def _crash_at(step: int, command: Callable[[], Any]) -> bool:
    """Run `command`, killed at its `step`-th write of bytes; return whether it was killed."""
    real_put = fs._put
    count = {"n": 0}

    def put(handle: Any, data: bytes) -> None:
        count["n"] += 1
        if count["n"] == step:
            raise Crash
        real_put(handle, data)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fs, "_put", put)
        patch.setattr(Transaction, "rollback", lambda self: None)
        patch.setattr(Store, "discard_added", lambda self, since=0: None)
        try:
            command()
        except Crash:
            return True
        except UzeError:
            return False
    return False


class Lifecycle(RuleBasedStateMachine):
    """One project, two packages, and a user who edits things."""

    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="uze-machine-"))
        self.project = self.tmp / "project"
        (self.project / ".git").mkdir(parents=True)
        for rel, data in USER_FILES.items():
            (self.project / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.project / rel).write_bytes(data)
        self.paths = Paths(home=self.tmp / "home", uze_home=self.tmp / "uze", env={})
        self.initial = tree_bytes(self.project)
        self.user = dict(USER_FILES)  # what the user's own files must hold
        self.installed: dict[str, int] = {}
        self.edited: set[str] = set()  # skill folders the user edited

    def _install(self, name: str, version: int) -> None:
        source = self.tmp / "src" / f"{name}-v{version}"
        if not source.exists():
            _write_package(self.tmp / "src", name, version)
        before = tree_bytes(self.project)
        try:
            install(self.paths, source, project=self.project, harness="claude_code,codex",
                    cwd=self.project)
        except UzeError as refused:
            # an edited folder kept by an earlier uninstall is the user's now: a foreign file
            assert any(name in folder for folder in self.edited), refused.message
            assert tree_bytes(self.project) == before
            return
        self.installed[name] = version

    @rule(name=st.sampled_from(PACKAGES), version=st.integers(1, 3))
    def install_or_upgrade(self, name: str, version: int) -> None:
        self._install(name, version)

    @precondition(lambda self: bool(self.installed))
    @rule(data=st.data())
    def uninstall_one(self, data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(sorted(self.installed)))
        uninstall(self.paths, name, project=self.project, cwd=self.project)
        del self.installed[name]

    @precondition(lambda self: bool(self.installed))
    @rule(data=st.data(), root=st.sampled_from([".claude/skills", ".agents/skills"]))
    def user_edits_an_owned_skill(self, data: st.DataObject, root: str) -> None:
        name = data.draw(st.sampled_from(sorted(self.installed)))
        skill = self.project / root / f"{name}-s" / "SKILL.md"
        if skill.exists():
            skill.write_bytes(skill.read_bytes() + b"my edit\n")
            self.edited.add(f"{root}/{name}-s")

    @rule(name=st.sampled_from(PACKAGES), version=st.integers(1, 3), step=st.integers(1, 40),
          uninstalling=st.booleans())
    def crash_mid_command(self, name: str, version: int, step: int, uninstalling: bool) -> None:
        source = self.tmp / "src" / f"{name}-v{version}"
        if not source.exists():
            _write_package(self.tmp / "src", name, version)
        if uninstalling and name in self.installed:
            def command() -> Any:
                return uninstall(self.paths, name, project=self.project, cwd=self.project)
        else:
            def command() -> Any:
                return install(self.paths, source, project=self.project,
                               harness="claude_code,codex", cwd=self.project)
        if _crash_at(step, command):
            status(self.paths, project=self.project, cwd=self.project)  # the next one recovers
            leftovers = [p for root in (self.project, self.paths.uze_home) for p in root.rglob("*")
                         if fs.TEMP_MARK in p.name or ".uze-trash-" in p.name]
            assert leftovers == []
            assert not any((self.paths.uze_home / "journal").rglob("ops.jsonl"))
        # killed (rolled back or finished by the recovery), done, or refused: the receipts say
        receipts = self.project / ".uze" / "receipts"
        self.installed = {
            p.stem: int(json.loads(p.read_text())["version"].split(".")[0])
            for p in (receipts.glob("*.json") if receipts.is_dir() else [])
        }

    @rule(rel=st.sampled_from(sorted(USER_FILES)), text=st.binary(max_size=8))
    def user_edits_their_own_file(self, rel: str, text: bytes) -> None:
        path = self.project / rel
        if rel in ("AGENTS.md", "CLAUDE.md"):
            return  # uze shares these files; their user text is checked in the teardown
        path.write_bytes(path.read_bytes() + text)
        self.user[rel] = path.read_bytes()

    @invariant()
    def bytes_uze_does_not_own_never_change(self) -> None:
        for rel, data in self.user.items():
            if rel not in ("AGENTS.md", "CLAUDE.md"):
                assert (self.project / rel).read_bytes() == data

    def teardown(self) -> None:
        try:
            for name in list(self.installed):
                uninstall(self.paths, name, project=self.project, cwd=self.project)
            final = tree_bytes(self.project)
            kept = {k for k in final if any(k == e or k.startswith(e + "/") or e.startswith(k + "/")
                                            for e in self.edited)}
            expected = {k: v for k, v in self.initial.items()}
            for rel, data in self.user.items():
                expected[rel] = data + f"\0mode={0o644:o}".encode()
            assert {k: v for k, v in final.items() if k not in kept} == {
                k: v for k, v in expected.items() if k not in kept}
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)


Lifecycle.TestCase.settings = settings(max_examples=25, stateful_step_count=12, deadline=None)
test_lifecycle_machine = Lifecycle.TestCase
