"""Issue 28, items 3, 4, 6 and 7, written as an attacker would: a committed uze.toml or uze.lock,
a catalog, a branch name, a URL or a remote that tries to reach outside what the user chose,
to print into the terminal, to leak a token, to hang a command, or to block `store gc`. Each
test ran red on the main of its day (see docs/security.md)."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import re
import select
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, assert_ok, snapshot
from tests.gitserve import Repo
from tests.helpers import build_tree, tree_bytes

pytestmark = pytest.mark.e2e
HARNESS = ("--harness", "claude_code")
SKILL = Path(".claude/skills")


def _package(name: str, note: str, version: str = "1.0.0") -> dict[str, str]:
    return {
        "plugin.json": json.dumps({"name": name, "version": version}) + "\n",
        "skills/review/SKILL.md": f"---\nname: review\ndescription: Review.\n---\n{note}\n",
    }


def _delivered(project: Path, name: str) -> str:
    return (project / SKILL / name / "skills/review/SKILL.md").read_text()


def _tree(uze: Uze, folder: Path) -> str:
    """The tree digest uze gives the package at `folder` (what an attacker writes in a lock)."""
    return str(json.loads(assert_ok(uze("check", folder, "--json")).stdout)["package"]["tree"])


def _teammate(sandbox: Sandbox, files: dict[str, str]) -> tuple[Path, dict[str, str]]:
    """A fresh clone (project with the given committed files) and a fresh user's HOME."""
    root = sandbox.root / "mate"
    project = build_tree(root / "project", files)
    (project / ".git").mkdir()
    (root / "home").mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(root / "home"), "UZE_HOME": str(root / "uze-home")}
    return project, env


# ------------------------------------------------------------------ pins stay inside (item 3)


def test_a_branch_named_like_the_pinned_commit_does_not_hijack_it(
        uze: Uze, sandbox: Sandbox) -> None:
    repo = Repo(sandbox.root / "served" / "flow.git")
    good = repo.commit(_package("flow", "reviewed code"))
    repo.commit(_package("flow", "attacker code", "1.0.1"))
    repo.branch(good)  # refs/heads/<the good commit's id> -> the attacker's commit
    assert_ok(uze("install", f"git+{repo.url}@{good}", *HARNESS))
    assert _delivered(sandbox.project, "flow").endswith("reviewed code\n")
    assert f'commit = "{good}"' in (sandbox.project / "uze.lock").read_text()


@pytest.fixture
def market(sandbox: Sandbox) -> Repo:
    """A registered git marketplace listing `flow` from its own repository."""
    flow = Repo(sandbox.root / "served" / "flow.git")
    flow.commit(_package("flow", "the marketplace's flow"))
    repo = Repo(sandbox.root / "served" / "market.git")
    repo.commit({".claude-plugin/marketplace.json": json.dumps({"name": "team", "plugins": [
        {"name": "flow", "source": {"source": "url", "url": flow.url}}]})})
    return repo


def test_a_lock_cannot_redirect_a_registered_marketplaces_plugin(
        uze: Uze, sandbox: Sandbox, market: Repo) -> None:
    evil = Repo(sandbox.root / "served" / "evil.git")
    commit = evil.commit(_package("flow", "attacker code"))
    tree = _tree(uze, build_tree(sandbox.root / "copy", _package("flow", "attacker code")))
    assert_ok(uze("marketplace", "add", f"git+{market.url}"))
    assert_ok(uze("install", "flow@team", *HARNESS))
    lock = sandbox.project / "uze.lock"
    text = re.sub(r'source = "[^"]*"', f'source = "git+{evil.url}"', lock.read_text())
    text = re.sub(r'commit = "[^"]*"', f'commit = "{commit}"', text)
    text = re.sub(r'tree = "[^"]*"', f'tree = "{tree}"', text)
    lock.write_text(text)
    shutil.rmtree(sandbox.project / SKILL / "flow")  # so converging has to fetch it
    before = snapshot(sandbox)
    result = uze("install", *HARNESS)
    assert result.returncode == 1, result.stdout
    assert f"git+{evil.url}" in result.stderr and "served/flow.git" in result.stderr
    assert "marketplace team" in result.stderr
    assert snapshot(sandbox) == before


@pytest.mark.parametrize("where", ["~/private", "../private", "/abs"])
def test_a_lock_marketplace_pin_cannot_name_a_folder_outside_the_project(
        uze: Uze, sandbox: Sandbox, where: str) -> None:
    folder = {"~/private": "mate/home/private", "../private": "mate/private",
              "/abs": "abs-private"}[where]
    secret = build_tree(sandbox.root / folder, _package("flow", "the user's private notes"))
    source = str(secret) if where == "/abs" else where
    lock = ("version = 1\n\n[[package]]\nname = \"flow\"\nversion = \"1.0.0\"\n"
            f"source = \"{source}\"\ntree = \"{_tree(uze, secret)}\"\nmarketplace = \"team\"\n"
            "harnesses = [\"claude_code\"]\n")
    project, env = _teammate(sandbox, {"uze.toml": '[packages]\nflow = "flow@team"\n',
                                       "uze.lock": lock})
    before = tree_bytes(project)
    result = uze("install", cwd=project, env=env)
    assert result.returncode == 1
    assert "outside the project" in result.stderr and "flow" in result.stderr
    assert tree_bytes(project) == before
    assert not (sandbox.root / "mate" / "uze-home").exists()


