"""Issue 31 item 4: repositories as people publish them, over real git on loopback.

The fixtures are written here in the shapes of published repositories (never their files): a
repository whose root is a marketplace of skill collections (anthropics/skills: `strict: false`
entries with source `./`, each listing some of the skills under `skills/`, and a `template/`
skill no entry names), a marketplace with `metadata.pluginRoot`, and entries whose `skills`,
`commands` and `agents` lists narrow (strict: false) or add to (strict) a plugin's own.
"""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, as_json, assert_ok, person
from tests.gitserve import Repo
from tests.helpers import tree_bytes

pytestmark = pytest.mark.e2e
FOUR = ("--harness", "claude_code,codex,gemini_cli,opencode")
SKILLS = ("sheet", "slides", "art", "brand", "testing", "api")


def _skill(name: str) -> str:
    return f"---\nname: {name}\ndescription: The {name} skill (collection fixture).\n---\n{name}\n"


def _collection(sandbox: Sandbox) -> Repo:
    """A skill repository whose root is a marketplace of three collections."""
    repo = Repo(sandbox.root / "served" / "acme" / "skills.git")
    catalog = {"name": "acme-agent-skills", "owner": {"name": "Acme"},
               "metadata": {"description": "Example skills", "version": "1.0.0"},
               "plugins": [
                   {"name": "office-skills", "description": "Spreadsheets and slides",
                    "source": "./", "strict": False,
                    "skills": ["./skills/sheet", "./skills/slides"]},
                   {"name": "example-skills", "description": "Art, brand and web testing",
                    "source": "./", "strict": False,
                    "skills": ["./skills/art", "./skills/brand", "./skills/testing"]},
                   {"name": "api-skill", "description": "One API skill", "source": "./",
                    "strict": False, "skills": ["./skills/api"]}]}
    files = {f"skills/{name}/SKILL.md": _skill(name) for name in SKILLS}
    repo.commit({".claude-plugin/marketplace.json": json.dumps(catalog, indent=2),
                 "README.md": "# Skills\n", "template/SKILL.md": _skill("template-skill"),
                 "spec/agent-skills-spec.md": "The format.\n", **files})
    return repo


def _skill_rows(uze: Uze, name: str) -> dict[str, list[str]]:
    """Each harness's skill resources of package `name`, as `uze status --json` lists them."""
    status = as_json(assert_ok(uze("status", name, "--json")))
    rows: dict[str, list[str]] = {}
    for row in status["packages"][0]["projections"]:
        if row["kind"] == "skill":
            rows.setdefault(row["harness"], []).append(row["resource"])
    return {harness: sorted(found) for harness, found in rows.items()}


def _outside_uze_home(sandbox: Sandbox) -> dict[str, Any]:
    return {"project": tree_bytes(sandbox.project), "home": tree_bytes(sandbox.home)}


def test_a_marketplace_repository_lists_its_plugins_and_installs_nothing(
        uze: Uze, sandbox: Sandbox) -> None:
    repo = _collection(sandbox)
    before = _outside_uze_home(sandbox)
    refused = uze("install", f"git+{repo.url}", *FOUR)
    assert refused.returncode == 1, refused.stderr
    assert "is a marketplace of 3 plugins (office-skills, example-skills, api-skill), not a " \
           "package; nothing was installed" in refused.stderr
    assert f"hint: choose one: uze install git+{repo.url} --plugin office-skills" in refused.stderr
    assert _outside_uze_home(sandbox) == before
    unknown = uze("install", f"git+{repo.url}", "--plugin", "office-skill", *FOUR)
    assert unknown.returncode == 1
    assert "its marketplace lists no plugin office-skill (it lists office-skills, " \
           "example-skills, api-skill)" in unknown.stderr
    assert "did you mean 'office-skills'?" in unknown.stderr
    assert _outside_uze_home(sandbox) == before


