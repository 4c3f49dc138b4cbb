"""read_package on invalid packages: every problem, located, reported at once."""

from __future__ import annotations

import errno
import os
import socket
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from uze.errors import PackageInvalid
from uze.package import MAX_FILE_BYTES, read_package

Builder = Callable[..., Path]
Issues = Callable[[Path], list[str]]

FIXTURES = Path(__file__).resolve().parents[2] / "data" / "packages"
RULE = "use lowercase letters, digits and single hyphens, at most 64 characters"
MCP_RULE = "use lowercase letters, digits and single hyphens, at most 32 characters"
HANDLER = {"type": "command", "command": "check"}


def _hooks(events: object) -> dict[str, object]:
    return {"hooks.json": {"hooks": events}}


def _claude(files: dict[str, object]) -> dict[str, object]:
    return {".claude-plugin/plugin.json": {"name": "pkg"}, **files}


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        (
            "invalid-json",
            ["plugin.json: invalid JSON at line 4, column 3: Expecting ',' delimiter"],
        ),
        (
            "invalid-names",
            [
                f"plugin.json: name: invalid name 'Invalid Names': {RULE}",
                f"mcp.json: mcpServers.My_Server: invalid name 'My_Server': {MCP_RULE}",
            ],
        ),
        ("invalid-skill-no-skillmd", ["skills/empty: missing SKILL.md"]),
        (
            "invalid-invoke",
            [
                "skills/never/SKILL.md: invoke: model and user are both false, "
                "so the skill could never run"
            ],
        ),
        ("invalid-unknown-keys", ["plugin.json: main: unknown key"]),
        (
            "invalid-mcp",
            [
                "mcp.json: mcpServers.both: set exactly one of `command` (a local stdio server) "
                "or `url` (a remote server)",
                "mcp.json: mcpServers.typo.arg: unknown key",
            ],
        ),
        (
            "invalid-hooks",
            [
                "hooks.json: hooks.PreToolUse[0].matcher: unknown tool 'bash': use agent.message, "
                "agent.spawn, file.edit, file.read, file.write, search.files, search.web, shell "
                "or native:<tool>",
                "hooks.json: hooks.Stop[0].hooks: must not be empty",
                "hooks.json: hooks.PostToolUse[0].effect: transform is only allowed on PreToolUse",
            ],
        ),
    ],
)
def test_invalid_fixture_reports_exactly_its_problems(
    issues_of: Issues, fixture: str, expected: list[str]
) -> None:
    assert issues_of(FIXTURES / fixture) == expected


def test_error_message_counts_the_problems_and_names_the_source() -> None:
    source = FIXTURES / "invalid-names"

    with pytest.raises(PackageInvalid) as caught:
        read_package(source)

    assert caught.value.message == f"invalid package {source}: 2 problems"
    assert list(caught.value.details) == caught.value.issues


def test_three_different_problems_are_reported_at_once(build: Builder, issues_of: Issues) -> None:
    root = build(
        {
            "plugin.json": {"name": "pkg", "color": "blue"},
            "skills/empty/notes.md": "no SKILL.md here\n",
            "mcp.json": "{",
        }
    )

    assert issues_of(root) == [
        "plugin.json: color: unknown key",
        "skills/empty: missing SKILL.md",
        "mcp.json: invalid JSON at line 1, column 2: "
        "Expecting property name enclosed in double quotes",
    ]


def test_issue_lines_never_carry_raw_pydantic_output(issues_of: Issues) -> None:
    lines = [
        line
        for fixture in ("invalid-names", "invalid-unknown-keys", "invalid-mcp", "invalid-hooks")
        for line in issues_of(FIXTURES / fixture)
    ]

    assert not [line for line in lines if "pydantic" in line or "type=" in line]
    assert not [line for line in lines if "Input should" in line or "Value error" in line]


# --- the source folder and plugin.json -------------------------------------------------------


def test_missing_source_is_one_issue(tmp_path: Path, issues_of: Issues) -> None:
    source = tmp_path / "nowhere"

    assert issues_of(source) == [f"{source}: no such folder"]


def test_source_that_is_a_file_is_one_issue(tmp_path: Path, issues_of: Issues) -> None:
    source = tmp_path / "plugin.json"
    source.write_text("{}", encoding="utf-8")

    assert issues_of(source) == [f"{source}: not a folder (a package is a folder)"]


