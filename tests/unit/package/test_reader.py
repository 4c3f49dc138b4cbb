"""read_package on valid packages: what is read, byte for byte, and that nothing is written."""

from __future__ import annotations

import contextlib
import os
import shutil
import unicodedata
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest

from uze.errors import PackageInvalid
from uze.package import (
    MAX_FILE_BYTES,
    MAX_PACKAGE_BYTES,
    HooksFile,
    InvokePolicy,
    McpServer,
    Package,
    read_package,
)

Builder = Callable[..., Path]
Issues = Callable[[Path], list[str]]
Snapshot = Callable[[Path], dict[str, tuple[int, int, bytes | str]]]

FIXTURES = Path(__file__).resolve().parents[2] / "data" / "packages"
EXAMPLES = FIXTURES.parents[2] / "examples"
EVERY_BYTE = bytes(range(256))


def _every_kind() -> Package:
    return read_package(FIXTURES / "every-kind")


def test_a_manifest_alone_reads_as_an_empty_package_with_defaults() -> None:
    package = read_package(FIXTURES / "manifest-only")

    assert (package.name, package.version) == ("manifest-only", "0.0.0")
    assert package.manifest.description is None
    assert list(package.files) == ["plugin.json"]
    assert package.instructions is None
    assert (package.skills, package.agents, package.mcp_servers) == ((), (), ())
    assert package.hooks is None
    assert package.is_empty and package.warnings == ()


def test_a_manifest_alone_is_refused_where_it_must_deliver() -> None:
    with pytest.raises(PackageInvalid) as raised:
        read_package(FIXTURES / "manifest-only", deliverable=True)

    assert raised.value.details == (
        ".: nothing to deliver: the package carries no resource (no instructions, skill, "
        "agent, command, MCP server or hook group); a manifest alone installs nothing",)


def test_the_minimal_package_is_one_skill() -> None:
    package = read_package(FIXTURES / "minimal", deliverable=True)

    assert [skill.name for skill in package.skills] == ["hello"]
    assert not package.is_empty


def test_package_root_is_the_resolved_source_folder() -> None:
    package = read_package(FIXTURES / "minimal" / ".." / "minimal")

    assert package.root == (FIXTURES / "minimal").resolve()


def test_every_kind_package_reads_manifest_and_instructions() -> None:
    package = _every_kind()

    assert (package.name, package.version) == ("every-kind", "1.2.3")
    assert package.manifest.description == "One of every resource kind uze reads."
    assert package.instructions is not None
    assert package.instructions.files == ("AGENTS.md",)
    assert package.instructions.text == package.files["AGENTS.md"].data
    text = package.files["AGENTS.md"].data.decode()
    assert len([part for part in text.split("\n\n") if part.strip()]) == 2


def test_every_kind_skills_are_sorted_with_their_invoke_policies() -> None:
    skills = {skill.name: skill for skill in _every_kind().skills}

    assert [skill.name for skill in _every_kind().skills] == ["helper", "review", "ship"]
    assert skills["review"].invoke == InvokePolicy(model=True, user=True)
    assert not skills["review"].has_invoke_key
    assert skills["ship"].invoke == InvokePolicy(model=False, user=True)
    assert skills["ship"].has_invoke_key
    assert skills["helper"].invoke == InvokePolicy(model=True, user=False)
    assert skills["review"].frontmatter["description"] == (
        "Review a change for correctness, tests and style."
    )


def test_skill_lists_every_file_in_its_folder_including_nested_ones() -> None:
    review = next(skill for skill in _every_kind().skills if skill.name == "review")

    assert review.folder == "skills/review"
    assert review.files == (
        "skills/review/SKILL.md",
        "skills/review/assets/logo.png",
        "skills/review/references/guide.md",
    )


def test_agent_has_frontmatter_body_and_harness_block() -> None:
    (agent,) = _every_kind().agents

    assert (agent.name, agent.relpath) == ("reviewer", "agents/reviewer.md")
    assert agent.frontmatter["description"] == "A careful code reviewer."
    assert agent.body == "You review code. Point out bugs first, then missing tests, then style.\n"
    assert agent.harness == {"claude_code": {"model": "sonnet"}}


