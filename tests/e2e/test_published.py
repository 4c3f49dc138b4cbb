"""Plugins shaped as they are published, through the real `uze` command: read leniently,
warned about, installed and uninstalled byte for byte; `check --strict` refuses on warnings."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, as_json, assert_ok, snapshot
from tests.helpers import DATA

pytestmark = pytest.mark.e2e

PUBLISHED = DATA / "claude-published"
WARNINGS = [
    ".claude-plugin/plugin.json: category: unknown key; ignored",
    ".claude-plugin/plugin.json: tags: unknown key; ignored",
    ".claude-plugin/plugin.json: strict: unknown key; ignored",
    "skills/table-design/SKILL.md: name: 'Designing Tables' differs from the folder name; "
    "installed as 'table-design'",
    "agents/explainer.md: invalid YAML frontmatter at line 3, column 61: mapping values are not "
    "allowed here; skipped",
]


def test_check_reads_a_published_plugin_and_lists_its_warnings(uze: Uze) -> None:
    document = as_json(assert_ok(uze("check", PUBLISHED, "--harness", "claude_code", "--json")))

    assert document["warnings"] == WARNINGS
    rows = {(p["kind"], p["resource"]) for p in document["projections"]}
    assert rows == {("skill", "format"), ("skill", "lint"), ("skill", "table-design"),
                    ("skill", "tidy"), ("agent", "auditor"), ("agent", "summariser"),
                    ("mcp", "files"), ("mcp", "tracker")}
    human = assert_ok(uze("check", PUBLISHED, "--harness", "claude_code")).stdout
    assert [line for line in human.splitlines() if line.startswith("warning: ")] == [
        f"warning: {line}" for line in WARNINGS
    ]


def test_check_strict_refuses_on_warnings_and_writes_nothing(uze: Uze, sandbox: Sandbox) -> None:
    before = snapshot(sandbox)

    result = uze("check", PUBLISHED, "--strict")

    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        *WARNINGS, f"uze: error: invalid package {PUBLISHED}: 5 problems",
        "hint: fix every problem listed above, then run the command again",
    ]
    assert snapshot(sandbox) == before
    assert_ok(uze("check", DATA / "minimal", "--strict"))


def test_published_plugin_installs_and_uninstalls_byte_for_byte(uze: Uze, sandbox: Sandbox) -> None:
    before = snapshot(sandbox)

    document = as_json(assert_ok(uze("install", PUBLISHED, "--harness", "claude_code", "--trust",
                                     "--json")))

    assert document["warnings"] == WARNINGS
    skills = sandbox.project / ".claude" / "skills"
    assert sorted(p.name for p in skills.iterdir()) == [
        "claude-published-format", "claude-published-lint", "claude-published-table-design",
        "claude-published-tidy",
    ]
    table = (skills / "claude-published-table-design" / "SKILL.md").read_text()
    assert table.startswith("---\nname: claude-published-table-design\n")
    agents = sorted(p.name for p in (sandbox.project / ".claude" / "agents").iterdir())
    assert agents == ["claude-published-auditor.md", "claude-published-summariser.md"]
    servers = json.loads((sandbox.project / ".mcp.json").read_text())["mcpServers"]
    assert sorted(servers) == ["files", "tracker"]
    assert servers["tracker"]["url"] == "https://tracker.example.invalid/mcp"
    assert_ok(uze("uninstall", "claude-published"))
    after = snapshot(sandbox)
    assert after["project"] == before["project"]


@pytest.mark.parametrize(
    ("fixture", "folders"),
    [("one-skill", ["one-skill-one-skill"]),
     ("skill-set", ["skill-set-alpha", "skill-set-beta-two"])],
)
def test_folders_of_skills_without_a_manifest_install_under_the_folder_name(
    uze: Uze, sandbox: Sandbox, fixture: str, folders: list[str]
) -> None:
    before = snapshot(sandbox)

    document = as_json(assert_ok(uze("install", DATA / fixture, "--harness", "claude_code",
                                     "--json")))

    assert document["package"]["name"] == fixture
    skills = sandbox.project / ".claude" / "skills"
    assert sorted(p.name for p in skills.iterdir()) == folders
    if fixture == "one-skill":
        copied = skills / folders[0]
        original = (DATA / fixture / "reference.md").read_bytes()
        assert (copied / "reference.md").read_bytes() == original
    assert_ok(uze("uninstall", fixture))
    assert snapshot(sandbox)["project"] == before["project"]