def test_missing_plugin_json_is_an_issue(build: Builder, issues_of: Issues) -> None:
    root = build({"AGENTS.md": "Be nice.\n"}, manifest=False)

    assert issues_of(root) == ["plugin.json: missing: a package needs a plugin.json with a name"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("", "plugin.json: invalid JSON at line 1, column 1: Expecting value"),
        (
            '{\n  "name": "pkg"\n  "version": "1.0.0"\n}',
            "plugin.json: invalid JSON at line 3, column 3: Expecting ',' delimiter",
        ),
        ("[]", "plugin.json: must be a JSON object"),
        (b'{"name": "\xff"}', "plugin.json: not UTF-8 text (bad byte at offset 10)"),
        ("{}", "plugin.json: name: required key missing"),
        ('{"name": 3}', "plugin.json: name: must be a string"),
        ('{"name": "pkg", "version": 1}', "plugin.json: version: must be a string"),
        ('{"name": "pkg", "extensions": []}', "plugin.json: extensions: must be a JSON object"),
        ('{"name": "pkg", "display_name": "x"}', "plugin.json: display_name: unknown key"),
    ],
)
def test_malformed_plugin_json_is_a_located_issue(
    build: Builder, issues_of: Issues, content: str | bytes, expected: str
) -> None:
    root = build({"plugin.json": content})

    assert issues_of(root) == [expected]


def test_bad_claude_native_manifest_is_located_in_its_folder(
    build: Builder, issues_of: Issues
) -> None:
    root = build(_claude({".claude-plugin/plugin.json": {"name": "Pkg"}}), manifest=False)

    assert issues_of(root) == [f".claude-plugin/plugin.json: name: invalid name 'Pkg': {RULE}"]


# --- names -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a", "pkg", "a1-b2", "9", "x" * 64])
def test_valid_package_names_are_accepted(build: Builder, name: str) -> None:
    assert read_package(build({"plugin.json": {"name": name}})).name == name


@pytest.mark.parametrize("name", ["Pkg", "a--b", "-a", "a-", "a_b", "a.b", "a b", "é"])
def test_names_breaking_the_rule_are_rejected_for_the_package_and_servers(
    build: Builder, issues_of: Issues, name: str
) -> None:
    root = build(
        {
            "plugin.json": {"name": name},
            f"skills/{name}/SKILL.md": "x\n",
            f"agents/{name}.md": "x\n",
            "mcp.json": {"mcpServers": {name: {"command": "x"}}},
        }
    )

    assert issues_of(root) == [
        f"plugin.json: name: invalid name {name!r}: {RULE}",
        f"mcp.json: mcpServers.{name}: invalid name {name!r}: {MCP_RULE}",
    ]


@pytest.mark.parametrize(
    ("name", "slug"),
    [("Pkg", "pkg"), ("a_b", "a-b"), ("a.b", "a-b"), ("a b", "a-b"), ("a--b", "a-b"),
     ("-a", "a"), ("a-", "a")],
)
def test_skill_and_agent_names_breaking_the_rule_install_under_a_valid_name_with_a_warning(
    build: Builder, warnings_of: Issues, name: str, slug: str
) -> None:
    root = build({f"skills/{name}/SKILL.md": "x\n", f"agents/{name}.md": "x\n"})

    package = read_package(root)

    assert [s.name for s in package.skills] == [a.name for a in package.agents] == [slug]
    assert warnings_of(root) == [
        f"skills/{name}: invalid name {name!r}: {RULE}; installed as {slug!r}",
        f"agents/{name}.md: invalid name {name!r}: {RULE}; installed as {slug!r}",
    ]


def test_a_skill_whose_name_cannot_be_made_valid_is_skipped_with_a_warning(
    build: Builder, warnings_of: Issues
) -> None:
    root = build({"skills/é/SKILL.md": "x\n", "skills/ok/SKILL.md": "x\n"})

    assert [s.name for s in read_package(root).skills] == ["ok"]
    assert warnings_of(root) == [f"skills/é: invalid name 'é': {RULE}; skipped"]


def test_empty_package_name_is_rejected(build: Builder, issues_of: Issues) -> None:
    assert issues_of(build({"plugin.json": {"name": ""}})) == [
        f"plugin.json: name: invalid name '': {RULE}"
    ]


def test_names_longer_than_64_characters_are_rejected(build: Builder, issues_of: Issues) -> None:
    long = "x" * 65

    assert issues_of(build({"plugin.json": {"name": long}})) == [
        f"plugin.json: name: invalid name {long!r}: it has 65 characters; {RULE}"
    ]


