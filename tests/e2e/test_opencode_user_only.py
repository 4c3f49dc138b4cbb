"""OpenCode's user-only skills (adr/0084) through the real `uze`: one owned
`permission.skill.<name> = "deny"` entry in the scope's opencode.json beside the user's own keys,
gone on uninstall with the file byte for byte as it was."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Sandbox
from tests.helpers import build_tree, run_uze, tree_bytes
from uze.projections.config_entry import read_document

pytestmark = pytest.mark.e2e

MINE = b'{\n  // my own rules\n  "permission": {"bash": "ask", "skill": {"x-*": "allow"}}\n}\n'


@pytest.mark.parametrize("scope", ["project", "user"])
def test_a_user_only_skill_gets_one_owned_permission_entry_and_uninstall_restores_the_file(
        sandbox: Sandbox, scope: str) -> None:
    package = build_tree(sandbox.root / "kit", {
        "plugin.json": json.dumps({"name": "kit"}),
        "skills/ship/SKILL.md": "---\nname: ship\ndescription: Ship it.\ninvoke:\n  model: false"
                                "\n---\nShip.\n",
        "skills/look/SKILL.md": "---\nname: look\ndescription: Look around.\n---\nLook.\n"})
    config = (sandbox.project / "opencode.json" if scope == "project"
              else sandbox.home / ".config" / "opencode" / "opencode.json")
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_bytes(MINE)
    before = tree_bytes(sandbox.project), tree_bytes(sandbox.home)
    done = run_uze("install", package, "--harness", "opencode", "--scope", scope, "--trust",
                   cwd=sandbox.project)
    assert done.returncode == 0, done.stderr
    assert read_document(config.read_bytes(), "jsonc") == {
        "permission": {"bash": "ask", "skill": {"x-*": "allow", "kit-ship": "deny"}}}
    assert config.read_bytes().startswith(b'{\n  // my own rules\n')
    status = json.loads(run_uze("status", "kit", "--json", "--scope", scope,
                                cwd=sandbox.project).stdout)
    rows = {p["resource"]: p for p in status["packages"][0]["projections"]}
    assert (rows["ship"]["route"], rows["ship"]["state"]) == ("adapted", "matched")
    assert 'permission.skill.<name> = "deny"' in rows["ship"]["reason"]
    assert (rows["look"]["route"], rows["look"]["reason"]) == ("native", "")
    done = run_uze("uninstall", "kit", "--scope", scope, cwd=sandbox.project)
    assert done.returncode == 0, done.stderr
    assert (tree_bytes(sandbox.project), tree_bytes(sandbox.home)) == before
