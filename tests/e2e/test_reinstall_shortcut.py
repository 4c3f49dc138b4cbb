"""The re-install shortcut (ADR 0016): it answers only for a package installed unchanged, and
then exactly what the full install answers; every other case goes the full way.

Each test installs for real, changes one thing on disk, and compares `unchanged()` (None, or a
result) with what `install()` itself returns on the same files.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import EVERY_KIND, Uze, as_json, assert_ok, copy_package, snapshot
from tests.helpers import DATA
from uze.commands.install import install
from uze.install import reinstall
from uze.paths import Paths
from uze.state.context import open_scope
from uze.ui.documents import install_json

pytestmark = pytest.mark.e2e

TRUSTED = {"harness": "claude_code,codex", "trust": True}


def _full(source: Path, **options: Any) -> dict[str, Any]:
    options = {**TRUSTED, **options}
    return install_json(install(Paths.from_env(), source, cwd=Path.cwd(), **options))


def _short(source: Path, **options: Any) -> dict[str, Any] | None:
    options = {**TRUSTED, **options}
    options.pop("trust")
    options.pop("force", None)
    options.setdefault("scope", "project")
    options.setdefault("project", None)
    options.setdefault("dry_run", False)
    found = reinstall.unchanged(Paths.from_env(), source, cwd=Path.cwd(), **options)
    return None if found is None else install_json(found)


@pytest.fixture
def package(sandbox: Sandbox) -> Path:
    """every-kind, copied so a test may edit it."""
    return copy_package(EVERY_KIND, sandbox.root / "pkg", "every-kind")


def _stamp(sandbox: Sandbox, name: str = "every-kind", scope: str = "project") -> Path:
    ctx = open_scope(Paths.from_env(), scope, None, sandbox.project)  # type: ignore[arg-type]
    return ctx.stamp_file(name)


@pytest.mark.parametrize("source", ["every-kind", "claude-native", "seven", "minimal"])
@pytest.mark.parametrize("options", [
    {}, {"harness": "all"}, {"scope": "user"}, {"dry_run": True}, {"harness": None},
])
def test_an_unchanged_package_gets_the_full_installs_answer(
    sandbox: Sandbox, source: str, options: dict[str, Any]
) -> None:
    path = DATA / source
    install_options = {k: v for k, v in options.items() if k != "dry_run"}
    if install_options.get("harness", "x") is None:
        install_options.pop("harness")
    _full(path, **install_options)
    before = snapshot(sandbox)

    short = _short(path, **options)
    full = _full(path, **options)

    assert short is not None
    assert short == full
    assert short["writes"] == 0 and {a["action"] for a in short["actions"]} <= {"unchanged"}
    assert short["actions"]  # every package delivers something (a manifest alone is refused)
    assert snapshot(sandbox) == before


def _edit_package_file(sandbox: Sandbox, package: Path) -> None:
    (package / "skills/review/SKILL.md").write_bytes(
        (package / "skills/review/SKILL.md").read_bytes() + b"\nOne more line.\n")


def _add_package_file(sandbox: Sandbox, package: Path) -> None:
    (package / "skills/review/notes.md").write_bytes(b"new\n")


def _remove_package_file(sandbox: Sandbox, package: Path) -> None:
    next(p for p in (package / "skills").rglob("*")
         if p.is_file() and p.name != "SKILL.md").unlink()


def _make_executable(sandbox: Sandbox, package: Path) -> None:
    path = package / "skills/review/SKILL.md"
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _link_in_package(sandbox: Sandbox, package: Path) -> None:
    (package / "skills/review/again.md").symlink_to("SKILL.md")


def _edit_delivered_file(sandbox: Sandbox, package: Path) -> None:
    (sandbox.project / ".claude/skills/every-kind/skills/review/SKILL.md").write_bytes(b"mine\n")


def _delete_delivered_file(sandbox: Sandbox, package: Path) -> None:
    shutil.rmtree(sandbox.project / ".claude/skills/every-kind")  # its plugin folder


def _edit_region(sandbox: Sandbox, package: Path) -> None:
    path = sandbox.project / "AGENTS.md"
    path.write_bytes(path.read_bytes().replace(b"<!-- uze:end", b"my line\n<!-- uze:end", 1))


def _edit_entry(sandbox: Sandbox, package: Path) -> None:
    path = sandbox.project / ".mcp.json"
    data = json.loads(path.read_bytes())
    next(iter(data["mcpServers"].values()))["command"] = "mine"
    path.write_text(json.dumps(data))


def _corrupt_blob(sandbox: Sandbox, package: Path) -> None:
    blob = next(p for p in (sandbox.uze_home / "store/objects").rglob("*") if p.is_file())
    blob.chmod(0o644)
    blob.write_bytes(b"rot")


def _delete_tree_manifest(sandbox: Sandbox, package: Path) -> None:
    for path in (sandbox.uze_home / "store/trees").rglob("*"):
        if path.is_file():
            path.chmod(0o644)
            path.unlink()


def _open_journal(sandbox: Sandbox, package: Path) -> None:
    ctx = open_scope(Paths.from_env(), "project", None, sandbox.project)
    ctx.journal_root.mkdir(parents=True)


def _unregister_project(sandbox: Sandbox, package: Path) -> None:
    (sandbox.uze_home / "projects.json").write_text('{"projects": [], "schema_version": 1}\n')


def _touch_receipt(sandbox: Sandbox, package: Path) -> None:
    path = sandbox.project / ".uze/receipts/every-kind.json"
    path.write_bytes(path.read_bytes().replace(b'"harnesses": [', b'"harnesses": [\n', 1))


def _damage_stamp(sandbox: Sandbox, package: Path) -> None:
    _stamp(sandbox).write_text("{")


def _reorder_stamp_keys(sandbox: Sandbox, package: Path) -> None:
    data = json.loads(_stamp(sandbox).read_bytes())
    data["actions"] = data["actions"][:-1] + data["actions"][:1]
    _stamp(sandbox).write_text(json.dumps(data))


def _delete_stamp(sandbox: Sandbox, package: Path) -> None:
    _stamp(sandbox).unlink()


def _move_codex_home(sandbox: Sandbox, package: Path) -> None:
    os.environ["CODEX_HOME"] = str(sandbox.home / "elsewhere")  # monkeypatch restores it


CHANGES = [
    _edit_package_file, _add_package_file, _remove_package_file, _make_executable,
    _link_in_package, _edit_delivered_file, _delete_delivered_file, _edit_region, _edit_entry,
    _corrupt_blob, _delete_tree_manifest, _open_journal, _unregister_project, _touch_receipt,
    _damage_stamp, _reorder_stamp_keys, _delete_stamp, _move_codex_home,
]


@pytest.mark.parametrize("change", CHANGES, ids=lambda c: c.__name__.strip("_"))
def test_any_change_since_the_install_takes_the_full_path(
    sandbox: Sandbox, package: Path, change: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(sandbox.home / ".codex"))
    _full(package)
    assert _short(package) is not None  # the shortcut answers before the change

    change(sandbox, package)

    assert _short(package) is None


def test_the_full_path_repairs_what_the_shortcut_refused(sandbox: Sandbox, package: Path) -> None:
    _full(package)
    _corrupt_blob(sandbox, package)
    _delete_delivered_file(sandbox, package)

    repaired = _full(package)

    actions = {a["target"]: a["action"] for a in repaired["actions"]}
    assert actions[".claude/skills/every-kind"] == "create"
    assert _short(package) == _full(package)  # answered again once all is back


def test_another_harness_selection_takes_the_full_path(sandbox: Sandbox, package: Path) -> None:
    _full(package)

    assert _short(package, harness="codex,claude_code") is not None  # the same set, other order
    assert _short(package, harness="claude_code") is None
    assert _short(package, harness="all") is None
    assert _short(package, harness="nonsense") is None  # the full install reports it


def test_no_stamp_after_an_install_that_kept_a_user_edit(sandbox: Sandbox, package: Path) -> None:
    _full(package)
    _edit_delivered_file(sandbox, package)
    _edit_package_file(sandbox, package)

    document = _full(package)

    assert {a["action"] for a in document["actions"]} >= {"merge"}
    assert _short(package) is None


def test_a_stamp_of_other_inputs_is_not_used(
    sandbox: Sandbox, package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _full(package)
    monkeypatch.setattr(reinstall, "_code_digest", lambda: "0" * 64)  # another uze

    assert _short(package) is None


def test_a_uze_too_fresh_to_tell_by_stat_takes_the_full_path_and_stamps_nothing(
    sandbox: Sandbox, package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _full(package)
    monkeypatch.setattr(reinstall, "_code_digest", lambda: None)  # a file of uze changed just now
    stamp = next((sandbox.uze_home / "cache").glob("installs-*/*.json"))
    before = stamp.read_bytes()

    assert _short(package) is None
    _full(package)
    assert stamp.read_bytes() == before


def test_the_code_digest_covers_every_file_of_the_uze_package(tmp_path: Path) -> None:
    """By path and stat (ADR 0011's evidence): an added or removed file, and any write, even
    of the same bytes with the old mtime put back, give another digest; a file changed within
    the racy-git margin gives none."""
    import uze

    copy = shutil.copytree(Path(uze.__file__).parent, tmp_path / "uze",
                           ignore=shutil.ignore_patterns("__pycache__"))
    assert reinstall.code_digest(copy) is None  # every file was just written
    later = time.time_ns() + 10 * 1_000_000_000  # a command started after the files settled
    before = reinstall.code_digest(copy, later)
    assert before is not None and reinstall.code_digest(copy, later) == before
    (copy / "data").mkdir(exist_ok=True)
    shutil.copy(copy / "plan" / "planner.py", copy / "data" / "x")
    assert reinstall.code_digest(copy, later) != before
    (copy / "data" / "x").unlink()
    assert reinstall.code_digest(copy, later) == before
    info = (copy / "plan" / "planner.py").stat()
    (copy / "plan" / "planner.py").write_bytes((copy / "plan" / "planner.py").read_bytes())
    os.utime(copy / "plan" / "planner.py", ns=(info.st_atime_ns, info.st_mtime_ns))
    assert (copy / "plan" / "planner.py").stat().st_mtime_ns == info.st_mtime_ns
    assert reinstall.code_digest(copy, later) != before


def test_uninstall_forgets_the_stamp(sandbox: Sandbox, package: Path, uze: Uze) -> None:
    assert_ok(uze("install", package, "--harness", "claude_code,codex", "--trust"))
    assert _stamp(sandbox).is_file()

    assert_ok(uze("uninstall", "every-kind"))

    assert not _stamp(sandbox).parent.exists()


def test_real_reinstall_prints_the_full_answer_and_writes_nothing(
    sandbox: Sandbox, package: Path, uze: Uze
) -> None:
    assert_ok(uze("install", package, "--harness", "claude_code,codex", "--trust"))
    before = snapshot(sandbox)

    fast = as_json(assert_ok(uze("install", package, "--json")))
    human = assert_ok(uze("install", package))
    _delete_stamp(sandbox, package)
    full = as_json(assert_ok(uze("install", package, "--json")))

    assert fast == full
    assert "Already installed: nothing changed." in human.stdout
    assert snapshot(sandbox) == before  # the full path wrote the stamp back, byte for byte


def test_the_git_folder_at_the_package_root_is_ignored_as_the_reader_ignores_it(
    sandbox: Sandbox, package: Path
) -> None:
    (package / ".git").mkdir()
    (package / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    _full(package)

    (package / ".git" / "HEAD").write_text("ref: refs/heads/other\n")

    assert _short(package) == _full(package)
    (package / "skills" / ".git").mkdir()  # only the root one is ignored
    (package / "skills" / ".git" / "x").write_text("x\n")
    assert _short(package) is None