@pytest.mark.parametrize("declared", ["~/.claude/skills", "./vendor/skills"])
def test_a_manifest_line_never_copies_the_users_private_folder_into_the_project(
        uze: Uze, sandbox: Sandbox, declared: str) -> None:
    project, env = _teammate(sandbox, {"uze.toml": f'[packages]\nskills = "{declared}"\n'})
    home = sandbox.root / "mate" / "home"
    build_tree(home / ".claude" / "skills", {
        "private/SKILL.md": "---\nname: private\ndescription: Mine.\n---\nmy API notes\n"})
    (project / "vendor").symlink_to(os.path.relpath(home / ".claude", project))
    before = tree_bytes(project)
    result = uze("install", *HARNESS, cwd=project, env=env)
    assert result.returncode == 1
    assert "outside the project" in result.stderr and "skills" in result.stderr
    assert "uze install" in result.stderr  # the hint: type it to mean it
    assert tree_bytes(project) == before
    assert not any("my API notes" in str(v) for v in tree_bytes(project).values())


@pytest.mark.parametrize("repo", ["~/private", "../x", "/etc", "./inside", "acme/flow/extra"])
def test_a_catalog_github_entry_takes_only_owner_and_repo(
        uze: Uze, sandbox: Sandbox, repo: str) -> None:
    build_tree(sandbox.home / "private", _package("flow", "the user's private notes"))
    market = build_tree(sandbox.root / "market", {
        ".claude-plugin/marketplace.json": json.dumps({"name": "team", "plugins": [
            {"name": "flow", "source": {"source": "github", "repo": repo}}]})})
    before = snapshot(sandbox)
    result = uze("marketplace", "add", market)
    assert result.returncode == 1
    assert "plugins[0].source" in result.stderr and "owner/repo" in result.stderr
    assert snapshot(sandbox) == before


# ------------------------------------------------------------------ inert output (item 4)


def test_search_and_marketplace_list_print_catalog_text_inert(uze: Uze, sandbox: Sandbox) -> None:
    hostile = "\x1b[2J\x1b]0;pwned\x07\x1b[1A\u202eevil"
    market = build_tree(sandbox.root / f"market{hostile[:4]}", {
        ".claude-plugin/marketplace.json": json.dumps({"name": "team", "plugins": [
            {"name": f"flow{hostile}", "source": "./flow", "version": f"1{hostile}",
             "description": f"review {hostile}", "keywords": ["review"]}]})})
    assert_ok(uze("marketplace", "add", market))
    for args in (("search", "review"), ("marketplace", "list")):
        result = assert_ok(uze(*args))
        assert "\x1b" not in result.stdout and "\u202e" not in result.stdout, args
        assert "\x07" not in result.stdout, args
    assert "\\x1b[2J" in uze("search", "review").stdout


# ------------------------------------------------------------------ credentials (item 4)


@pytest.mark.parametrize("source", [
    "git+https://user:tok3n-secret@127.0.0.1:1/acme/flow.git#fragment=bad",
    "https://user:tok3n-secret@127.0.0.1:1/acme/flow",
    "https://tok3n-secret@127.0.0.1:1/acme/flow",
    "user:tok3n-secret@127.0.0.1:acme/flow.git",
    "git+user:tok3n-secret@127.0.0.1:acme/flow.git",
    "git+ssh://git:tok3n-secret@127.0.0.1:1/acme/flow.git",
    "git+https://user:tok3n-secret@127.0.0.1:1/acme/flow.git",
])
def test_no_form_of_a_url_puts_its_token_in_a_message_or_a_file(
        uze: Uze, sandbox: Sandbox, source: str) -> None:
    before = snapshot(sandbox)
    result = uze("install", source, *HARNESS)
    assert result.returncode in (1, 2)
    assert "tok3n-secret" not in result.stdout + result.stderr
    after = snapshot(sandbox)
    assert not [rel for root in after.values() for rel, data in root.items()
                if b"tok3n-secret" in (data if isinstance(data, bytes) else data.encode())]
    assert after == before


@pytest.mark.parametrize(("declared", "said"), [
    ("git+https://user:tok3n-secret@127.0.0.1:1/acme/flow.git", "holds a credential"),
    ("ext::sh -c touch% /tmp/pwned", "invalid source"),
    (r"./plugins/\u001b[2Jflow", "control characters"),  # TOML decodes the escape
])
def test_a_manifest_source_is_validated_as_a_typed_one_and_holds_no_credential(
        uze: Uze, sandbox: Sandbox, declared: str, said: str) -> None:
    project, env = _teammate(sandbox, {"uze.toml": f'[packages]\nflow = "{declared}"\n'})
    before = tree_bytes(project)
    result = uze("install", *HARNESS, cwd=project, env=env)
    assert result.returncode == 1
    assert "uze.toml: packages.flow" in result.stderr and said in result.stderr
    assert "tok3n-secret" not in result.stdout + result.stderr and "\x1b" not in result.stderr
    assert tree_bytes(project) == before


