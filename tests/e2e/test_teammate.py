"""A teammate's clone works (issue 22 item 5, adr/0039, adr/0040).

Alice installs a package with skills, agents, instructions, MCP servers and hooks from a git
source into her project, for the four harnesses whose project-relative forms the real
binaries proved (tests/conformance/test_teammate.py). She commits uze.toml, uze.lock and
every delivered file; `.uze/` is machine-local (git-ignored). Zoe clones the repository to
another path on another machine (another HOME and UZE_HOME, another user name) and runs
`uze install`: every projection is matched, every committed file is byte-identical, and the
package copy and hook wrappers she gets in her machine-local `.uze/` are byte-identical to
Alice's. No file uze wrote, on either
side, names an absolute path or either user's name.
"""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, as_json, assert_ok, person
from tests.gitserve import Repo, git, git_daemon
from tests.helpers import DATA, tree_bytes

pytestmark = pytest.mark.e2e
HARNESSES = ("--harness", "claude_code,codex,gemini_cli,opencode")
PROVEN = ("claude_code", "codex", "gemini_cli", "opencode")


def _package_files() -> dict[str, str | bytes]:
    root = DATA / "every-kind"
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _files(project: Path) -> dict[str, bytes | str]:
    return {k: v for k, v in tree_bytes(project).items()
            if not (k == ".git" or k.startswith(".git/"))}


def _leaks(project: Path, needles: tuple[str, ...]) -> dict[str, list[str]]:
    """Each file of the project (git's own aside) naming one of `needles`."""
    found: dict[str, list[str]] = {}
    for rel, data in _files(project).items():
        raw = data if isinstance(data, bytes) else data.encode()
        hits = [n for n in needles if n.encode() in raw]
        if hits:
            found[rel] = hits
    return found


def test_a_teammates_clone_reproduces_every_projection_byte_for_byte(
        uze: Uze, sandbox: Sandbox) -> None:
    served = sandbox.root / "served"
    repo = Repo(served / "acme" / "kit.git")
    repo.commit(_package_files())
    alice, zoe = person(sandbox.root, "alice-uze"), person(sandbox.root / "far", "zoe-uze")
    mine = sandbox.project
    (mine / ".gitignore").write_text(".uze/\n")  # adr/0040: .uze/ is machine-local
    with git_daemon(served) as url:
        source = f"git+{url}/acme/kit.git"
        assert_ok(uze("install", source, *HARNESSES, "--trust", cwd=mine, env=alice))
        git("init", "-q", cwd=mine)
        git("add", "-A", cwd=mine)
        git("commit", "-q", "-m", "uze packages", cwd=mine)
        committed = git("ls-files", cwd=mine).splitlines()
        assert {"uze.toml", "uze.lock", ".mcp.json", ".claude/settings.json",
                ".codex/hooks.json", ".gemini/settings.json", "opencode.json"} <= set(committed)
        assert not any(rel.startswith(".uze/") for rel in committed)

        theirs = sandbox.root / "far" / "checkouts" / "their-project"
        theirs.parent.mkdir(parents=True)
        git("clone", "-q", mine, theirs, cwd=theirs.parent)
        result = uze("install", "--trust", cwd=theirs, env=zoe)
    assert result.returncode == 0, result.stderr

    status = as_json(assert_ok(uze("status", "--json", cwd=theirs, env=zoe)))
    cells = [p for pkg in status["packages"] for p in pkg["projections"]
             if p["harness"] in PROVEN]
    assert cells and {p["state"] for p in cells} <= {"matched", "undelivered"}
    assert "matched" in {p["state"] for p in cells}
    assert all(p["route"] != "degraded" or "absolute path" not in p.get("reason", "")
               for p in cells)
    for rel in committed:
        assert (theirs / rel).read_bytes() == (mine / rel).read_bytes(), rel
    runs = (".uze/packages/", ".uze/hooks/")  # what runs; receipts record each machine's own
    local = {k: v for k, v in _files(mine).items() if k.startswith(runs)}
    assert local and {k: v for k, v in _files(theirs).items() if k.startswith(runs)} == local

    needles = (str(sandbox.root), "alice-uze", "zoe-uze", "/tmp/", "/home/", "/root")
    assert _leaks(mine, needles) == {}
    assert _leaks(theirs, needles) == {}
    run = subprocess.run(["grep", "-rlI", "-e", str(sandbox.root), "-e", "alice-uze",
                          "-e", "zoe-uze", "--exclude-dir=.git", "."],
                         cwd=theirs, capture_output=True, text=True, check=False)
    assert (run.returncode, run.stdout) == (1, "")

    # What Zoe adopted is hers to remove: the entries and elements go, the files still parse.
    assert_ok(uze("uninstall", "every-kind", cwd=theirs, env=zoe))
    for rel in (".mcp.json", ".claude/settings.json", ".codex/hooks.json",
                ".gemini/settings.json", "opencode.json", ".codex/config.toml"):
        path = theirs / rel
        if path.exists():
            text = path.read_text()
            assert "every-kind" not in text and "docs" not in text, (rel, text)
            if rel.endswith(".toml"):
                tomllib.loads(text)
            elif rel != ".gemini/settings.json":
                json.loads(text)
    assert not (theirs / ".uze").exists()