def test_mcp_server_names_are_limited_to_32_characters(build: Builder, issues_of: Issues) -> None:
    ok, long = "s" * 32, "s" * 33
    root = build({"mcp.json": {"mcpServers": {ok: {"command": "x"}, long: {"command": "x"}}}})

    assert issues_of(root) == [
        f"mcp.json: mcpServers.{long}: invalid name {long!r}: it has 33 characters; {MCP_RULE}"
    ]


# --- skills ------------------------------------------------------------------------------------


def test_skill_whose_name_differs_from_its_folder_installs_under_the_folder_name(
    build: Builder, warnings_of: Issues
) -> None:
    root = build({"skills/review/SKILL.md": "---\nname: Code Reviewer\n---\nBody.\n"})

    assert [skill.name for skill in read_package(root).skills] == ["review"]
    assert warnings_of(root) == [
        "skills/review/SKILL.md: name: 'Code Reviewer' differs from the folder name; "
        "installed as 'review'"
    ]


def test_file_directly_in_skills_is_an_issue(build: Builder, issues_of: Issues) -> None:
    root = build({"skills/README.md": "# Skills\n", "skills/ok/SKILL.md": "ok\n"})

    assert issues_of(root) == [
        "skills/README.md: not in a skill folder: a skill is skills/<name>/SKILL.md"
    ]


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"skills/empty/.keep": ""}, ["skills/empty: missing SKILL.md"]),
        ({"skills/lower/skill.md": "x\n"}, ["skills/lower: missing SKILL.md"]),
        ({"skills/deep/sub/SKILL.md": "x\n"}, ["skills/deep: missing SKILL.md"]),
    ],
)
def test_skill_folder_without_skill_md_is_an_issue(
    build: Builder, issues_of: Issues, files: dict[str, str], expected: list[str]
) -> None:
    assert issues_of(build(files)) == expected


def test_empty_skill_folder_is_an_issue(build: Builder, issues_of: Issues) -> None:
    root = build({})
    (root / "skills" / "hollow").mkdir(parents=True)

    assert issues_of(root) == ["skills/hollow: missing SKILL.md"]


@pytest.mark.parametrize(
    ("invoke", "expected"),
    [
        (
            "{model: false, user: false}",
            ["invoke: model and user are both false, so the skill could never run"],
        ),
        ("[model]", ["invoke: must be a mapping like {model: true, user: true}"]),
        ("true", ["invoke: must be a mapping like {model: true, user: true}"]),
        ("{model: true, auto: false}", ["invoke.auto: unknown key (allowed: model, user)"]),
        ("{model: 'no'}", ["invoke.model: must be true or false"]),
        (
            "{user: 0, model: yes-please}",
            ["invoke.model: must be true or false", "invoke.user: must be true or false"],
        ),
        ("{user: false}", []),
        ("{}", []),
    ],
)
def test_invoke_block_must_be_two_booleans_that_allow_some_caller(
    build: Builder, invoke: str, expected: list[str]
) -> None:
    root = build({"skills/s/SKILL.md": f"---\ninvoke: {invoke}\n---\nBody.\n"})

    if not expected:
        assert read_package(root).skills[0].has_invoke_key
        return
    with pytest.raises(PackageInvalid) as caught:
        read_package(root)
    assert caught.value.issues == [f"skills/s/SKILL.md: {line}" for line in expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "---\nname: s\ndescription: a: b\n---\n",
            "invalid YAML frontmatter at line 3, column 15: mapping values are not allowed here",
        ),
        (
            "---\nname: s\n  bad: [\n---\n",
            "invalid YAML frontmatter at line 3, column 6: mapping values are not allowed here",
        ),
        ("---\nname: s\n", "frontmatter is not closed: add a `---` line after it"),
        ("---\n- a\n- b\n---\n", "frontmatter must be a YAML mapping of keys to values"),
        (
            "---\n!!python/object:os.system {}\n---\n",
            "invalid YAML frontmatter at line 2, column 1: could not determine a constructor "
            "for the tag 'tag:yaml.org,2002:python/object:os.system'",
        ),
    ],
)
def test_bad_frontmatter_skips_that_skill_with_a_located_warning(
    build: Builder, warnings_of: Issues, text: str, expected: str
) -> None:
    root = build({"skills/s/SKILL.md": text, "skills/ok/SKILL.md": "Fine.\n"})

    assert [skill.name for skill in read_package(root).skills] == ["ok"]
    assert warnings_of(root) == [f"skills/s/SKILL.md: {expected}; skipped"]


