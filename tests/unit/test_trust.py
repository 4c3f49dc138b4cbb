"""The trust digest covers what runs and every file of the package (ADR 0021).

Consent lives under `$UZE_HOME` (ADR 0021), so the digest no longer has to equal what older
receipts hold: the first install after this change asks once, as a first install does.
"""

from __future__ import annotations

import json

import pytest

from uze.harnesses import REGISTRY
from uze.projections.digest import content_digest
from uze.trust import HIDDEN, POWERS, Execution, hide_secrets, trust_digest

FOUND = [
    Execution("mcp", "docs", "/p/run.sh", ("--stdio", "-v"), "/p", ("TOKEN",),
              (("scripts/run.sh", "ab" * 32),)),
    Execution("hook", "h", "python3", (), "", (), ()),
]
TREE = "cd" * 32


def test_trust_digest_hashes_each_execution_and_the_tree() -> None:
    fields = ["kind", "name", "command", "args", "cwd", "env_names", "files", "secret_names"]
    data = [dict(zip(fields, (getattr(e, f) for f in fields), strict=True)) for e in FOUND]
    expected = content_digest(json.dumps({"runs": data, "tree": TREE}, sort_keys=True).encode())
    assert trust_digest(FOUND, TREE) == expected


def test_any_file_of_a_package_that_runs_something_changes_the_digest() -> None:
    assert trust_digest(FOUND, TREE) != trust_digest(FOUND, "ef" * 32)


def test_nothing_to_run_needs_no_consent_whatever_the_files() -> None:
    assert trust_digest([], TREE) == ""


@pytest.mark.parametrize(("args", "shown", "names"), [
    (["--token", "t0k", "--stdio"], ["--token", HIDDEN, "--stdio"], ["--token"]),
    (["--token=t0k"], [f"--token={HIDDEN}"], ["--token"]),
    (["--api-key=abc", "-v"], [f"--api-key={HIDDEN}", "-v"], ["--api-key"]),
    (["--client_secret", "s", "--port", "3"], ["--client_secret", HIDDEN, "--port", "3"],
     ["--client_secret"]),
    (["--password", "-x"], ["--password", HIDDEN], ["--password"]),
    (["--auth", "a", "--auth", "b"], ["--auth", HIDDEN, "--auth", HIDDEN], ["--auth"]),
    (["ghp_0123456789"], [HIDDEN], ["arg 1"]),
    (["x", "sk-live-1"], ["x", HIDDEN], ["arg 2"]),
    (["--header", "Bearer abc"], ["--header", HIDDEN], ["arg 2"]),
    (["--key-file", "/p/k.pem"], ["--key-file", "/p/k.pem"], []),
    (["--token-env", "GH_TOKEN"], ["--token-env", "GH_TOKEN"], []),
    (["--token"], ["--token"], []),
    (["--token", "--stdio"], ["--token", "--stdio"], []),
    (["-p", "port-or-password"], ["-p", "port-or-password"], []),  # not covered (ADR 0021)
    (["--monkey", "m"], ["--monkey", "m"], []),  # a word, not a substring
])
def test_secret_looking_arguments_are_hidden_and_named(
        args: list[str], shown: list[str], names: list[str]) -> None:
    assert hide_secrets(args) == (tuple(shown), tuple(names))


def test_the_power_table_names_real_harnesses_and_keys_uze_writes_or_drops() -> None:
    """Each agent row is a harness with agents; the rows whose key uze does not write today are
    exactly the ones that never reach the harness (dropped and named in the route reason)."""
    unwritten = set()
    for power in POWERS:
        assert power.harness in REGISTRY and power.power in ("runs", "grants") and power.source
        if power.where == "agent":
            agents = REGISTRY[power.harness].agents
            assert agents is not None
            if power.key not in agents.allowed:
                unwritten.add((power.harness, power.key))
    assert unwritten == {("codex", "mcp_servers"), ("codex", "hooks"), ("opencode", "permissions")}
