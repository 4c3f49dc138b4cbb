"""read_package on plugins shaped as they are published: read leniently, refused only if unsafe."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from uze.package import read_package
from uze.package.claude_manifest import REFUSED

Builder = Callable[..., Path]
Issues = Callable[[Path], list[str]]

FIXTURES = Path(__file__).resolve().parents[2] / "data" / "packages"
CLAUDE = ".claude-plugin/plugin.json"
STDIO = {"type": "stdio", "command": "g"}


def test_published_claude_plugin_reads_with_warnings_for_what_uze_does_not_use(
    warnings_of: Issues,
) -> None:
    package = read_package(FIXTURES / "claude-published")

    assert (package.name, package.version) == ("claude-published", "2.1.0")
    assert [(s.name, s.folder) for s in package.skills] == [
        ("format", "bundle/format"), ("lint", "bundle/lint"),
        ("table-design", "skills/table-design"), ("tidy", "extra-skills/tidy"),
    ]
    assert [(a.name, a.relpath) for a in package.agents] == [
        ("auditor", "roles/auditor.md"), ("summariser", "agents/summariser.md"),
    ]
    assert [(m.name, m.command, m.url) for m in package.mcp_servers] == [
        ("files", "npx", None), ("tracker", None, "https://tracker.example.invalid/mcp"),
    ]
    assert warnings_of(FIXTURES / "claude-published") == [
        f"{CLAUDE}: category: unknown key; ignored",
        f"{CLAUDE}: tags: unknown key; ignored",
        f"{CLAUDE}: strict: unknown key; ignored",
        "skills/table-design/SKILL.md: name: 'Designing Tables' differs from the folder name; "
        "installed as 'table-design'",
        "agents/explainer.md: invalid YAML frontmatter at line 3, column 61: mapping values are "
        "not allowed here; skipped",
    ]


def test_portable_plugin_json_stays_strict_about_unknown_keys(
    build: Builder, issues_of: Issues
) -> None:
    assert issues_of(build({"plugin.json": {"name": "pkg", "category": "x"}})) == [
        "plugin.json: category: unknown key"
    ]


@pytest.mark.parametrize(
    ("paths", "expected"),
    [
        ({"skills": "./more/"}, [("a", "more/a"), ("b", "more/b"), ("base", "skills/base")]),
        ({"skills": ["./more/a"]}, [("a", "more/a"), ("base", "skills/base")]),
        ({"skills": ["${CLAUDE_PLUGIN_ROOT}/more/b"]}, [("b", "more/b"), ("base", "skills/base")]),
        ({"skills": ["./skills/base"]}, [("base", "skills/base")]),
    ],
)
def test_component_skill_paths_add_skill_folders_and_folders_of_skills(
    build: Builder, paths: dict[str, object], expected: list[tuple[str, str]]
) -> None:
    root = build({CLAUDE: {"name": "pkg", **paths}, "skills/base/SKILL.md": "x\n",
                  "more/a/SKILL.md": "a\n", "more/b/SKILL.md": "b\n"}, manifest=False)

    assert [(s.name, s.folder) for s in read_package(root).skills] == expected


def test_component_agent_paths_name_files_and_folders(build: Builder) -> None:
    root = build({CLAUDE: {"name": "pkg", "agents": ["./roles/", "./one.md"]},
                  "roles/team/lead.md": "Lead.\n", "one.md": "One.\n", "agents/own.md": "Own.\n"},
                 manifest=False)

    agents = read_package(root).agents

    assert [(a.name, a.relpath, a.subdirs) for a in agents] == [
        ("lead", "roles/team/lead.md", ("team",)), ("one", "one.md", ()),
        ("own", "agents/own.md", ()),
    ]


@pytest.mark.parametrize("path", ["../outside", "/etc", "./a/../../x"])
def test_component_path_leaving_the_package_is_refused(
    build: Builder, issues_of: Issues, path: str
) -> None:
    root = build({CLAUDE: {"name": "pkg", "skills": [path]}}, manifest=False)

    assert issues_of(root) == [f"{CLAUDE}: skills[0]: {path!r} leaves the package"]


def test_component_path_naming_nothing_is_a_warning(build: Builder, warnings_of: Issues) -> None:
    root = build({CLAUDE: {"name": "pkg", "agents": "./nowhere", "skills": 7}}, manifest=False)

    assert warnings_of(root) == [
        f"{CLAUDE}: skills: expected a path or a list of paths: {REFUSED}",
        f"{CLAUDE}: agents: './nowhere' is not in the package; ignored",
    ]


def test_claude_skill_folder_without_skill_md_is_skipped_with_a_warning(
    build: Builder, warnings_of: Issues
) -> None:
    root = build({CLAUDE: {"name": "pkg"}, "skills/README.md": "# x\n",
                  "skills/notes/x.md": "x\n", "skills/ok/SKILL.md": "ok\n"}, manifest=False)

    assert [s.name for s in read_package(root).skills] == ["ok"]
    assert warnings_of(root) == [
        "skills/README.md: not in a skill folder: a skill is skills/<name>/SKILL.md; skipped",
        "skills/notes: missing SKILL.md; skipped",
    ]


def test_a_folder_that_is_one_skill_is_a_package_named_after_the_folder() -> None:
    package = read_package(FIXTURES / "one-skill")

    assert package.name == "one-skill"
    (skill,) = package.skills
    assert (skill.name, skill.folder) == ("one-skill", "")
    assert skill.files == ("SKILL.md", "reference.md")
    assert package.instructions is None


def test_a_folder_of_skills_is_a_package_named_after_the_folder(warnings_of: Issues) -> None:
    package = read_package(FIXTURES / "skill-set")

    assert package.name == "skill-set"
    assert [(s.name, s.folder) for s in package.skills] == [
        ("alpha", "alpha"), ("beta-two", "beta_two"),
    ]
    assert warnings_of(FIXTURES / "skill-set") == [
        "beta_two: invalid name 'beta_two': use lowercase letters, digits and single hyphens, "
        "at most 64 characters; installed as 'beta-two'"
    ]


def test_a_folder_without_a_valid_name_and_no_manifest_is_refused(
    tmp_path: Path, issues_of: Issues
) -> None:
    root = tmp_path / "Ünïcode!"
    (root / "s").mkdir(parents=True)
    (root / "s" / "SKILL.md").write_text("x\n")

    assert issues_of(root) == [
        "Ünïcode!: no plugin.json, and the folder name is not a valid package name; add a "
        "plugin.json with a name"
    ]


@pytest.mark.parametrize(
    ("name", "mcp"),
    [
        (".mcp.json", {"github": {"type": "http", "url": "https://x.invalid/mcp"}}),
        (".mcp.json", {"$schema": "s", "mcpServers": {"github": STDIO}}),
        ("mcp.json", {"$schema": "s", "mcpServers": {"github": STDIO}}),
    ],
)
def test_mcp_files_as_claude_writes_them_are_read(
    build: Builder, name: str, mcp: dict[str, object]
) -> None:
    files = {CLAUDE: {"name": "pkg"}} if name == ".mcp.json" else {"plugin.json": {"name": "pkg"}}
    root = build({**files, name: mcp}, manifest=False)

    (server,) = read_package(root).mcp_servers
    assert server.name == "github"
    assert server.type in (None, "http")


def test_commands_are_read_from_commands_and_component_paths(
    build: Builder, warnings_of: Issues
) -> None:
    root = build({CLAUDE: {"name": "pkg", "commands": ["./extra/go.md"]},
                  "commands/review.md": "---\ndescription: Review\n---\nReview $ARGUMENTS.\n",
                  "commands/git/sync_up.md": "Sync $1.\n", "extra/go.md": "Go.\n",
                  "commands/bad.md": "---\ndescription: a: b\n---\nx\n"}, manifest=False)

    commands = read_package(root).commands

    assert [(c.name, c.relpath, c.subdirs, c.description) for c in commands] == [
        ("go", "extra/go.md", (), "Go."), ("review", "commands/review.md", (), "Review"),
        ("sync-up", "commands/git/sync_up.md", ("git",), "Sync $1."),
    ]
    assert warnings_of(root) == [
        "commands/bad.md: invalid YAML frontmatter at line 2, column 15: mapping values are not "
        "allowed here; skipped",
        "commands/git/sync_up.md: invalid name 'sync_up': use lowercase letters, digits and "
        "single hyphens, at most 64 characters; installed as 'sync-up'",
    ]