def test_skill_md_that_is_not_utf8_is_skipped_with_a_warning(
    build: Builder, warnings_of: Issues
) -> None:
    root = build({"skills/s/SKILL.md": b"---\nname: s\n---\n\xff\n"})

    assert read_package(root).skills == ()
    assert warnings_of(root) == [
        "skills/s/SKILL.md: not UTF-8 text (bad byte at offset 16); skipped"
    ]


# --- agents ------------------------------------------------------------------------------------


def test_a_second_agent_with_a_used_name_is_skipped_with_a_warning(
    build: Builder, warnings_of: Issues
) -> None:
    root = build(
        {
            "agents/a/reviewer.md": "First.\n",
            "agents/b/other.md": "---\nname: reviewer\n---\nSecond.\n",
        }
    )

    assert [agent.relpath for agent in read_package(root).agents] == ["agents/a/reviewer.md"]
    assert warnings_of(root) == [
        "agents/b/other.md: agent name 'reviewer' is already used by agents/a/reviewer.md; "
        "skipped"
    ]


@pytest.mark.parametrize(
    ("frontmatter", "expected"),
    [
        ("harness: [claude_code]", "harness: must map each harness id to a mapping of fields"),
        (
            "harness: {claude_code: sonnet}",
            "harness: must map each harness id to a mapping of fields",
        ),
    ],
)
def test_agent_frontmatter_problems_are_located(
    build: Builder, issues_of: Issues, frontmatter: str, expected: str
) -> None:
    root = build({"agents/a.md": f"---\n{frontmatter}\n---\nBody.\n"})

    assert issues_of(root) == [f"agents/a.md: {expected}"]


def test_agent_with_bad_frontmatter_yaml_is_skipped_with_a_located_warning(
    build: Builder, warnings_of: Issues
) -> None:
    root = build({"agents/a.md": "---\nname: [a\n---\nBody.\n", "agents/b.md": "Fine.\n"})

    assert [agent.name for agent in read_package(root).agents] == ["b"]
    (line,) = warnings_of(root)
    assert line.startswith("agents/a.md: invalid YAML frontmatter at line ")
    assert line.endswith("; skipped")


def test_agent_whose_name_is_not_a_string_installs_under_its_file_name(
    build: Builder, warnings_of: Issues
) -> None:
    root = build({"agents/a.md": "---\nname: 7\n---\nBody.\n"})

    assert [agent.name for agent in read_package(root).agents] == ["a"]
    assert warnings_of(root) == [
        "agents/a.md: name: name must be a string, not int; installed as 'a'"
    ]


# --- AGENTS.md -----------------------------------------------------------------------------------


def test_agents_md_must_be_utf8_text(build: Builder, issues_of: Issues) -> None:
    root = build({"AGENTS.md": b"Be nice.\n\xc3\x28\n"})

    assert issues_of(root) == ["AGENTS.md: not UTF-8 text (bad byte at offset 9)"]


# --- paths, links, special files, sizes, names ---------------------------------------------------


@pytest.mark.parametrize(
    "target",
    ["/etc/hostname", "/etc", "../../../outside.md", "../../..", "../../../pkg-sibling"],
)
def test_symlink_leaving_the_package_is_an_issue(
    build: Builder, issues_of: Issues, target: str
) -> None:
    root = build({"skills/x/SKILL.md": "x\n"})
    (root.parent / "outside.md").write_text("secret\n", encoding="utf-8")
    (root.parent / "pkg-sibling").mkdir()
    (root / "skills" / "x" / "link").symlink_to(target)

    assert issues_of(root) == ["skills/x/link: symbolic link points outside the package"]


def test_symlink_through_an_inside_link_that_leaves_is_an_issue(
    build: Builder, issues_of: Issues
) -> None:
    root = build({})
    (root / "out").symlink_to("/etc")
    (root / "via").symlink_to("out/hostname")

    assert issues_of(root) == [
        "out: symbolic link points outside the package",
        "via: symbolic link points outside the package",
    ]


def test_dangling_symlink_is_an_issue(build: Builder, issues_of: Issues) -> None:
    root = build({})
    (root / "gone").symlink_to("missing.md")

    assert issues_of(root) == ["gone: cannot read: symbolic link target does not exist"]


