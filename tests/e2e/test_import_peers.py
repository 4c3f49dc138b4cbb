"""Issue 34 item 3: `uze install --from FILE` turns a peer's manifest into uze.toml declarations,
installed and pinned in uze.lock as `uze install` with no SOURCE converges; what cannot be
translated is reported by entry; bad input is refused with its location, nothing written.

The real `uze` in a subprocess, real git over loopback (the skills CLI's `owner/repo` sources
through `UZE_GITHUB_URL` to a git daemon)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, as_json, assert_ok, snapshot
from tests.gitserve import Repo, git_daemon

pytestmark = pytest.mark.e2e
HARNESS = ("--harness", "claude_code,codex")


def _skill(name: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: Does {name}.\n---\n{body}\n"


@pytest.fixture
def served(sandbox: Sandbox) -> Path:
    """acme/tools (skills pdf, xlsx, docx) and acme/notes (skill jot), bare repos to serve."""
    root = sandbox.root / "served"
    tools = Repo(root / "acme" / "tools.git")
    tools.commit({f"skills/{n}/SKILL.md": _skill(n, f"{n} one") for n in ("pdf", "xlsx", "docx")})
    tools.tag("v1")
    tools.commit({"skills/pdf/SKILL.md": _skill("pdf", "pdf two")})
    notes = Repo(root / "acme" / "notes.git")
    notes.commit({"skills/jot/SKILL.md": _skill("jot", "jot one")})
    return root


def folder_hash(files: list[tuple[str, str]]) -> str:
    """The skills CLI's `computedHash` of a skill folder holding `files` (path, text), given
    in the order its `localeCompare` sorts them: sha256 over each path then its bytes."""
    digest = hashlib.sha256()
    for rel, text in files:
        digest.update(rel.encode())
        digest.update(text.encode())
    return digest.hexdigest()


def _one(name: str, body: str) -> str:
    return folder_hash([("SKILL.md", _skill(name, body))])


def _lock_file(project: Path, skills: dict[str, dict[str, str]]) -> Path:
    path = project / "skills-lock.json"
    path.write_text(json.dumps({"version": 1, "skills": skills}, indent=2) + "\n")
    return path


def test_a_skills_lock_is_declared_installed_and_pinned_reporting_what_it_cannot(
        uze: Uze, sandbox: Sandbox, served: Path) -> None:
    _lock_file(sandbox.project, {
        "pdf": {"source": "acme/tools", "ref": "v1", "sourceType": "github",
                "computedHash": _one("pdf", "pdf one")},
        "xlsx": {"source": "acme/tools", "ref": "v1", "sourceType": "github",
                 "computedHash": _one("xlsx", "xlsx one")},
        "jot": {"source": "acme/notes", "sourceType": "github",
                "computedHash": _one("jot", "jot one")},
        "mine": {"source": "./local/mine", "sourceType": "local", "computedHash": "3" * 64},
    })
    with git_daemon(served) as daemon:
        env = {**os.environ, "UZE_GITHUB_URL": daemon}
        result = uze("install", "--from", "skills-lock.json", *HARNESS, env=env)
        assert_ok(result)
        manifest = (sandbox.project / "uze.toml").read_text()
        assert f'tools = "git+{daemon}/acme/tools.git@v1#skill=pdf&skill=xlsx"' in manifest
        assert f'notes = "git+{daemon}/acme/notes.git#skill=jot"' in manifest
        assert "mine" not in manifest
        lock = (sandbox.project / "uze.lock").read_text()
        assert lock.count(f'source = "git+{daemon}/acme/tools.git"') == 1
        assert 'ref = "v1"' in lock
        assert "not translated: mine: sourceType 'local'" in result.stderr + result.stdout
        tools = sandbox.project / ".claude" / "skills" / "tools" / "skills"
        assert (tools / "pdf" / "SKILL.md").read_text().endswith("pdf one\n")  # v1, not HEAD
        assert sorted(p.name for p in tools.iterdir()) == ["pdf", "xlsx"]  # docx: not locked
        notes = sandbox.project / ".claude" / "skills" / "notes" / "skills"
        assert (notes / "jot" / "SKILL.md").read_text().endswith("jot one\n")
        codex = sandbox.project / ".agents" / "skills"
        assert sorted(p.name for p in codex.iterdir()) == ["notes-jot", "tools-pdf", "tools-xlsx"]
        # again: nothing changes, everything already installed
        before = snapshot(sandbox)
        again = uze("install", "--from", "skills-lock.json", *HARNESS, "--json", env=env)
        assert_ok(again)
        doc = as_json(again)
        assert [u["entry"] for u in doc["from"]["untranslated"]] == ["mine"]
        assert {p["action"] for p in doc["packages"]} == {"present"}
        assert snapshot(sandbox) == before
    # the declarations are ordinary: a plain converge (the upstream gone) keeps everything
    assert_ok(uze("install", "--frozen", *HARNESS))


@pytest.mark.parametrize(("file", "text", "said"), [
    ("skills-lock.json", '{"version": 1, "skills": {',
     "skills-lock.json: line 1, column 27: not valid JSON"),
    ("skills-lock.json", '{"plugins": []}', "skills-lock.json: unknown format"),
    ("skills-lock.json", '{"version": 2, "skills": {}}', "skills-lock.json: version: 2"),
    ("skills-lock.json", '{"version": 1, "skills": {"pdf": {"source": 3}}}',
     "skills-lock.json: skills.pdf:"),
    ("apm.yml", "dependencies:\n  apm: [a\n", "apm.yml: line 3, column 1: not valid YAML"),
    ("apm.yml", "dependencies:\n  - acme/tools\n", "apm.yml: dependencies: a mapping"),
    ("apm.yml", "dependencies:\n  apm:\n    - 7\n", "apm.yml: dependencies.apm[0]: an entry is"),
])
def test_bad_input_is_refused_with_its_location_and_nothing_is_written(
        uze: Uze, sandbox: Sandbox, file: str, text: str, said: str) -> None:
    (sandbox.project / file).write_text(text)
    before = snapshot(sandbox)
    result = uze("install", "--from", file, *HARNESS)
    assert result.returncode == 1, result.stderr
    assert f"uze: error: {said}" in result.stderr
    assert "hint:" in result.stderr and "Traceback" not in result.stderr
    assert snapshot(sandbox) == before


def test_from_with_a_source_is_a_usage_error(uze: Uze, sandbox: Sandbox) -> None:
    result = uze("install", "acme/tools", "--from", "skills-lock.json")
    assert result.returncode == 2
    assert "--from FILE declares what FILE lists" in result.stderr


def _plugin(name: str, body: str) -> dict[str, str]:
    return {f"plugins/{name}/.claude-plugin/plugin.json":
            json.dumps({"name": name, "version": "1.0.0"}),
            f"plugins/{name}/skills/{name}-do/SKILL.md": _skill(f"{name}-do", body)}


def test_claude_settings_register_marketplaces_and_declare_enabled_plugins(
        uze: Uze, sandbox: Sandbox) -> None:
    market = Repo(sandbox.root / "served" / "market.git")
    catalog = {"name": "team", "owner": {"name": "Team"}, "plugins": [
        {"name": n, "source": f"./plugins/{n}"} for n in ("flow", "lint", "old")]}
    market.commit({".claude-plugin/marketplace.json": json.dumps(catalog),
                   **_plugin("flow", "flow one"), **_plugin("lint", "lint one"),
                   **_plugin("old", "old one")})
    settings = sandbox.project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({
        "permissions": {"allow": ["Bash(ls)"]},
        "enabledPlugins": {"flow@team": True, "lint@team": True, "old@team": False,
                           "gone@elsewhere": True},
        "extraKnownMarketplaces": {
            "team": {"source": {"source": "git", "url": market.url}},
            "npmish": {"source": {"source": "npm", "package": "@acme/market"}}},
    }, indent=2))
    result = uze("install", "--from", ".claude/settings.json", *HARNESS)
    assert result.returncode == 0, result.stderr
    out = result.stdout + result.stderr
    assert "not translated: old@team: disabled in the settings" in out
    assert "not translated: gone@elsewhere: its marketplace is neither" in out
    assert "not translated: marketplace npmish: source kind 'npm'" in out
    manifest = (sandbox.project / "uze.toml").read_text()
    assert 'flow = "flow@team"' in manifest and 'lint = "lint@team"' in manifest
    assert "old" not in manifest and "gone" not in manifest
    lock = (sandbox.project / "uze.lock").read_text()
    assert lock.count('marketplace = "team"') == 2
    registry = json.loads((sandbox.uze_home / "marketplaces" / "registry.json").read_text())
    assert list(registry["marketplaces"]) == ["team"]
    skills = sandbox.project / ".claude" / "skills"
    assert (skills / "flow" / "skills" / "flow-do" / "SKILL.md").read_text().endswith(
        "flow one\n")
    codex = sandbox.project / ".agents" / "skills"
    assert sorted(p.name for p in codex.iterdir()) == ["flow-do", "lint-do"]
    assert not (skills / "old").exists()


def test_bad_claude_settings_are_refused_and_nothing_is_registered(
        uze: Uze, sandbox: Sandbox) -> None:
    (sandbox.project / "settings.json").write_text(json.dumps({
        "enabledPlugins": {"flow": True},
        "extraKnownMarketplaces": {"team": {"source": {"source": "git", "url": "/x"}}}}))
    before = snapshot(sandbox)
    result = uze("install", "--from", "settings.json", *HARNESS)
    assert result.returncode == 1
    assert "uze: error: settings.json: enabledPlugins.flow: a key is plugin@marketplace" \
        in result.stderr
    assert snapshot(sandbox) == before


def test_an_apm_manifest_is_declared_installed_and_pinned(
        uze: Uze, sandbox: Sandbox, served: Path) -> None:
    notes = (served / "acme" / "notes.git").as_uri()
    (sandbox.project / "apm.yml").write_text(
        "name: proj\nversion: 1.0.0\ndependencies:\n  apm:\n    - acme/tools#v1\n"
        "    - ./packages/mine\n    - pack@apm-market\n  mcp:\n"
        "    - io.github.github/github-mcp-server\n"
        f"devDependencies:\n  apm:\n    - git: {notes}\n")
    with git_daemon(served) as daemon:
        env = {**os.environ, "UZE_GITHUB_URL": daemon}
        result = uze("install", "--from", "apm.yml", *HARNESS, "--json", env=env)
        assert result.returncode == 0, result.stderr
        doc = as_json(result)
        assert doc["from"]["format"] == "apm.yml"
        assert doc["from"]["declared"] == {"tools": f"git+{daemon}/acme/tools.git@v1",
                                           "notes": f"git+{notes}"}
        assert sorted(u["entry"] for u in doc["from"]["untranslated"]) == [
            "./packages/mine", "io.github.github/github-mcp-server", "pack@apm-market"]
    manifest = (sandbox.project / "uze.toml").read_text()
    assert f'tools = "git+{daemon}/acme/tools.git@v1"' in manifest
    assert 'ref = "v1"' in (sandbox.project / "uze.lock").read_text()
    tools = sandbox.project / ".claude" / "skills" / "tools" / "skills"
    assert sorted(p.name for p in tools.iterdir()) == ["docx", "pdf", "xlsx"]  # the whole repo
    assert (tools / "pdf" / "SKILL.md").read_text().endswith("pdf one\n")


def test_a_dry_run_reports_the_declarations_and_writes_nothing(
        uze: Uze, sandbox: Sandbox, served: Path) -> None:
    _lock_file(sandbox.project, {"jot": {"source": "acme/notes", "sourceType": "github",
                                         "computedHash": _one("jot", "jot one")}})
    before = snapshot(sandbox)
    with git_daemon(served) as daemon:
        env = {**os.environ, "UZE_GITHUB_URL": daemon}
        result = uze("install", "--from", "skills-lock.json", "--dry-run", *HARNESS, env=env)
    assert result.returncode == 0, result.stderr
    assert (f"skills-lock.json (skills-lock.json): declared notes = "
            f"git+{daemon}/acme/notes.git#skill=jot") in result.stdout
    assert snapshot(sandbox) == before


# A skill of several files, named so that the skills CLI's order (`localeCompare`: case
# folded, `_` and `-` before `.`, lower case first) differs from a byte sort.
GUIDE = {"SKILL.md": _skill("guide", "guide one"), "references/Style.md": "style\n",
         "references/style-extra.md": "extra\n", "scripts/run.py": "print(1)\n",
         "LICENSE.txt": "MIT\n", "_notes.md": "notes\n"}
GUIDE_ORDER = ("_notes.md", "LICENSE.txt", "references/style-extra.md", "references/Style.md",
               "scripts/run.py", "SKILL.md")


@pytest.mark.parametrize("tampered", [False, True])
def test_a_skills_locks_computed_hash_is_checked_against_what_was_fetched(
        uze: Uze, sandbox: Sandbox, tampered: bool) -> None:
    """The lock's `computedHash` of each skill is compared with the folder fetched at its
    ref: equal, it installs; different (the source moved the tag, or the lock was edited),
    it is refused naming the lock entry and both hashes, exit 1, nothing written."""
    guides = Repo(sandbox.root / "served" / "acme" / "guides.git")
    guides.commit({f"skills/guide/{rel}": text for rel, text in GUIDE.items()})
    guides.tag("v1")
    files = [(rel, GUIDE[rel]) for rel in GUIDE_ORDER]
    expected = folder_hash(files)
    locked = folder_hash([*files[:-1], ("SKILL.md", GUIDE["SKILL.md"] + "more\n")]) \
        if tampered else expected
    _lock_file(sandbox.project, {"guide": {"source": "acme/guides", "ref": "v1",
                                           "sourceType": "github", "computedHash": locked}})
    before = snapshot(sandbox)
    with git_daemon(sandbox.root / "served") as daemon:
        env = {**os.environ, "UZE_GITHUB_URL": daemon}
        result = uze("install", "--from", "skills-lock.json", *HARNESS, env=env)
    if not tampered:
        assert_ok(result)
        folder = sandbox.project / ".claude" / "skills" / "guides" / "skills" / "guide"
        assert (folder / "references" / "Style.md").read_text() == "style\n"
        return
    assert result.returncode == 1, result.stdout
    assert (f"uze: error: skills-lock.json: skills.guide: computedHash {locked} is not the "
            f"hash of the skill fetched from acme/guides at v1 ({expected})") in result.stderr
    assert "hint:" in result.stderr and "Traceback" not in result.stderr
    assert snapshot(sandbox) == before


@pytest.mark.parametrize("value", ["abc", 7, "Z" * 64])
def test_a_computed_hash_that_is_no_sha256_is_refused_before_anything_is_fetched(
        uze: Uze, sandbox: Sandbox, value: object) -> None:
    _lock_file(sandbox.project, {"pdf": {"source": "acme/tools", "sourceType": "github",
                                         "computedHash": value}})  # type: ignore[dict-item]
    before = snapshot(sandbox)
    result = uze("install", "--from", "skills-lock.json", *HARNESS)
    assert result.returncode == 1, result.stdout
    assert ("uze: error: skills-lock.json: skills.pdf: computedHash: the skills CLI's SHA-256 "
            "of the skill folder, 64 hexadecimal digits") in result.stderr
    assert "hint:" in result.stderr and "Traceback" not in result.stderr
    assert snapshot(sandbox) == before