def test_mcp_servers_are_read_as_stdio_and_remote_sorted_by_name() -> None:
    docs, search = _every_kind().mcp_servers

    assert docs == McpServer(
        name="docs",
        command="${PLUGIN_ROOT}/scripts/server.sh",
        args=["--stdio"],
        env={"DOCS_MODE": "local"},
    )
    assert not docs.is_remote
    assert search.url == "https://search.example.com/mcp"
    assert (search.type, search.headers, search.enabled) == ("http", {"X-Client": "uze"}, True)
    assert search.is_remote


def test_hooks_file_is_read_with_defaults_filled_in() -> None:
    hooks = _every_kind().hooks

    assert hooks is not None
    (deny,) = hooks.hooks["PreToolUse"]
    (observe,) = hooks.hooks["PostToolUse"]
    assert (deny.id, deny.matcher, deny.effect, deny.hooks[0].timeout) == (
        "no-force-push",
        "shell",
        "deny",
        10,
    )
    assert (observe.matcher, observe.effect, observe.hooks[0].timeout) == (
        "file.write|file.edit",
        "observe",
        30,
    )
    assert observe.hooks[0].args is None


def test_files_are_keyed_by_posix_relpath_in_sorted_order() -> None:
    files = _every_kind().files

    assert list(files) == sorted(files)
    assert all(key == file.relpath for key, file in files.items())
    assert "skills/review/references/guide.md" in files


def test_executable_comes_from_the_owner_exec_bit_of_the_fixture() -> None:
    files = _every_kind().files

    assert files["scripts/server.sh"].executable
    assert not files["plugin.json"].executable


@pytest.mark.parametrize(
    ("mode", "executable"),
    [(0o755, True), (0o700, True), (0o744, True), (0o644, False), (0o655, False), (0o600, False)],
)
def test_executable_is_the_owner_exec_bit(build: Builder, mode: int, executable: bool) -> None:
    root = build({"bin/tool": "#!/bin/sh\n"})
    (root / "bin" / "tool").chmod(mode)

    assert read_package(root).files["bin/tool"].executable is executable


def test_binary_fixture_bytes_round_trip() -> None:
    logo = FIXTURES / "every-kind" / "skills" / "review" / "assets" / "logo.png"

    assert _every_kind().files["skills/review/assets/logo.png"].data == logo.read_bytes()


@pytest.mark.parametrize(
    "data",
    [EVERY_BYTE, b"\xff\xfe\x00binary", b"line one\r\nline two\r\n", b"no newline at end", b""],
)
def test_file_bytes_round_trip_exactly(build: Builder, data: bytes) -> None:
    root = build({"assets/blob.bin": data})

    assert read_package(root).files["assets/blob.bin"].data == data


def test_git_folder_at_the_root_is_ignored(build: Builder) -> None:
    root = build({".git/HEAD": "ref: refs/heads/main\n", ".git/config": "[core]\n"})

    assert list(read_package(root).files) == ["plugin.json"]


@pytest.mark.parametrize("where", ["vendor/.git/HEAD", "vendor/.GIT/config", "a/.git",
                                   "a/.git. /config", "a/git~1/config"])
def test_git_metadata_below_the_root_is_refused(build: Builder, where: str) -> None:
    """Its config (core.fsmonitor) would run where it is delivered (ADR 0055)."""
    root = build({where: "[core]\n\tfsmonitor = touch pwned\n"})

    with pytest.raises(PackageInvalid) as raised:
        read_package(root)
    segment = where.rsplit("/", 1)[0] if where.count("/") > 1 else where
    assert any(line.startswith(f"{segment}: version-control metadata")
               for line in raised.value.details), raised.value.details


def test_a_git_file_at_the_root_is_left_out(build: Builder) -> None:
    root = build({".git": "gitdir: ../elsewhere\n"})

    assert list(read_package(root).files) == ["plugin.json"]