def test_symlink_to_an_enclosing_folder_is_an_issue(build: Builder, issues_of: Issues) -> None:
    root = build({"docs/a.md": "a\n"})
    (root / "docs" / "up").symlink_to("..")

    assert issues_of(root) == ["docs/up: symbolic link loops back to a folder that contains it"]


def test_symlinks_that_loop_into_each_other_are_an_issue(build: Builder, issues_of: Issues) -> None:
    root = build({})
    (root / "a").symlink_to("b")
    (root / "b").symlink_to("a")

    assert issues_of(root) == [
        "a: cannot read: symbolic link loops",
        "b: cannot read: symbolic link loops",
    ]


def test_symlink_through_a_file_is_an_issue(build: Builder, issues_of: Issues) -> None:
    root = build({"file.md": "x\n"})
    (root / "link").symlink_to("file.md/inside")

    assert issues_of(root) == ["link: cannot read: Not a directory"]


def test_unreadable_folder_is_an_issue(
    build: Builder, issues_of: Issues, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = build({"secret/a.md": "a\n"})
    real_scandir = os.scandir

    def scandir(path: Path) -> Iterator[os.DirEntry[str]]:
        if Path(path).name == "secret":
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)

    assert issues_of(root) == ["secret: cannot read: Permission denied"]


