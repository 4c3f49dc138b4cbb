"""A marketplace's pins are per plugin (issue 30, adr/0074): three plugins of one marketplace
repository are installed; a commit changes one of them; `outdated` says only that one moved and
`update` moves only its pin, the others staying at the commit their bytes came from."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, as_json, assert_ok
from tests.gitserve import Repo

pytestmark = pytest.mark.e2e
HARNESS = ("--harness", "claude_code")
NAMES = ("alpha", "beta", "gamma")


def _plugin(name: str, version: str, note: str) -> dict[str, str]:
    return {f"plugins/{name}/plugin.json": f'{{"name": "{name}", "version": "{version}"}}\n',
            f"plugins/{name}/skills/main/SKILL.md":
                f"---\nname: main\ndescription: {name}.\n---\n{note}\n"}


def _blocks(project: Path) -> dict[str, str]:
    """Each `[[package]]` block of uze.lock, by name."""
    text = (project / "uze.lock").read_text(encoding="utf-8")
    blocks = text.split("[[package]]")[1:]
    return {name: block for block in blocks
            for name in re.findall(r'^name = "([a-z-]+)"', block, re.M)}


def test_one_changed_plugin_is_the_only_one_outdated_and_the_only_pin_update_moves(
        uze: Uze, sandbox: Sandbox) -> None:
    repo = Repo(sandbox.root / "served" / "market.git")
    catalog = {"name": "team", "owner": {"name": "Team"},
               "plugins": [{"name": n, "source": f"./plugins/{n}"} for n in NAMES]}
    files = {".claude-plugin/marketplace.json": json.dumps(catalog)}
    for name in NAMES:
        files |= _plugin(name, "1.0.0", f"{name} one")
    first = repo.commit(files)
    assert_ok(uze("marketplace", "add", f"git+{repo.url}"))
    for name in NAMES:
        assert_ok(uze("install", f"{name}@team", *HARNESS))
    before = _blocks(sandbox.project)
    assert all(f'commit = "{first}"' in block for block in before.values())

    second = repo.commit(_plugin("beta", "1.1.0", "beta two"))  # only beta changes
    report = as_json(assert_ok(uze("outdated", "--json")))["packages"]
    assert {p["name"]: p["state"] for p in report} == {
        "alpha": "current", "beta": "outdated", "gamma": "current"}
    assert {p["name"]: p["current_commit"] for p in report} == dict.fromkeys(NAMES, second)
    assert _blocks(sandbox.project) == before  # outdated writes nothing

    done = assert_ok(uze("update")).stdout
    assert f"beta: 1.0.0 -> 1.1.0 ({first[:12]} -> {second[:12]})" in done
    assert f"alpha 1.0.0: up to date ({first[:12]})" in done
    after = _blocks(sandbox.project)
    assert after["alpha"] == before["alpha"] and after["gamma"] == before["gamma"]
    assert f'commit = "{second}"' in after["beta"] and 'version = "1.1.0"' in after["beta"]
    skill = sandbox.project / ".claude/skills/beta/skills/main/SKILL.md"
    assert skill.read_text().endswith("beta two\n")
    assert_ok(uze("status", "--check"))
    again = as_json(assert_ok(uze("outdated", "--json")))["packages"]
    assert {p["state"] for p in again} == {"current"}


def test_a_chosen_subset_of_skills_is_current_after_an_unrelated_commit(
        uze: Uze, sandbox: Sandbox) -> None:
    """A pin whose tree is a subset of its plugin folder (a catalog entry's `skills` list, or
    `--skill`) is compared with the same subset at the new commit, not the whole folder: an
    unrelated commit leaves it current, and a change to a chosen skill makes it outdated."""
    repo = Repo(sandbox.root / "served" / "market.git")
    catalog = {"name": "team", "owner": {"name": "Team"}, "plugins": [
        {"name": "listed", "source": "./plugins/listed", "strict": False,
         "skills": ["./skills/one"]},
        {"name": "picked", "source": "./plugins/picked"},
        {"name": "other", "source": "./plugins/other"}]}
    files = {".claude-plugin/marketplace.json": json.dumps(catalog)}
    for name in ("listed", "picked"):
        for skill in ("one", "two"):
            files[f"plugins/{name}/skills/{skill}/SKILL.md"] = \
                f"---\nname: {skill}\ndescription: {name} {skill}.\n---\nbody\n"
    files["plugins/picked/plugin.json"] = '{"name": "picked", "version": "1.0.0"}\n'
    files |= _plugin("other", "1.0.0", "other one")
    repo.commit(files)
    assert_ok(uze("marketplace", "add", f"git+{repo.url}"))
    assert_ok(uze("install", "listed@team", *HARNESS))
    assert_ok(uze("install", "picked@team", "--skill", "one", *HARNESS))

    repo.commit(_plugin("other", "1.1.0", "other two"))
    report = as_json(assert_ok(uze("outdated", "--json")))["packages"]
    assert {p["name"]: p["state"] for p in report} == {"listed": "current", "picked": "current"}

    repo.commit({"plugins/listed/skills/two/SKILL.md":
                 "---\nname: two\ndescription: listed two.\n---\nchanged, not chosen\n",
                 "plugins/picked/skills/one/SKILL.md":
                 "---\nname: one\ndescription: picked one.\n---\nchanged\n"})
    report = as_json(assert_ok(uze("outdated", "--json")))["packages"]
    assert {p["name"]: p["state"] for p in report} == {"listed": "current", "picked": "outdated"}