# ------------------------------------------------------------------ bounded git time (item 6)


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A TCP server on loopback that accepts every connection and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield int(server.getsockname()[1])
    finally:
        stop.set()
        thread.join(timeout=5)
        for conn in held:
            conn.close()
        server.close()


@pytest.mark.parametrize("scheme", ["http", "git"])
def test_a_remote_that_accepts_and_never_answers_ends_quickly_with_a_clear_error(
        uze: Uze, sandbox: Sandbox, silent_server: int, scheme: str) -> None:
    before = snapshot(sandbox)
    env = {**os.environ, "UZE_GIT_TIMEOUT": "2"}
    url = f"{scheme}://127.0.0.1:{silent_server}/acme/flow.git"
    started = time.monotonic()
    result = uze("install", f"git+{url}", *HARNESS, env=env)
    assert time.monotonic() - started < 30
    assert result.returncode == 1
    assert f"uze: error: {url} sent nothing for 2 s" in result.stderr
    assert "UZE_GIT_TIMEOUT" in result.stderr
    assert snapshot(sandbox) == before


def _at_terminal(args: tuple[str, ...], cwd: Path, env: dict[str, str]) -> tuple[int, bytes]:
    """Run uze with its standard error on a terminal (a pty); its exit code and what the
    terminal received. A command still running after 30 s is killed (and fails the test)."""
    main, child = pty.openpty()
    with subprocess.Popen([sys.executable, "-m", "uze", *args], cwd=cwd, env=env,
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=child) as proc:
        os.close(child)
        seen, deadline = b"", time.monotonic() + 30
        with contextlib.suppress(OSError):  # EIO once the command has closed the terminal
            while select.select([main], [], [], max(0, deadline - time.monotonic()))[0]:
                if not (chunk := os.read(main, 4096)):
                    break
                seen += chunk
        os.close(main)
        proc.kill()
        return proc.wait(), seen


TERMINAL = {"UZE_GIT_TIMEOUT": "3", "UZE_PROGRESS_DELAY": "0", "COLUMNS": "200", "TERM": "xterm"}


def test_a_person_at_a_terminal_sees_which_remote_uze_is_waiting_for(
        sandbox: Sandbox, silent_server: int) -> None:
    url = f"http://127.0.0.1:{silent_server}/acme/flow.git"
    code, seen = _at_terminal(("install", f"git+{url}", *HARNESS), sandbox.project,
                              {**os.environ, **TERMINAL})
    assert code == 1
    assert f"asking {url}".encode() in seen
    assert f"{url} sent nothing for 3 s".encode() in seen


def test_a_catalog_url_cannot_break_or_reorder_the_progress_line(
        uze: Uze, sandbox: Sandbox, silent_server: int) -> None:
    url = f"http://127.0.0.1:{silent_server}/[/]acme/\u202eflow.git"
    market = build_tree(sandbox.root / "market", {
        ".claude-plugin/marketplace.json": json.dumps({"name": "team", "plugins": [
            {"name": "flow", "source": {"source": "url", "url": url}}]})})
    assert_ok(uze("marketplace", "add", market))
    code, seen = _at_terminal(("install", "flow@team", *HARNESS), sandbox.project,
                              {**os.environ, **TERMINAL})
    assert code == 1
    assert b"Traceback" not in seen and b"MarkupError" not in seen
    assert "\u202e".encode() not in seen  # the bidi override is shown escaped, never sent
    assert b"asking http://127.0.0.1" in seen and b"sent nothing for 3 s" in seen


# ------------------------------------------------------------------ store gc (item 7)


def test_store_gc_skips_a_project_whose_receipts_it_cannot_read_and_collects_the_rest(
        uze: Uze, sandbox: Sandbox) -> None:
    damaged = sandbox.root / "damaged"
    (damaged / ".git").mkdir(parents=True)
    build_tree(sandbox.root / "pkgs" / "kept", _package("kept", "kept"))
    build_tree(sandbox.root / "pkgs" / "gone", _package("gone", "unique bytes of gone"))
    assert_ok(uze("install", sandbox.root / "pkgs" / "kept", *HARNESS, cwd=damaged))
    assert_ok(uze("install", sandbox.root / "pkgs" / "gone", *HARNESS))
    assert_ok(uze("uninstall", "gone"))
    receipt = damaged / ".uze" / "receipts" / "kept.json"
    receipt.write_text(f"<<<<<<< ours\n{receipt.read_text()}=======\n>>>>>>> theirs\n")
    store = sandbox.uze_home / "store"
    objects = {p for p in store.rglob("*") if p.is_file()}
    result = uze("store", "gc")
    assert result.returncode == 0, result.stderr
    assert str(damaged) in result.stderr and "kept.json" in result.stderr
    left = {p for p in store.rglob("*") if p.is_file()}
    assert left < objects  # gone's objects were collected
    assert not any(b"unique bytes of gone" in p.read_bytes() for p in left)
    assert any(b"\nkept\n" in p.read_bytes() for p in left)  # the skipped project's stay
