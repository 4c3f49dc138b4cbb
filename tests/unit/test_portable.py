"""Nothing only one operating system has, at import time (issue 29): every module of uze imports
with `fcntl` and the POSIX-only names of `os` taken away, as on Windows, and each Windows branch
of uze/portable.py does its job here."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from uze import fs, portable
from uze.errors import LockBusy

ROOT = Path(__file__).parents[2]
# What Windows's `os` lacks among the names uze's code (or a library it imports) may touch.
POSIX_ONLY = ("O_NOFOLLOW", "O_CLOEXEC", "geteuid", "getegid", "getgroups", "getuid", "fchmod",
              "fchown", "killpg", "getpgid", "setsid")
IMPORT_ALL = textwrap.dedent("""
    import importlib, os, sys
    from pathlib import Path
    sys.modules["fcntl"] = None  # `import fcntl` raises ImportError, as on Windows
    for name in sys.argv[2:]:
        delattr(os, name)
    root = Path(sys.argv[1])
    names = sorted(".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
                   for p in (root / "uze").rglob("*.py"))
    for name in names:
        importlib.import_module(name)
    print(len(names), "fcntl" in sys.modules and sys.modules["fcntl"] is not None)
""")


def test_every_module_of_uze_imports_without_fcntl_or_the_posix_only_os_names() -> None:
    done = subprocess.run([sys.executable, "-c", IMPORT_ALL, str(ROOT), *POSIX_ONLY],
                          capture_output=True, text=True, timeout=120, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(len(list((ROOT / "uze").rglob("*.py")))), "False"]


@pytest.mark.parametrize(("line", "error"), [
    ("import fcntl", "import of fcntl halted"),
    ("import os\nFLAGS = os.O_CREAT | os.O_NOFOLLOW", "has no attribute 'O_NOFOLLOW'"),
])
def test_the_import_check_fails_on_a_module_only_posix_can_import(tmp_path: Path, line: str,
                                                                  error: str) -> None:
    (tmp_path / "uze").mkdir()
    (tmp_path / "uze" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "uze" / "posix_only.py").write_text(line + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", IMPORT_ALL, str(tmp_path), *POSIX_ONLY],
                          capture_output=True, text=True, timeout=60, check=False, cwd=tmp_path)
    assert done.returncode == 1
    assert error in done.stderr


@pytest.fixture
def windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """portable.py takes its Windows branches (the calls they make exist here too)."""
    monkeypatch.setattr(portable, "POSIX", False)


@pytest.mark.usefixtures("windows")
def test_on_windows_no_uid_owns_a_file_and_only_the_read_only_bit_counts(tmp_path: Path) -> None:
    assert portable.user() is None
    target = tmp_path / "f"
    target.write_bytes(b"x")
    assert fs.replace_problem(target) is None
    target.chmod(0o444)
    assert fs.replace_problem(target) == "is read-only"


@pytest.mark.usefixtures("windows")
def test_on_windows_a_mode_is_set_through_the_path_and_no_owner_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "f"
    fd = os.open(target, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        portable.set_mode(fd, str(target), 0o640)
        foreign = os.stat_result((0, 0, 0, 0, os.geteuid() + 1, 0, 0, 0, 0, 0))
        portable.keep_owner(fd, foreign)  # POSIX would fchown (and fail: not root)
    finally:
        os.close(fd)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert target.stat().st_uid == os.geteuid()


HOLD = ("import sys, time\nfrom pathlib import Path\nfrom uze import fs, portable\n"
        "portable.POSIX = sys.argv[2] == 'posix'\n"
        "with fs.file_lock(Path(sys.argv[1]), 5):\n"
        " print('held', 'filelock' in sys.modules, flush=True)\n time.sleep(30)")


@pytest.mark.parametrize(("holder", "asker"), [("posix", False), ("windows", True)])
def test_the_posix_lock_and_filelock_exclude_each_other(tmp_path: Path, monkeypatch:
                                                        pytest.MonkeyPatch, holder: str,
                                                        asker: bool) -> None:
    """POSIX takes flock itself, Windows filelock (ADR 0072); filelock takes flock on POSIX, so
    a uze that locked through filelock (ADR 0054) and this one exclude each other."""
    lock = tmp_path / "locks" / "p.lock"
    held = subprocess.Popen([sys.executable, "-c", HOLD, str(lock), holder],
                            stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert held.stdout is not None  # filelock loads only on the Windows branch
        assert held.stdout.readline() == f"held {holder == 'windows'}\n"
        monkeypatch.setattr(portable, "POSIX", asker)
        with pytest.raises(LockBusy, match=f"pid {held.pid}"), fs.file_lock(lock, 0.1):
            pass  # pragma: no cover - never reached: the lock is held
    finally:
        held.kill()
        held.wait()
    with fs.file_lock(lock, timeout=5):  # the holder died: the system dropped its lock
        assert lock.with_name("p.lock.pid").read_text(encoding="utf-8") == f"{os.getpid()}\n"
    assert not lock.with_name("p.lock.pid").exists()


@pytest.mark.usefixtures("windows")
def test_on_windows_a_lock_is_taken_and_released_through_filelock(tmp_path: Path) -> None:
    lock = tmp_path / "w.lock"
    with fs.file_lock(lock, timeout=5):
        assert portable.lock_file(str(lock), 0.1) is None  # held: another object waits in vain
    release = portable.lock_file(str(lock), 0)  # released: free again
    assert release is not None
    release()


@pytest.mark.usefixtures("windows")
def test_on_windows_ending_a_process_ends_the_process_itself() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        portable.kill_group(child.pid)
        assert child.wait(timeout=10) == -signal.SIGTERM
    finally:
        child.kill()
        child.wait()


def test_on_posix_ending_a_process_ends_its_whole_group() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", "import subprocess, sys, time\n"
         "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
         "print('started', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True, start_new_session=True)
    assert child.stdout is not None and child.stdout.readline() == "started\n"
    portable.kill_group(child.pid)
    assert child.wait(timeout=10) == -signal.SIGKILL
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # the grandchild is gone too (it was in the group)
        try:
            os.killpg(child.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        raise AssertionError("a process of the group outlived kill_group")