def test_each_plugin_of_a_collection_installs_exactly_the_skills_its_entry_lists(
        uze: Uze, sandbox: Sandbox) -> None:
    repo = _collection(sandbox)
    before = _outside_uze_home(sandbox)
    assert_ok(uze("install", f"git+{repo.url}", "--plugin", "office-skills", *FOUR))
    assert_ok(uze("install", f"git+{repo.url}#plugin=example-skills", *FOUR))
    office, example = _skill_rows(uze, "office-skills"), _skill_rows(uze, "example-skills")
    for harness in ("claude_code", "codex", "gemini_cli", "opencode"):
        assert office[harness] == ["sheet", "slides"], (harness, office)
        assert example[harness] == ["art", "brand", "testing"], (harness, example)
    # Claude Code gets each plugin as one folder holding only its own skills (no template)
    plugin = sandbox.project / ".claude" / "skills" / "office-skills"
    assert sorted(p.parent.name for p in (plugin / "skills").glob("*/SKILL.md")) == \
        ["sheet", "slides"]
    manifest = json.loads((plugin / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["skills"] == ["./skills/sheet", "./skills/slides"]
    # every other harness: each skill once, under the package's label, never template-skill
    status = as_json(assert_ok(uze("status", "--json")))
    labels = sorted(r["label"] for p in status["packages"] for r in p["projections"]
                    if r["kind"] == "skill" and r["harness"] == "opencode")
    assert labels == ["example-skills-art", "example-skills-brand", "example-skills-testing",
                      "office-skills-sheet", "office-skills-slides"]
    toml = (sandbox.project / "uze.toml").read_text()
    assert f'office-skills = "git+{repo.url}#plugin=office-skills"' in toml
    lock = (sandbox.project / "uze.lock").read_text()
    assert lock.count('plugin = "') == 2 and 'plugin = "example-skills"' in lock
    for name in ("office-skills", "example-skills"):
        assert_ok(uze("uninstall", name))
    assert _outside_uze_home(sandbox) == before


def test_a_skill_subset_is_recorded_in_the_lock_and_reproduced_from_it(
        uze: Uze, sandbox: Sandbox) -> None:
    repo = _collection(sandbox)
    before = _outside_uze_home(sandbox)
    missing = uze("install", f"git+{repo.url}", "--plugin", "example-skills", "--skill", "arts",
                  *FOUR)
    assert missing.returncode == 1
    assert "example-skills has no skill arts (its skills: art, brand, testing)" in missing.stderr
    assert "did you mean 'art'?" in missing.stderr
    assert _outside_uze_home(sandbox) == before
    assert_ok(uze("install", f"git+{repo.url}", "--plugin", "example-skills", "--skill", "art",
                  "--skill", "testing", *FOUR))
    rows = _skill_rows(uze, "example-skills")
    assert all(found == ["art", "testing"] for found in rows.values()), rows
    declared = f"git+{repo.url}#plugin=example-skills&skill=art&skill=testing"
    assert f'example-skills = "{declared}"' in (sandbox.project / "uze.toml").read_text()
    lock = (sandbox.project / "uze.lock").read_text()
    assert 'skills = ["art", "testing"]' in lock and 'plugin = "example-skills"' in lock
    # a teammate reproduces exactly those bytes from uze.toml and uze.lock alone
    mate = sandbox.root / "mate" / "project"
    (mate / ".git").mkdir(parents=True)
    for rel in ("uze.toml", "uze.lock"):
        shutil.copy2(sandbox.project / rel, mate / rel)
    env = person(sandbox.root / "people", "mate")
    assert_ok(uze("install", "--frozen", cwd=mate, env=env))
    delivered = (".claude/", ".agents/", ".codex/", ".gemini/", ".opencode/", "uze.")
    mine = {k: v for k, v in tree_bytes(sandbox.project).items() if k.startswith(delivered)}
    theirs = {k: v for k, v in tree_bytes(mate).items() if k.startswith(delivered)}
    assert theirs == mine and any(k.startswith(".claude/skills/example-skills/") for k in mine)


def _rooted(sandbox: Sandbox, root: object, sources: dict[str, str]) -> Repo:
    repo = Repo(sandbox.root / "served" / "acme" / f"rooted-{len(sources)}.git")
    metadata = {} if root is None else {"metadata": {"pluginRoot": root}}
    catalog = {"name": "rooted", "owner": {"name": "Acme"}, **metadata,
               "plugins": [{"name": n, "source": s} for n, s in sources.items()]}
    files = {".claude-plugin/marketplace.json": json.dumps(catalog)}
    for name, folder in (("alpha", "plugins/alpha"), ("beta", "plugins/beta"),
                         ("gamma", "gamma")):
        files[f"{folder}/.claude-plugin/plugin.json"] = json.dumps({"name": name})
        files[f"{folder}/skills/{name}-skill/SKILL.md"] = _skill(f"{name}-skill")
    repo.commit(files)
    return repo


def test_plugin_root_is_applied_once_as_claude_code_applies_it(
        uze: Uze, sandbox: Sandbox) -> None:
    """A bare name resolves under `metadata.pluginRoot`; `./plugins/beta` and `./gamma` are
    relative to the marketplace root (Claude Code 2.1.332), never `plugins/plugins/beta`."""
    repo = _rooted(sandbox, "./plugins",
                   {"alpha": "alpha", "beta": "./plugins/beta", "gamma": "./gamma"})
    for name in ("alpha", "beta", "gamma"):
        assert_ok(uze("install", f"git+{repo.url}", "--plugin", name, "--harness", "codex"))
        assert _skill_rows(uze, name) == {"codex": [f"{name}-skill"]}
    added = assert_ok(uze("marketplace", "add", f"git+{repo.url}"))
    assert "Added marketplace rooted (3 plugins)" in added.stdout
    bare = _rooted(sandbox, None, {"alpha": "alpha", "beta": "./plugins/beta"})
    refused = uze("install", f"git+{bare.url}", "--plugin", "alpha", "--harness", "codex")
    assert refused.returncode == 1
    assert "alpha in" in refused.stderr and "is a bare source name, and the marketplace sets " \
        "no usable metadata.pluginRoot" in refused.stderr


def _lists_market(sandbox: Sandbox, extra: dict[str, Any]) -> Repo:
    repo = Repo(sandbox.root / "served" / "acme" / f"lists-{len(extra)}.git")
    plugins = [
        {"name": "tools", "source": "./plugins/tools", "skills": ["./extra/added"]},
        {"name": "loose", "source": "./plugins/loose", "strict": False, "version": "1.0.0",
         "commands": ["./commands/one.md"], "agents": ["./agents/first.md"], **extra}]
    command = "---\ndescription: Run {0}.\n---\nDo {0}.\n"
    agent = "---\nname: {0}\ndescription: The {0} agent.\n---\nBe {0}.\n"
    repo.commit({
        ".claude-plugin/marketplace.json": json.dumps({"name": "lists", "owner": {"name": "A"},
                                                      "plugins": plugins}),
        "plugins/tools/.claude-plugin/plugin.json": json.dumps({"name": "tools"}),
        "plugins/tools/skills/own/SKILL.md": _skill("own"),
        "plugins/tools/extra/added/SKILL.md": _skill("added"),
        "plugins/tools/extra/unlisted/SKILL.md": _skill("unlisted"),
        **{f"plugins/loose/commands/{n}.md": command.format(n) for n in ("one", "two")},
        **{f"plugins/loose/agents/{n}.md": agent.format(n) for n in ("first", "second")}})
    return repo


def test_entry_lists_narrow_a_loose_plugin_and_add_to_a_strict_one(
        uze: Uze, sandbox: Sandbox) -> None:
    repo = _lists_market(sandbox, {})
    assert_ok(uze("marketplace", "add", f"git+{repo.url}"))
    assert_ok(uze("install", "tools@lists", "--harness", "opencode"))
    assert _skill_rows(uze, "tools") == {"opencode": ["added", "own"]}
    assert_ok(uze("install", "loose@lists", "--harness", "opencode"))
    status = as_json(assert_ok(uze("status", "loose", "--json")))
    kinds = sorted((r["kind"], r["resource"]) for r in status["packages"][0]["projections"])
    assert kinds == [("agent", "first"), ("command", "one")]


def test_an_entry_list_that_leaves_the_plugin_is_refused_and_nothing_is_written(
        uze: Uze, sandbox: Sandbox) -> None:
    repo = _lists_market(sandbox, {"skills": ["../tools/skills/own"]})
    before = _outside_uze_home(sandbox)
    refused = uze("install", f"git+{repo.url}", "--plugin", "loose", "--harness", "opencode")
    assert refused.returncode == 1
    assert "'../tools/skills/own' leaves the package" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert _outside_uze_home(sandbox) == before


def test_plugin_and_skill_need_a_source(uze: Uze) -> None:
    refused = uze("install", "--skill", "art")
    assert refused.returncode == 2
    assert "--plugin, --skill and --all-plugins choose from a SOURCE" in refused.stderr


def test_a_folder_package_installs_a_subset_of_its_skills(uze: Uze, sandbox: Sandbox) -> None:
    folder = sandbox.root / "kit"
    for name in ("plan", "review", "ship"):
        (folder / "skills" / name).mkdir(parents=True)
        (folder / "skills" / name / "SKILL.md").write_text(_skill(name), encoding="utf-8")
    (folder / "plugin.json").write_text('{"name": "kit", "version": "1.0.0"}\n')
    assert_ok(uze("install", str(folder), "--skill", "review", "--harness", "codex"))
    assert _skill_rows(uze, "kit") == {"codex": ["review"]}
    assert 'kit = "../kit#skill=review"' in (sandbox.project / "uze.toml").read_text()
    assert 'skills = ["review"]' in (sandbox.project / "uze.lock").read_text()
    # the pin is the subset's tree: a skill not chosen changing leaves it current
    (folder / "skills" / "ship" / "SKILL.md").write_text(_skill("ship") + "More.\n")
    drift = as_json(assert_ok(uze("outdated", "--json")))["packages"]
    assert [d["state"] for d in drift] == ["current"], drift
    (folder / "skills" / "review" / "SKILL.md").write_text(_skill("review") + "More.\n")
    drift = as_json(assert_ok(uze("outdated", "--json")))["packages"]
    assert [d["state"] for d in drift] == ["outdated"], drift


def test_search_finds_a_plugin_by_the_skills_inside_it_offline(
        uze: Uze, sandbox: Sandbox) -> None:
    repo = _collection(sandbox)
    assert_ok(uze("marketplace", "add", f"git+{repo.url}"))
    shutil.rmtree(sandbox.root / "served")  # searching reads no network
    found = as_json(assert_ok(uze("search", "slides", "--json")))["results"]
    assert [(r["name"], r["skills"]) for r in found] == [("office-skills", ["slides"])]
    by_description = as_json(assert_ok(uze("search", "THE ART SKILL", "--json")))["results"]
    assert [(r["name"], r["skills"]) for r in by_description] == [("example-skills", ["art"])]
    # the template no entry lists is in no plugin; a plugin's own words still match
    assert as_json(assert_ok(uze("search", "template", "--json")))["results"] == []
    shown = assert_ok(uze("search", "spreadsheets")).stdout
    assert "office-skills@acme-agent-skills" in shown and "(skills:" not in shown
    assert "(skills: testing)" in assert_ok(uze("search", "testing")).stdout
    assert_ok(uze("marketplace", "remove", "acme-agent-skills"))
    assert not (sandbox.uze_home / "marketplaces").exists()


def test_a_repository_of_skill_folders_is_one_package_named_after_it(
        uze: Uze, sandbox: Sandbox) -> None:
    """No manifest, no catalog: `skills/<name>/SKILL.md` (or skill folders at the root) is a
    package named after the repository, never `package`."""
    nested = Repo(sandbox.root / "served" / "acme" / "team-skills.git")
    nested.commit({"README.md": "# Our skills\n", "LICENSE": "MIT\n",
                   **{f"skills/{n}/SKILL.md": _skill(n) for n in ("plan", "review")}})
    flat = Repo(sandbox.root / "served" / "acme" / "flat_Skills.git")
    flat.commit({f"{n}/SKILL.md": _skill(n) for n in ("draft", "polish")})
    assert_ok(uze("install", f"git+{nested.url}", "--harness", "codex"))
    assert _skill_rows(uze, "team-skills") == {"codex": ["plan", "review"]}
    assert_ok(uze("install", f"git+{flat.url}", "--skill", "polish", "--harness", "codex"))
    assert _skill_rows(uze, "flat-skills") == {"codex": ["polish"]}
    listed = {p["name"] for p in as_json(assert_ok(uze("list", "--json")))["packages"]}
    assert listed == {"team-skills", "flat-skills"}


def test_all_plugins_installs_every_plugin_of_the_marketplace_each_declared(
        uze: Uze, sandbox: Sandbox) -> None:
    repo = _collection(sandbox)
    result = assert_ok(uze("install", f"git+{repo.url}", "--all-plugins", *FOUR))
    for name in ("office-skills", "example-skills", "api-skill"):
        assert f"{name} 0.0.0: installed" in result.stdout, result.stdout
    rows = {name: _skill_rows(uze, name)["codex"]
            for name in ("office-skills", "example-skills", "api-skill")}
    assert rows == {"office-skills": ["sheet", "slides"], "example-skills":
                    ["art", "brand", "testing"], "api-skill": ["api"]}
    toml = (sandbox.project / "uze.toml").read_text()
    assert toml.count(f"git+{repo.url}#plugin=") == 3
    folder = sandbox.root / "kit"
    (folder / "skills" / "a").mkdir(parents=True)
    (folder / "skills" / "a" / "SKILL.md").write_text(_skill("a"), encoding="utf-8")
    (folder / "plugin.json").write_text('{"name": "kit"}\n', encoding="utf-8")
    refused = uze("install", str(folder), "--all-plugins", *FOUR)
    assert refused.returncode == 1 and "is not a marketplace" in refused.stderr


def test_a_chosen_plugin_and_skill_stay_chosen_through_outdated_and_update(
        uze: Uze, sandbox: Sandbox) -> None:
    repo = _collection(sandbox)
    assert_ok(uze("install", f"git+{repo.url}", "--plugin", "example-skills", "--skill", "art",
                  "--harness", "codex"))
    toml = (sandbox.project / "uze.toml").read_bytes()
    repo.commit({"skills/art/SKILL.md": _skill("art") + "Now with colour.\n"})
    drift = as_json(assert_ok(uze("outdated", "--json")))
    assert [d["state"] for d in drift["packages"]] == ["outdated"], drift
    assert_ok(uze("update", "example-skills"))
    assert _skill_rows(uze, "example-skills") == {"codex": ["art"]}
    assert (sandbox.project / "uze.toml").read_bytes() == toml
    skill = next((sandbox.project / ".agents" / "skills").glob("*art*/SKILL.md"))
    assert skill.read_text().endswith("Now with colour.\n")
    lock = (sandbox.project / "uze.lock").read_text()
    assert 'plugin = "example-skills"' in lock and 'skills = ["art"]' in lock
