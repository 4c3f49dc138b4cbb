"""Issue 22: credentials in a source URL (`user:token@host`) never appear in any file uze
writes, nor in anything it prints.

For each drawn user name, token and source form, a fresh project, HOME and UZE_HOME; a smart
HTTP server on loopback that refuses every request without exactly those credentials; then the
real `uze install SOURCE` (the lock, the manifest, receipts, the store, the git mirror and its
config, the package copy and hook wrappers are all written), `uze install` again (converge from
the lock), `uze list --json` and `uze status`. Every byte under the three roots and every
output line is searched for the user name, the token and both joined.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.gitserve import Repo, smart_http
from tests.helpers import run_uze

pytestmark = pytest.mark.e2e
PACKAGE = {
    "plugin.json": '{"name": "kit", "version": "1.0.0"}\n',
    "skills/review/SKILL.md": "---\nname: review\ndescription: Review code.\n---\nReview.\n",
    "mcp.json": '{"mcpServers": {"kit-docs": {"command": "${PLUGIN_ROOT}/serve.sh"}}}\n',
    "serve.sh": "#!/bin/sh\nexec cat\n",
    "hooks.json": '{"hooks": {"SessionStart": [{"id": "note", "hooks": [{"type": "command", '
                  '"command": "${PLUGIN_ROOT}/serve.sh"}]}]}}\n',
}
# Long enough that no digest, date or path holds one by chance.
user_names = st.from_regex(r"[a-z][a-z0-9._-]{7,11}", fullmatch=True)
tokens = st.from_regex(r"[A-Za-z0-9_~-]{16,24}", fullmatch=True)
forms = st.sampled_from(["pip", "pip-ref", "pip-subdir", "plain-ref"])


@pytest.fixture(scope="module")
def served() -> tuple[Path, str]:
    """acme/kit.git: the package at the root and under plugins/kit, tagged v1."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "served"
        repo = Repo(root / "acme" / "kit.git")
        commit = repo.commit({**PACKAGE, **{f"plugins/kit/{k}": v for k, v in PACKAGE.items()}})
        repo.tag("v1")
        yield root, commit


def _source(form: str, base: str) -> tuple[str, ...]:
    url = f"{base}/acme/kit.git"
    return {
        "pip": (f"git+{url}",),
        "pip-ref": (f"git+{url}@v1",),
        "pip-subdir": (f"git+{url}@main#subdirectory=plugins/kit",),
        "plain-ref": (url, "--ref", "v1"),
    }[form]


def _found(root: Path, needles: tuple[bytes, ...]) -> list[str]:
    hits = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            hits += [f"{path.relative_to(root)}: {n!r}" for n in needles if n in data]
    return hits


@settings(max_examples=12, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=user_names, token=tokens, form=forms)
def test_credentials_in_a_source_url_are_written_nowhere_and_printed_nowhere(
        served: tuple[Path, str], name: str, token: str, form: str) -> None:
    root, _ = served
    with tempfile.TemporaryDirectory() as tmp, smart_http(root, token, user=name) as base:
        world = Path(tmp)
        project, home, uze_home = world / "project", world / "home", world / "uze-home"
        for folder in (project / ".git", home, uze_home):
            folder.mkdir(parents=True)
        env = {**os.environ, "HOME": str(home), "UZE_HOME": str(uze_home),
               "XDG_CONFIG_HOME": str(home / ".config")}
        secret_base = base.replace("http://", f"http://{name}:{token}@")
        runs: list[subprocess.CompletedProcess[str]] = [
            run_uze("install", *_source(form, secret_base), "--harness", "claude_code,codex",
                    "--trust", cwd=project, env=env)]
        assert runs[0].returncode == 0, runs[0].stderr
        runs += [run_uze(*args, cwd=project, env=env)
                 for args in (("install", "--trust"), ("list", "--json"), ("status",))]
        assert all(r.returncode == 0 for r in runs), [r.stderr for r in runs]
        assert (project / "uze.lock").is_file() and (uze_home / "git").is_dir()
        needles = (token.encode(), name.encode())
        assert _found(world, needles) == []
        printed = "".join(r.stdout + r.stderr for r in runs)
        assert token not in printed and name not in printed