def test_dot_files_are_carried(build: Builder) -> None:
    root = build(
        {".editorconfig": "root = true\n", "skills/x/SKILL.md": "x\n", "skills/x/.env": ""}
    )
    package = read_package(root)

    assert ".editorconfig" in package.files
    assert package.skills[0].files == ("skills/x/.env", "skills/x/SKILL.md")


def test_symlink_to_a_file_inside_the_package_reads_the_target_bytes(build: Builder) -> None:
    root = build({"shared/guide.md": b"# Guide\n\xff", "skills/x/SKILL.md": "x\n"})
    (root / "skills" / "x" / "guide.md").symlink_to("../../shared/guide.md")
    package = read_package(root)

    assert package.files["skills/x/guide.md"].data == b"# Guide\n\xff"
    assert package.skills[0].files == ("skills/x/SKILL.md", "skills/x/guide.md")


def test_symlink_to_a_folder_inside_the_package_is_read_as_that_folder(build: Builder) -> None:
    root = build({"shared/notes.md": "notes\n", "skills/x/SKILL.md": "x\n"})
    (root / "skills" / "x" / "shared").symlink_to(root / "shared")

    assert read_package(root).files["skills/x/shared/notes.md"].data == b"notes\n"


def test_symlink_keeps_the_targets_exec_bit(build: Builder) -> None:
    root = build({"scripts/run.sh": "#!/bin/sh\n"})
    (root / "scripts" / "run.sh").chmod(0o755)
    (root / "run").symlink_to("scripts/run.sh")

    assert read_package(root).files["run"].executable


def test_nfc_file_names_are_read_as_nfc_relpaths(build: Builder) -> None:
    name = unicodedata.normalize("NFC", "café.md")
    root = build({f"docs/{name}": "bonjour\n"})

    assert read_package(root).files[f"docs/{name}"].relpath == f"docs/{name}"


def test_skill_without_frontmatter_takes_its_name_from_the_folder(build: Builder) -> None:
    root = build({"skills/plain/SKILL.md": "# Plain\n\nNo frontmatter here.\n"})
    (skill,) = read_package(root).skills

    assert (skill.name, skill.frontmatter, skill.invoke) == ("plain", {}, InvokePolicy())
    assert not skill.has_invoke_key


def test_empty_frontmatter_is_an_empty_mapping(build: Builder) -> None:
    root = build({"agents/a.md": "---\n---\nBody.\n"})
    (agent,) = read_package(root).agents

    assert (agent.name, agent.frontmatter, agent.body, agent.harness) == ("a", {}, "Body.\n", {})


def test_agent_name_comes_from_frontmatter_else_the_file_stem(build: Builder) -> None:
    root = build(
        {
            "agents/team/lead.md": "---\nname: team-lead\n---\nLead.\n",
            "agents/team/writer.md": "Write.\n",
        }
    )
    agents = read_package(root).agents

    assert [(agent.name, agent.relpath) for agent in agents] == [
        ("team-lead", "agents/team/lead.md"),
        ("writer", "agents/team/writer.md"),
    ]


def test_non_markdown_files_in_agents_are_carried_not_read_as_agents(build: Builder) -> None:
    root = build({"agents/notes.txt": "not an agent\n"})
    package = read_package(root)

    assert package.agents == ()
    assert "agents/notes.txt" in package.files


def test_manifest_accepts_the_keys_claude_and_codex_manifests_carry(build: Builder) -> None:
    manifest = {
        "$schema": "https://example.com/plugin.schema.json",
        "name": "pkg",
        "version": "2.0.0",
        "description": "d",
        "author": {"name": "A", "email": "a@example.com"},
        "homepage": "https://example.com",
        "repository": "https://example.com/repo.git",
        "license": "MIT",
        "keywords": ["a", "b"],
        "displayName": "Package",
        "extensions": {"uze": {"anything": True}},
        "commands": "./commands",
        "agents": ["./agents/a.md"],
        "skills": "./skills",
        "hooks": "./hooks/hooks.json",
        "mcpServers": "./.mcp.json",
        "outputStyles": "./styles",
        "lspServers": {},
        "userConfig": {},
        "apps": "./.app.json",
        "interface": {"displayName": "Package"},
    }
    package = read_package(build({"plugin.json": manifest}))

    assert package.version == "2.0.0"
    assert package.manifest.extensions == {"uze": {"anything": True}}
    assert msgspec.to_builtins(package.manifest) == manifest


