"""Issue 22: marketplaces (Claude Code's and Codex's catalogs) registered from git, searched
offline, and installed from by `plugin@marketplace` with every source kind served locally."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, as_json, assert_ok
from tests.gitserve import Repo, git_daemon
from tests.helpers import tree_bytes

pytestmark = pytest.mark.e2e
HARNESS = ("--harness", "claude_code")


def _package(name: str, version: str, note: str) -> dict[str, str]:
    return {
        "plugin.json": f'{{"name": "{name}", "version": "{version}"}}\n',
        "skills/review/SKILL.md": f"---\nname: review\ndescription: Review.\n---\n{note}\n",
    }


def _at(folder: str, files: dict[str, str]) -> dict[str, str]:
    return {f"{folder}/{rel}": text for rel, text in files.items()}


@pytest.fixture
def market(sandbox: Sandbox) -> tuple[Repo, dict[str, str]]:
    """A git marketplace whose catalog lists a relative entry, a `url` entry at a tag, a
    `git-subdir` entry at a sha, a `github` entry, a `strict: false` entry and an npm entry."""
    served = sandbox.root / "served"
    tools = Repo(served / "acme" / "tools.git")
    tools.commit(_package("tools", "3.0.0", "tools"))
    tools.tag("v3")
    Repo(served / "acme" / "gh.git").commit(_package("gh", "4.0.0", "from github"))
    mono = Repo(served / "acme" / "mono.git")
    sha = mono.commit(_at("plugins/deep", _package("deep", "0.5.0", "deep")))
    mono.commit(_at("plugins/deep", _package("deep", "0.6.0", "deeper")))
    repo = Repo(served / "acme" / "market.git")
    catalog = {"name": "team-market", "owner": {"name": "Team"}, "plugins": [
        {"name": "flow", "source": "./plugins/flow", "description": "Flow review helpers",
         "keywords": ["review"]},
        {"name": "tools", "source": {"source": "url", "url": tools.url, "ref": "v3"}},
        {"name": "deep", "source": {"source": "git-subdir", "url": mono.url,
                                    "path": "plugins/deep", "sha": sha}},
        {"name": "gh", "source": {"source": "github", "repo": "acme/gh"}},
        {"name": "loose", "source": "./plugins/loose-files", "strict": False, "version": "2.0.0",
         "description": "Skills listed by the catalog", "skills": ["./skills/review"]},
        {"name": "packaged", "source": {"source": "npm", "package": "@acme/packaged"}},
    ]}
    repo.commit({".claude-plugin/marketplace.json": json.dumps(catalog, indent=2),
                 **_at("plugins/flow", _package("flow", "1.0.0", "market flow")),
                 "plugins/loose-files/skills/review/SKILL.md":
                     "---\nname: review\ndescription: Loose.\n---\nloose\n"})
    return repo, {"deep-sha": sha, "served": str(served)}


def _lock(project: Path) -> str:
    return (project / "uze.lock").read_text(encoding="utf-8")


def test_a_marketplace_is_added_searched_offline_and_installed_from(
        uze: Uze, sandbox: Sandbox, market: tuple[Repo, dict[str, str]]) -> None:
    repo, facts = market
    with git_daemon(Path(facts["served"])) as daemon:
        env = {**os.environ, "UZE_GITHUB_URL": daemon}
        added = assert_ok(uze("marketplace", "add", f"git+{repo.url}", env=env))
        assert "Added marketplace team-market (6 plugins)" in added.stdout
        for name, version, note in (("flow", "1.0.0", "market flow"), ("tools", "3.0.0", "tools"),
                                    ("deep", "0.5.0", "deep"), ("gh", "4.0.0", "from github"),
                                    ("loose", "2.0.0", "loose")):
            result = uze("install", f"{name}@team-market", *HARNESS, env=env)
            assert result.returncode == 0, (name, result.stderr)
            # Claude Code gets every package as one plugin folder (adr/0041, adr/0048)
            skill = sandbox.project / ".claude" / "skills" / name / "skills/review/SKILL.md"
            assert skill.read_text().endswith(f"{note}\n"), name
            listed = {p["name"]: p for p in as_json(assert_ok(uze("list", "--json")))["packages"]}
            assert listed[name]["version"] == version
            assert listed[name]["source"] == f"{name}@team-market"
    refused = uze("install", "packaged@team-market", *HARNESS)
    assert refused.returncode == 1 and "a npm source" in refused.stderr
    lock = _lock(sandbox.project)
    assert lock.count('marketplace = "team-market"') == 5
    assert f'commit = "{facts["deep-sha"]}"' in lock
    manifest = (sandbox.project / "uze.toml").read_text()
    assert 'deep = "deep@team-market"' in manifest
    # Offline: the catalogs are cached.
    shutil.rmtree(facts["served"])
    found = as_json(assert_ok(uze("search", "review", "--json")))["results"]
    # flow by its keyword and its skill, loose by the skill its entry lists (issue 31 item 4);
    # the plugins fetched from elsewhere are indexed only by the skills their entries list
    assert {r["name"]: r["skills"] for r in found} == {"flow": ["review"], "loose": ["review"]}
    names = as_json(assert_ok(uze("marketplace", "list", "--json")))["marketplaces"][0]["plugins"]
    assert names == ["flow", "tools", "deep", "gh", "loose", "packaged"]


def test_a_teammate_reproduces_marketplace_plugins_from_the_lock(
        uze: Uze, sandbox: Sandbox, market: tuple[Repo, dict[str, str]]) -> None:
    repo, _facts = market
    assert_ok(uze("marketplace", "add", f"git+{repo.url}", "--name", "ours"))
    assert_ok(uze("install", "flow@ours", *HARNESS))
    assert_ok(uze("install", "tools@ours", *HARNESS))
    other = sandbox.root / "mate"
    project = other / "project"
    (project / ".git").mkdir(parents=True)
    for rel in ("uze.toml", "uze.lock"):
        shutil.copy2(sandbox.project / rel, project / rel)
    env = {**os.environ, "HOME": str(other / "home"), "UZE_HOME": str(other / "uze-home")}
    result = uze("install", "--frozen", cwd=project, env=env)
    assert result.returncode == 0, result.stderr
    delivered = {k: v for k, v in tree_bytes(project).items() if k.startswith(".claude")}
    assert delivered == {k: v for k, v in tree_bytes(sandbox.project).items()
                         if k.startswith(".claude")}
    assert re.search(r"flow 1\.0\.0: installed", result.stdout)


def test_a_codex_catalog_is_read_too_and_remove_forgets_the_marketplace(
        uze: Uze, sandbox: Sandbox) -> None:
    folder = sandbox.root / "codex-market"
    catalog = {"name": "codex-market", "plugins": [
        {"name": "notes", "source": {"source": "local", "path": "./plugins/notes"},
         "policy": {"installation": "AVAILABLE"}, "category": "Productivity"}]}
    from tests.helpers import build_tree

    build_tree(folder, {".agents/plugins/marketplace.json": json.dumps(catalog),
                        **_at("plugins/notes", _package("notes", "1.2.0", "codex notes"))})
    before = tree_bytes(sandbox.uze_home)
    assert_ok(uze("marketplace", "add", str(folder)))
    assert_ok(uze("install", "notes@codex-market", *HARNESS))
    assert 'notes = "notes@codex-market"' in (sandbox.project / "uze.toml").read_text()
    assert str(sandbox.root) not in _lock(sandbox.project)
    assert_ok(uze("uninstall", "notes"))
    assert_ok(uze("marketplace", "remove", "codex-market"))
    after = tree_bytes(sandbox.uze_home)
    assert not any(k.startswith("marketplaces") for k in after)
    assert {k for k in before if k.startswith("marketplaces")} == set()
    missing = uze("install", "notes@codex-market", *HARNESS)
    assert missing.returncode == 1 and "no marketplace named codex-market" in missing.stderr
