"""uze.policy: the file is read strictly, and every power a harness lists falls in a class a
policy can deny (a power added later cannot slip past `[powers] deny` unnamed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from uze.errors import UzeError
from uze.harnesses import REGISTRY
from uze.paths import Paths
from uze.policy import _BY_KEY, POWER_CLASSES, Policy, load_policy, power_class
from uze.sources.spec import Source
from uze.trust import Execution


def _paths(tmp_path: Path, **env: str) -> Paths:
    return Paths(home=tmp_path / "home", uze_home=tmp_path / "uze", env=env)


def test_every_power_a_harness_lists_has_a_class_a_policy_can_deny() -> None:
    keys = {power.key for harness in REGISTRY.values() for power in harness.trust.powers}
    assert keys <= set(_BY_KEY), sorted(keys - set(_BY_KEY))
    assert set(_BY_KEY.values()) <= set(POWER_CLASSES)


@pytest.mark.parametrize(("kind", "name", "expected"), [
    ("mcp", "db", "mcp"), ("hook", "SessionStart-0 (SessionStart, observe)", "hooks"),
    ("agent", "helper (permissionMode for claude_code)", "permissions"),
    ("agent", "helper (mcp_servers for codex)", "mcp"),
    ("skill", "review (allowed-tools for claude_code)", "tools"),
    ("skill", "review (inline shell for claude_code)", "shell"),
    ("command", "fix (allowed-tools)", "tools"), ("command", "fix (inline shell)", "shell"),
    ("lsp", "py", "lsp"), ("monitor", "m", "monitors"), ("bin", "bin/x", "bin"),
    ("settings", "agent", ""),
])
def test_each_listed_run_falls_in_its_class(kind: str, name: str, expected: str) -> None:
    assert power_class(Execution(kind, name, "x", (), "", (), ())) == expected


def test_no_file_is_no_policy_and_a_named_missing_file_is_an_error(tmp_path: Path) -> None:
    assert load_policy(_paths(tmp_path)) == Policy()
    named = tmp_path / "nope.toml"
    with pytest.raises(UzeError, match=f"policy {named}: UZE_POLICY names a file that does not"):
        load_policy(_paths(tmp_path, UZE_POLICY=str(named)))


@pytest.mark.parametrize(("text", "problem"), [
    ("[sources]\nallow = 1\n", "Expected `array | null`, got `int` - at `$.sources.allow`"),
    ("[extra]\n", "unknown field `extra`"),
    ('[powers]\ndeny = ["shell", "everything"]\n', "Invalid enum value 'everything'"),
    ("x = " + "[" * 2000 + "]" * 2000 + "\n", "nested more than 64 levels deep"),
    ("\xff", "invalid start byte"),
])
def test_a_malformed_policy_is_an_error_naming_the_file(tmp_path: Path, text: str,
                                                        problem: str) -> None:
    (tmp_path / "uze").mkdir()
    path = tmp_path / "uze" / "policy.toml"
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(UzeError) as raised:
        load_policy(_paths(tmp_path))
    assert raised.value.message.startswith(f"policy {path}: ")
    assert problem in raised.value.message


def test_a_policy_folder_is_an_error_not_no_policy(tmp_path: Path) -> None:
    (tmp_path / "uze" / "policy.toml").mkdir(parents=True)
    with pytest.raises(UzeError, match="cannot read it"):
        load_policy(_paths(tmp_path))


@pytest.mark.parametrize(("source", "allowed"), [
    (Source("git", "https://github.com/acme/flow.git", "v1"), True),
    (Source("git", "https://github.com/evil/acme.git"), False),
    (Source("marketplace", "flow", marketplace="acme"), True),
    (Source("marketplace", "flow", marketplace="acme-evil"), False),
    (Source("folder", "./plugins/notes"), True),
    (Source("folder", "../plugins/notes"), False),
])
def test_allow_patterns_match_the_canonical_source(source: Source, allowed: bool) -> None:
    policy = Policy("p.toml", ("git+https://github.com/acme/*", "*@acme", "./plugins/*"))
    if allowed:
        policy.check_source(source, Path("/nonexistent/project"))
    else:
        with pytest.raises(UzeError, match=r"refused by the policy rule \[sources\] allow"):
            policy.check_source(source, Path("/nonexistent/project"))


def test_pins_take_a_full_commit_or_the_locks(tmp_path: Path) -> None:
    policy = Policy("p.toml", pins=True)
    moving = Source("git", "https://github.com/acme/flow.git", "main")
    with pytest.raises(UzeError, match=r"not pinned to a commit.*\[pins\] required = true"):
        policy.check_source(moving, tmp_path)
    policy.check_source(moving, tmp_path, locked=True)
    policy.check_source(moving.with_pin("a" * 40), tmp_path)
    policy.check_source(Source("folder", "./x"), tmp_path)