def test_unreadable_file_is_an_issue(
    build: Builder, issues_of: Issues, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = build({"locked.md": "a\n"})

    real_open = os.open

    def open_(path: str, flags: int, *args: Any) -> int:  # the reader opens str paths
        if Path(path).name == "locked.md":
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", open_)

    assert issues_of(root) == ["locked.md: cannot read: Permission denied"]


def test_file_that_grows_past_the_limit_while_read_is_an_issue(
    build: Builder, issues_of: Issues, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = build({"growing.log": "small\n"})

    real_open = os.open

    def open_(path: str, flags: int, *args: Any) -> int:  # the file grows after the walk
        if Path(path).name == "growing.log":
            Path(path).write_bytes(b"x" * (MAX_FILE_BYTES + 1))
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", open_)

    assert issues_of(root) == ["growing.log: file is larger than 16 MiB"]


def test_file_that_grows_within_the_limit_while_read_is_read_whole(
    build: Builder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reader reads the size the walk saw plus one byte, then the rest up to the limit."""
    root = build({"plugin.json": '{"name": "grows"}\n', "growing.md": "small\n"})
    grown = b"y" * 70_000

    real_open = os.open

    def open_(path: str, flags: int, *args: Any) -> int:  # the file grows after the walk
        if Path(path).name == "growing.md":
            Path(path).write_bytes(grown)
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", open_)

    assert read_package(root).files["growing.md"].data == grown


def test_fifo_is_an_issue(build: Builder, issues_of: Issues) -> None:
    root = build({})
    os.mkfifo(root / "pipe")

    assert issues_of(root) == [
        "pipe: is a named pipe (fifo); a package holds only regular files and folders"
    ]


def test_socket_is_an_issue(tmp_path: Path, issues_of: Issues) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "plugin.json").write_text('{"name": "p"}', encoding="utf-8")
    cwd = Path.cwd()
    os.chdir(root)  # a short relative path keeps the socket under the AF_UNIX length limit
    try:
        with socket.socket(socket.AF_UNIX) as server:
            server.bind("sock")
            assert issues_of(root) == [
                "sock: is a socket; a package holds only regular files and folders"
            ]
    finally:
        os.chdir(cwd)


def test_symlink_to_a_special_file_inside_is_an_issue(build: Builder, issues_of: Issues) -> None:
    root = build({})
    os.mkfifo(root / "pipe")
    (root / "link").symlink_to("pipe")

    assert issues_of(root) == [
        "link: is a named pipe (fifo); a package holds only regular files and folders",
        "pipe: is a named pipe (fifo); a package holds only regular files and folders",
    ]


def test_file_over_the_size_limit_is_an_issue(build: Builder, issues_of: Issues) -> None:
    root = build({"skills/x/SKILL.md": "x\n"})
    with (root / "skills" / "x" / "big.bin").open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: no real disk use

    assert issues_of(root) == [
        f"skills/x/big.bin: file is {MAX_FILE_BYTES + 1} bytes; the limit is 16 MiB"
    ]


def test_file_exactly_at_the_size_limit_is_read(build: Builder) -> None:
    root = build({})
    with (root / "big.bin").open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES)

    assert len(read_package(root).files["big.bin"].data) == MAX_FILE_BYTES


def test_package_over_the_total_limit_is_an_issue(build: Builder, issues_of: Issues) -> None:
    root = build({"mcp.json": "{"})
    (root / "data").mkdir()
    for index in range(17):
        with (root / "data" / f"{index:02}.bin").open("wb") as handle:
            handle.truncate(MAX_FILE_BYTES)  # sparse: no real disk use
    small = sum(len((root / name).read_bytes()) for name in ("plugin.json", "mcp.json"))
    total = 17 * MAX_FILE_BYTES + small

    # Over the limit no file content is read, so the broken mcp.json is not parsed.
    assert issues_of(root) == [f".: package is {total} bytes; the limit is 256 MiB"]


def test_file_name_that_is_not_utf8_is_an_issue(build: Builder, issues_of: Issues) -> None:
    root = build({"skills/x/SKILL.md": "x\n"})
    fd = os.open(os.fsencode(root / "skills" / "x") + b"/bad-\xff.md", os.O_CREAT | os.O_WRONLY)
    os.close(fd)

    assert issues_of(root) == ["skills/x/bad-\\xff.md: file name is not valid UTF-8"]


def test_file_name_that_is_not_nfc_is_an_issue(build: Builder, issues_of: Issues) -> None:
    nfd = unicodedata.normalize("NFD", "café.md")
    root = build({f"docs/{nfd}": "x\n"})

    assert issues_of(root) == [f"docs/{nfd}: file name is not NFC-normalised Unicode; rename it"]


# --- mcp.json ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mcp", "expected"),
    [
        ({}, ["mcpServers: required key missing"]),
        ({"mcpServers": {}, "servers": {}}, ["servers: unknown key"]),
        ({"mcpServers": []}, ["mcpServers: must be a JSON object of servers by name"]),
        ({"mcpServers": {"a": "npx a"}}, ["mcpServers.a: must be a JSON object"]),
        (
            {"mcpServers": {"a": {}}},
            [
                "mcpServers.a: set exactly one of `command` (a local stdio server) "
                "or `url` (a remote server)"
            ],
        ),
        (
            {"mcpServers": {"a": {"url": "https://x", "args": ["-v"], "cwd": "/"}}},
            ["mcpServers.a: args, cwd only apply to a stdio (command) server"],
        ),
        (
            {"mcpServers": {"a": {"command": "x", "headers": {}}}},
            ["mcpServers.a: headers only apply to a remote (url) server"],
        ),
        (
            {"mcpServers": {"a": {"url": "https://x", "type": "ws"}}},
            ["mcpServers.a.type: must be 'http' or 'sse'"],
        ),
        (
            {"mcpServers": {"a": {"command": "x", "env": {"N": 1}, "args": "-v"}}},
            ["mcpServers.a.args: must be a list", "mcpServers.a.env.N: must be a string"],
        ),
        (
            {"mcpServers": {"a": {"command": ""}, "b": {"url": ""}}},
            ["mcpServers.a.command: must not be empty", "mcpServers.b.url: must not be empty"],
        ),
        (
            {"mcpServers": {"a": {"command": "x", "enabled": "yes"}}},
            ["mcpServers.a.enabled: must be true or false"],
        ),
        (
            {"mcpServers": {"a": {"name": "a", "command": "x"}}},
            ["mcpServers.a.name: unknown key (the key above names it)"],
        ),
        (
            {"mcpServers": {"a": {"url": "https://x", "type": "ws"}}},
            ["mcpServers.a.type: must be 'http' or 'sse'"],
        ),
    ],
)
def test_malformed_mcp_json_is_a_located_issue(
    build: Builder, issues_of: Issues, mcp: object, expected: list[str]
) -> None:
    root = build({"mcp.json": mcp})

    assert issues_of(root) == [f"mcp.json: {line}" for line in expected]


def test_mcp_json_that_is_not_an_object_is_an_issue(build: Builder, issues_of: Issues) -> None:
    assert issues_of(build({"mcp.json": "[1]"})) == ["mcp.json: must be a JSON object"]


# --- hooks.json ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("events", "expected"),
    [
        (
            {"BeforeAgent": [{"hooks": [HANDLER]}]},
            [
                "hooks.BeforeAgent: unknown event (use PreToolUse, PostToolUse, Stop, "
                "SessionStart, UserPromptSubmit, SubagentStop, SessionEnd, PreCompact, "
                "Notification)"
            ],
        ),
        ({"Stop": {"hooks": [HANDLER]}}, ["hooks.Stop: must be a list of groups"]),
        ({"Stop": ["x"]}, ["hooks.Stop[0]: must be a JSON object"]),
        ({"Stop": [{}]}, ["hooks.Stop[0].hooks: required key missing"]),
        ({"Stop": [{"hooks": [HANDLER], "when": "now"}]}, ["hooks.Stop[0].when: unknown key"]),
        (
            {"Stop": [{"effect": "block", "hooks": [HANDLER]}]},
            ["hooks.Stop[0].effect: must be 'observe', 'allow', 'ask', 'deny' or 'transform'"],
        ),
        (
            {"PostToolUse": [{"effect": "transform", "hooks": [HANDLER]}]},
            ["hooks.PostToolUse[0].effect: transform is only allowed on PreToolUse"],
        ),
        (
            {"PreToolUse": [{"matcher": "shell|", "hooks": [HANDLER]}]},
            [
                "hooks.PreToolUse[0].matcher: unknown tool '': use agent.message, agent.spawn, "
                "file.edit, file.read, file.write, search.files, search.web, shell or native:<tool>"
            ],
        ),
        (
            {"PreToolUse": [{"hooks": [{"command": "x"}]}]},
            ["hooks.PreToolUse[0].hooks[0].type: required key missing"],
        ),
        (
            {"PreToolUse": [{"hooks": [{"type": "http", "command": "x"}]}]},
            ["hooks.PreToolUse[0].hooks[0].type: must be 'command', 'prompt' or 'agent'"],
        ),
        (
            {"PreToolUse": [{"effect": "deny", "hooks": [{"type": "prompt", "command": "x"}]}]},
            ["hooks.PreToolUse[0].hooks[0]: a prompt handler needs `prompt`"],
        ),
        (
            {"Stop": [{"effect": "deny", "hooks": [{"type": "agent", "prompt": "x",
                                                    "args": []}]}]},
            ["hooks.Stop[0].hooks[0]: an agent handler takes no `args`"],
        ),
        (
            {"Stop": [{"hooks": [{"type": "command", "command": "x", "model": "m"}]}]},
            ["hooks.Stop[0].hooks[0]: a command handler takes no `model`"],
        ),
        (
            {"Stop": [{"hooks": [{"type": "prompt", "prompt": "done?"}]}]},
            ['hooks.Stop[0]: a group of prompt handlers must have effect "deny": the model '
             "answers ok or not ok, and not ok blocks"],
        ),
        (
            {"Stop": [{"effect": "deny", "hooks": [{"type": "prompt", "prompt": "done?"},
                                                   HANDLER]}]},
            ["hooks.Stop[0]: prompt handlers cannot share a group with command handlers (the "
             "harness runs them, not uze's wrapper): put them in a group of their own"],
        ),
        (
            {"PreToolUse": [{"hooks": [{"type": "command", "command": ""}]}]},
            ["hooks.PreToolUse[0].hooks[0].command: must not be empty"],
        ),
        (
            {"PreToolUse": [{"hooks": [{**HANDLER, "timeout": 0}]}]},
            ["hooks.PreToolUse[0].hooks[0].timeout: must be greater than or equal to 1"],
        ),
        (
            {"PreToolUse": [{"hooks": [{**HANDLER, "timeout": 301}]}]},
            ["hooks.PreToolUse[0].hooks[0].timeout: must be less than or equal to 300"],
        ),
        (
            {"PreToolUse": [{"hooks": [{**HANDLER, "timeout": 1.5}]}]},
            ["hooks.PreToolUse[0].hooks[0].timeout: must be a whole number"],
        ),
        (
            {"PreToolUse": [{"hooks": [{**HANDLER, "args": "-v"}]}]},
            ["hooks.PreToolUse[0].hooks[0].args: must be a list"],
        ),
        (
            {"Stop": [{"hooks": [{**HANDLER, "timeout": 200}, {**HANDLER, "timeout": 101}]}]},
            [
                "hooks.Stop[0]: the handlers' timeouts add up to 301 seconds; "
                "a group may take at most 300"
            ],
        ),
        (
            {
                "PreToolUse": [{"id": "guard", "hooks": [HANDLER]}],
                "Stop": [{"id": "guard", "hooks": [HANDLER]}],
            },
            ["hooks.Stop[0].id: 'guard' is already used by hooks.PreToolUse[0]"],
        ),
    ],
)
def test_malformed_hooks_json_is_a_located_issue(
    build: Builder, issues_of: Issues, events: object, expected: list[str]
) -> None:
    root = build(_hooks(events))

    assert issues_of(root) == [f"hooks.json: {line}" for line in expected]


@pytest.mark.parametrize(
    ("hooks", "expected"),
    [
        ({}, ["hooks: required key missing"]),
        ({"hooks": {}, "version": 1}, ["version: unknown key"]),
        ({"hooks": []}, ["hooks: must be a JSON object of events"]),
    ],
)
def test_hooks_json_top_level_is_strict(
    build: Builder, issues_of: Issues, hooks: object, expected: list[str]
) -> None:
    assert issues_of(build({"hooks.json": hooks})) == [f"hooks.json: {line}" for line in expected]


@pytest.mark.parametrize(
    "matcher",
    [
        "shell",
        "file.read|file.write|file.edit",
        "search.files|search.web",
        "native:Bash",
        "agent.spawn|agent.message|native:mcp__x__y",
    ],
)
def test_valid_matchers_are_accepted(build: Builder, matcher: str) -> None:
    root = build(_hooks({"PreToolUse": [{"matcher": matcher, "hooks": [HANDLER]}]}))
    hooks = read_package(root).hooks

    assert hooks is not None
    assert hooks.hooks["PreToolUse"][0].matcher == matcher


def test_transform_is_allowed_on_pre_tool_use(build: Builder) -> None:
    root = build(_hooks({"PreToolUse": [{"effect": "transform", "hooks": [HANDLER]}]}))
    hooks = read_package(root).hooks

    assert hooks is not None
    assert hooks.hooks["PreToolUse"][0].effect == "transform"


# --- Claude-native hooks and MCP -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("hooks", "expected"),
    [
        ({"hooks": []}, ["hooks: must be a JSON object of events; skipped"]),
        ({"hooks": {"Stop": {}}}, ["hooks.Stop: must be a list of groups; skipped"]),
        ({"hooks": {"Stop": [{"matcher": "x"}]}},
         ["hooks.Stop[0]: must be an object with a non-empty `hooks` list; skipped"]),
        ({"hooks": {"Stop": ["run"]}},
         ["hooks.Stop[0]: must be an object with a non-empty `hooks` list; skipped"]),
    ],
)
def test_claude_hooks_not_shaped_as_claude_writes_them_are_skipped_with_warnings(
    build: Builder, warnings_of: Issues, hooks: object, expected: list[str]
) -> None:
    root = build(_claude({"hooks/hooks.json": hooks}), manifest=False)

    assert warnings_of(root) == [f"hooks/hooks.json: {line}" for line in expected]


def test_claude_hooks_file_that_is_not_json_is_refused(build: Builder, issues_of: Issues) -> None:
    root = build(_claude({"hooks/hooks.json": "{"}), manifest=False)

    assert issues_of(root) == ["hooks/hooks.json: invalid JSON at line 1, column 2: Expecting "
                               "property name enclosed in double quotes"]


def test_a_claude_server_that_cannot_be_read_is_skipped_with_its_location(
    build: Builder, warnings_of: Issues
) -> None:
    root = build(
        _claude({".mcp.json": {"mcpServers": {"a": {"type": "stdio", "url": "https://x"},
                                              "b": {"command": "b-server"}}}}),
        manifest=False,
    )

    assert warnings_of(root) == [
        ".mcp.json: mcpServers.a.type: must be 'http' or 'sse'; the server is skipped"]
    assert [server.name for server in read_package(root).mcp_servers] == ["b"]


@pytest.mark.parametrize("marker", ["<!-- uze:begin other -->", "<!-- uze:end pkg -->"])
def test_instructions_holding_a_uze_marker_are_refused_with_the_line(
    build: Builder, issues_of: Issues, marker: str
) -> None:
    root = build({"AGENTS.md": f"# Rules\n\n{marker}\nmore\n"})

    assert issues_of(root) == [
        "AGENTS.md:3: holds a uze region marker, which would break the region uze writes; "
        "remove that line"
    ]