def test_claude_native_fixture_reads_its_manifest_mcp_and_claude_protocol_hooks() -> None:
    package = read_package(FIXTURES / "claude-native")

    assert (package.name, package.version) == ("claude-native", "0.3.0")
    assert [skill.name for skill in package.skills] == ["x"]
    (notes,) = package.mcp_servers
    assert (notes.name, notes.command, notes.type) == (
        "notes",
        "${CLAUDE_PLUGIN_ROOT}/bin/notes",
        None,
    )
    assert package.hooks is None  # Claude's protocol is not the portable HOOK_* ABI
    assert package.claude_hooks is not None
    assert package.claude_hooks.protocol == "claude"
    (group,) = package.claude_hooks.groups
    assert (group.name, group.event) == ("PreToolUse-0", "PreToolUse")
    assert group.value == {"matcher": "Bash", "hooks": [
        {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/log.sh", "timeout": 5}]}


def test_claude_native_layout_reads_as_the_same_resources(build: Builder) -> None:
    claude_root = FIXTURES / "claude-native"
    portable = build(
        {
            "plugin.json": (claude_root / ".claude-plugin" / "plugin.json").read_bytes(),
            "mcp.json": {
                "mcpServers": {
                    "notes": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/notes", "args": ["serve"]}
                }
            },
            "skills/x/SKILL.md": (claude_root / "skills" / "x" / "SKILL.md").read_bytes(),
        }
    )
    claude, expected = read_package(claude_root), read_package(portable)

    assert claude.manifest == expected.manifest
    assert claude.skills == expected.skills
    assert claude.mcp_servers == expected.mcp_servers


def test_claude_hook_groups_are_kept_verbatim_for_every_event(build: Builder) -> None:
    group = {"matcher": "mcp__.*|Bash", "hooks": [
        {"type": "command", "command": "x", "timeout": 9, "async": True, "shell": "bash",
         "if": "Bash(git *)"}, {"type": "prompt", "prompt": "Done?"}]}
    events = {"UserPromptSubmit": [group], "SessionStart": [{"matcher": "startup|clear",
                                                             "hooks": group["hooks"]}],
              "PreCompact": [group], "Stop": [group]}
    root = build({".claude-plugin/plugin.json": {"name": "pkg"},
                  "hooks/hooks.json": {"description": "d", "hooks": events}}, manifest=False)

    package = read_package(root)

    assert package.claude_hooks is not None
    assert [(g.name, g.value) for g in package.claude_hooks.groups] == [
        ("UserPromptSubmit-0", group), ("SessionStart-0", events["SessionStart"][0]),
        ("PreCompact-0", group), ("Stop-0", group),
    ]
    assert package.warnings == ()


def test_claude_hooks_named_by_the_manifest_and_inline_are_read(build: Builder) -> None:
    handler = {"type": "command", "command": "y"}
    root = build({".claude-plugin/plugin.json": {"name": "pkg", "hooks": "./config/more.json"},
                  "hooks/hooks.json": {"hooks": {"Stop": [{"hooks": [handler]}]}},
                  "config/more.json": {"hooks": {"Notification": [{"hooks": [handler]}]}}},
                 manifest=False)

    hooks = read_package(root).claude_hooks

    assert hooks is not None
    assert hooks.sources == ("hooks/hooks.json", "config/more.json")
    assert [g.name for g in hooks.groups] == ["Stop-0", "1-Notification-0"]
    inline = build({".claude-plugin/plugin.json": {"name": "pkg", "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}}}, manifest=False, name="b")
    found = read_package(inline).claude_hooks
    assert found is not None
    assert [(g.name, g.value["matcher"]) for g in found.groups] == [("PreToolUse-0", "Bash")]



def test_root_plugin_json_names_the_package_and_the_claude_files_still_count(
    build: Builder,
) -> None:
    root = build(
        {
            "plugin.json": {"name": "portable"},
            ".claude-plugin/plugin.json": {"name": "claude", "skills": ["./extra/only"]},
            ".mcp.json": {"github": {"command": "gh-mcp"}},
            "extra/only/SKILL.md": "Only.\n",
        }
    )
    package = read_package(root)

    assert package.name == "portable"
    assert [server.name for server in package.mcp_servers] == ["github"]
    assert [(skill.name, skill.folder) for skill in package.skills] == [("only", "extra/only")]
    assert package.warnings == ()


def test_claude_files_beside_a_root_plugin_json_are_refused_when_unreadable(
    build: Builder, issues_of: Issues
) -> None:
    root = build(
        {
            "plugin.json": {"name": "portable"},
            ".claude-plugin/plugin.json": {"name": "claude"},
            ".mcp.json": "not even JSON",
        }
    )

    assert issues_of(root) == [
        ".mcp.json: invalid JSON at line 1, column 1: Expecting value"
    ]


def test_claude_layout_does_not_read_portable_file_names(build: Builder) -> None:
    root = build(
        {".claude-plugin/plugin.json": {"name": "claude"}, "mcp.json": "carried, not read"},
        manifest=False,
    )
    package = read_package(root)

    assert package.mcp_servers == ()
    assert package.files["mcp.json"].data == b"carried, not read"


def test_hello_example_reads_with_both_skills() -> None:
    package = read_package(EXAMPLES / "hello")

    assert (package.name, package.version) == ("hello", "1.0.0")
    assert package.manifest.description
    assert package.instructions is not None
    assert package.instructions.files == ("AGENTS.md",)
    assert package.instructions.text == package.files["AGENTS.md"].data
    greet, notes = package.skills
    assert (greet.name, greet.invoke) == ("greet", InvokePolicy(model=True, user=True))
    assert (notes.name, notes.invoke) == ("release-notes", InvokePolicy(model=False, user=True))
    assert "skills/release-notes/templates/notes.md" in notes.files


def test_size_limits_are_importable_constants() -> None:
    assert MAX_FILE_BYTES == 16 * 1024 * 1024
    assert MAX_PACKAGE_BYTES == 256 * 1024 * 1024


def test_package_values_are_immutable() -> None:
    package = _every_kind()

    with pytest.raises(AttributeError):
        package.skills = ()  # type: ignore[misc]
    with pytest.raises(TypeError):
        package.files["new"] = package.files["plugin.json"]  # type: ignore[index]
    with pytest.raises(AttributeError, match="immutable"):
        package.manifest.name = "other"  # type: ignore[misc]


def test_hooks_file_model_rejects_cross_group_problems_on_its_own() -> None:
    group = {"id": "same", "effect": "transform", "hooks": [{"type": "command", "command": "x"}]}

    with pytest.raises(msgspec.ValidationError, match=r"hooks\.Stop\[0\]\.effect: transform"):
        msgspec.convert({"hooks": {"Stop": [group]}}, HooksFile)


@pytest.mark.parametrize("fixture", sorted(path.name for path in FIXTURES.iterdir()))
def test_reading_a_fixture_writes_nothing(tmp_path: Path, snapshot: Snapshot, fixture: str) -> None:
    root = tmp_path / fixture
    shutil.copytree(FIXTURES / fixture, root, symlinks=True)
    before = snapshot(tmp_path)

    with contextlib.suppress(PackageInvalid):  # invalid fixtures raise; only the tree matters
        read_package(root)

    assert snapshot(tmp_path) == before


def test_reading_a_package_with_links_and_bad_files_writes_nothing(
    build: Builder, issues_of: Issues, snapshot: Snapshot
) -> None:
    root = build({"skills/x/SKILL.md": "x\n", "skills/loose.md": "loose\n"})
    (root / "skills" / "x" / "out").symlink_to("/etc")
    os.mkfifo(root / "pipe")
    before = snapshot(root.parent)

    assert issues_of(root)
    assert snapshot(root.parent) == before
