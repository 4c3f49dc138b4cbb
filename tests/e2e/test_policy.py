"""Issue 28 item 9: an organisation policy only tightens, and every command obeys it.

An administrator places `$UZE_HOME/policy.toml` (or the file `UZE_POLICY` names). A developer
(or a repository they clone) tries to get past it: `--trust`, a converge from a committed
uze.toml, a re-install of a package installed before the policy, a marketplace registered
under a trusted name from elsewhere, a git source at a moving branch. Each is refused with the
rule and the file named, exit 1, and nothing written; a policy that cannot be read is an error
naming it, never ignored. Every test runs the real `uze` in a subprocess.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, assert_no_traceback, assert_ok, snapshot
from tests.gitserve import Repo
from tests.helpers import build_tree

pytestmark = pytest.mark.e2e

HOOKS = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}]}}
SKILL = "---\nname: s\ndescription: A skill.\n---\nBody.\n"


def _package(root: Path, name: str = "pkg", *, hooks: bool = False) -> Path:
    files = {"plugin.json": json.dumps({"name": name, "version": "1.0.0"}) + "\n",
             "skills/s/SKILL.md": SKILL}
    if hooks:
        files["hooks.json"] = json.dumps(HOOKS)
    return build_tree(root / name, files)


def _policy(sandbox: Sandbox, text: str) -> Path:
    path = sandbox.uze_home / "policy.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _refused(result: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert_no_traceback(result)
    assert result.returncode == 1, result.stderr
    for needle in needles:
        assert needle in result.stderr, (needle, result.stderr)
    assert result.stderr.rstrip().splitlines()[-1].startswith("hint: ")


def test_denied_hooks_are_refused_even_with_trust_by_install_check_and_converge(
        sandbox: Sandbox, uze: Uze) -> None:
    policy = _policy(sandbox, '[powers]\ndeny = ["hooks"]\n')
    source = _package(sandbox.root, hooks=True)
    rule = f'refused by the policy rule [powers] deny = ["hooks"] ({policy})'
    before = snapshot(sandbox)
    _refused(uze("install", source, "--harness", "claude_code", "--trust"), "pkg: hook ", rule)
    _refused(uze("install", source, "--harness", "claude_code", "--trust", "--dry-run"), rule)
    _refused(uze("check", source, "--harness", "claude_code"), rule)
    assert snapshot(sandbox) == before
    _package(sandbox.project / "plugins", hooks=True)
    build_tree(sandbox.project, {"uze.toml": '[packages]\npkg = "./plugins/pkg"\n'})
    before = snapshot(sandbox)
    _refused(uze("install", "--harness", "claude_code", "--trust"), rule)
    assert snapshot(sandbox) == before


def test_a_package_installed_before_the_policy_is_not_reinstalled_past_it(
        sandbox: Sandbox, uze: Uze) -> None:
    """The re-install shortcut plans nothing; with powers denied it does not answer."""
    source = _package(sandbox.root, hooks=True)
    assert_ok(uze("install", source, "--harness", "claude_code", "--trust"))
    policy = _policy(sandbox, '[powers]\ndeny = ["hooks"]\n')
    before = snapshot(sandbox)
    _refused(uze("install", source, "--harness", "claude_code", "--trust"),
             f"({policy})", "[powers] deny")
    assert snapshot(sandbox) == before


def test_sources_outside_the_allow_list_are_refused_and_inside_it_install(
        sandbox: Sandbox, uze: Uze) -> None:
    allowed = _package(sandbox.root / "approved", "good")
    other = _package(sandbox.root / "elsewhere", "bad")
    policy = _policy(sandbox, f'[sources]\nallow = ["{sandbox.root}/approved/*"]\n')
    before = snapshot(sandbox)
    _refused(uze("install", other, "--harness", "codex"),
             f"uze: error: source {other}: refused by the policy rule [sources] allow = "
             f'["{sandbox.root}/approved/*"] ({policy})')
    assert snapshot(sandbox) == before
    assert_ok(uze("install", allowed, "--harness", "codex"))


def test_a_marketplace_from_an_unapproved_source_cannot_borrow_an_approved_name(
        sandbox: Sandbox, uze: Uze) -> None:
    """`*@acme` trusts the acme catalog only while acme is registered from an allowed
    source: one added (before the policy) from anywhere else under that name is refused."""
    catalog = {"name": "acme", "plugins": [{"name": "pkg", "source": "./pkg"}]}
    market = build_tree(sandbox.root / "rogue", {
        ".claude-plugin/marketplace.json": json.dumps(catalog),
        **{f"pkg/{k}": v for k, v in {"plugin.json": '{"name": "pkg", "version": "1.0.0"}',
                                      "skills/s/SKILL.md": SKILL}.items()}})
    assert_ok(uze("marketplace", "add", market))
    policy = _policy(sandbox, '[sources]\nallow = ["*@acme", "git+https://git.acme.example/*"]\n')
    before = snapshot(sandbox)
    _refused(uze("install", "pkg@acme", "--harness", "codex"),
             f"source {market}: refused by the policy rule [sources] allow", f"({policy})")
    _refused(uze("marketplace", "add", market, "--name", "acme2"), "[sources] allow")
    assert snapshot(sandbox) == before


def test_pins_required_refuses_a_branch_and_installs_a_commit(sandbox: Sandbox, uze: Uze
                                                             ) -> None:
    repo = Repo(sandbox.root / "repos" / "flow.git")
    commit = repo.commit({"plugin.json": '{"name": "flow", "version": "1.0.0"}',
                          "skills/s/SKILL.md": SKILL})
    policy = _policy(sandbox, "[pins]\nrequired = true\n")
    before = snapshot(sandbox)
    for moving in (f"git+{repo.url}", f"git+{repo.url}@main"):
        _refused(uze("install", moving, "--harness", "codex"), "is not pinned to a commit",
                 f"refused by the policy rule [pins] required = true ({policy})")
    assert snapshot(sandbox) == before
    assert_ok(uze("install", f"git+{repo.url}@{commit}", "--harness", "codex"))
    assert f'commit = "{commit}"' in (sandbox.project / "uze.lock").read_text(encoding="utf-8")
    assert_ok(uze("install", "--harness", "codex"))  # the lock's commit is a pin


def test_update_cannot_move_a_pin_past_pins_required(sandbox: Sandbox, uze: Uze) -> None:
    """A pin `uze update` would move is a commit nobody chose: refused; the lock's own commit
    still installs."""
    repo = Repo(sandbox.root / "repos" / "flow.git")
    first = repo.commit({"plugin.json": '{"name": "flow", "version": "1.0.0"}',
                         "skills/s/SKILL.md": SKILL})
    assert_ok(uze("install", f"git+{repo.url}", "--harness", "codex"))
    repo.commit({"plugin.json": '{"name": "flow", "version": "1.1.0"}'})
    policy = _policy(sandbox, "[pins]\nrequired = true\n")
    before = snapshot(sandbox)
    _refused(uze("update"), "is not pinned to a commit",
             f"refused by the policy rule [pins] required = true ({policy})")
    assert snapshot(sandbox) == before
    assert f'commit = "{first}"' in (sandbox.project / "uze.lock").read_text(encoding="utf-8")
    assert_ok(uze("install", "--harness", "codex"))


@pytest.mark.parametrize(("text", "problem"), [
    ('[powers]\ndeny = ["hoks"]\n', "Invalid enum value 'hoks' - at `$.powers.deny[0]`"),
    ('[sources]\nallowed = ["x"]\n', "unknown field `allowed`"),
    ("[pins]\nrequired = yes\n", "Invalid value"),
    ("[sources\n", "Expected ']'"),
])
def test_a_malformed_policy_stops_every_install_naming_the_file(
        sandbox: Sandbox, uze: Uze, text: str, problem: str) -> None:
    policy = _policy(sandbox, text)
    source = _package(sandbox.root)
    before = snapshot(sandbox)
    for command in (["install", source, "--harness", "codex", "--trust"], ["check", source]):
        _refused(uze(*command), f"uze: error: policy {policy}: ", problem)
    assert snapshot(sandbox) == before


def test_uze_policy_names_the_file_and_a_missing_one_is_an_error(sandbox: Sandbox, uze: Uze
                                                                ) -> None:
    source = _package(sandbox.root, hooks=True)
    elsewhere = sandbox.root / "etc" / "uze-policy.toml"
    build_tree(elsewhere.parent, {elsewhere.name: '[powers]\ndeny = ["hooks", "mcp"]\n'})
    env = {**sandbox.env, "UZE_POLICY": str(elsewhere)}
    _refused(uze("install", source, "--harness", "claude_code", "--trust", env=env),
             f'[powers] deny = ["hooks", "mcp"] ({elsewhere})')
    gone = {**sandbox.env, "UZE_POLICY": str(sandbox.root / "missing.toml")}
    _refused(uze("install", source, "--harness", "claude_code", "--trust", env=gone),
             f"policy {sandbox.root / 'missing.toml'}: UZE_POLICY names a file that does not "
             "exist")
