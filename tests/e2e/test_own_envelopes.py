"""A package that ships Codex's, Gemini CLI's and OpenCode's own envelopes next to its Claude
manifest (`.codex-plugin/plugin.json`, `gemini-extension.json`, an OpenCode plugin module) is
delivered capability by capability on those harnesses (ADRs 0043, 0044, 0045): uze writes no
plugin marketplace, no extension link and no plugin entry, names what it leaves behind (the
OpenCode module) in warnings, delivers the Gemini context file `GEMINI.md` as the package's
instructions (it has no AGENTS.md of its own: adr/0049), and the round trip is byte for byte,
in both scopes."""

from __future__ import annotations

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, as_json, assert_ok, snapshot
from tests.helpers import DATA

pytestmark = pytest.mark.e2e

PACKAGE = DATA / "own-envelopes"
HARNESSES = "codex,gemini_cli,opencode"
CONTEXT = "Outline before you write: use the outline skill.\n"
WARNINGS = [
    ".opencode/plugins/own-envelopes.js: OpenCode plugin module: not loaded (uze does not run "
    "a package's own OpenCode plugin)",
]


def _written(tree: dict[str, bytes | str]) -> list[str]:
    return sorted(path for path in tree if not path.startswith(".git/"))


def test_check_reads_the_package_once_whatever_envelopes_it_ships(uze: Uze) -> None:
    document = as_json(assert_ok(uze("check", PACKAGE, "--harness", HARNESSES, "--json")))

    assert document["warnings"] == WARNINGS
    rows = {(p["harness"], p["kind"], p["resource"], p["route"]) for p in document["projections"]}
    assert rows == {(h, "skill", "outline", "native") for h in HARNESSES.split(",")} | {
        (h, "instructions", "GEMINI.md", "adapted") for h in HARNESSES.split(",")}
    assert document["instructions"] == {
        "file": "GEMINI.md (gemini-extension.json contextFileName)",
        "bytes": len(CONTEXT), "first_line": CONTEXT.strip()}
    reasons = [p["reason"] for p in document["projections"] if p["kind"] == "instructions"]
    assert all("its Gemini CLI context GEMINI.md (gemini-extension.json contextFileName)" in r
               for r in reasons)


@pytest.mark.parametrize("scope", ["project", "user"])
def test_install_writes_no_envelope_and_uninstall_restores_every_byte(
    uze: Uze, sandbox: Sandbox, scope: str
) -> None:
    before = snapshot(sandbox)

    document = as_json(assert_ok(uze("install", PACKAGE, "--harness", HARNESSES, "--scope", scope,
                                     "--json")))

    assert document["warnings"] == WARNINGS
    targets = {(p["harness"], p["target"]) for p in document["projections"]
               if p["kind"] == "skill"}
    root = ".agents/skills/own-envelopes-outline" if scope == "project" else \
        "~/.agents/skills/own-envelopes-outline"
    assert targets == {(h, root) for h in HARNESSES.split(",")}
    after = snapshot(sandbox)
    written = _written(after["project"]) + [f"~/{p}" for p in _written(after["home"])]
    envelopes = [p for p in written if any(part in p for part in (
        ".agents/plugins/", ".gemini/extensions", "opencode.json", ".opencode/plugins",
        ".codex/config.toml"))]
    assert envelopes == []
    gemini = sandbox.project / "GEMINI.md" if scope == "project" else \
        sandbox.home / ".gemini" / "GEMINI.md"
    assert CONTEXT in gemini.read_text(encoding="utf-8")
    assert_ok(uze("uninstall", "own-envelopes", "--scope", scope))
    final = snapshot(sandbox)
    assert final["project"] == before["project"]
    assert final["home"] == before["home"]
