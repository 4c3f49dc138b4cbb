"""Invariant 5: bad input gets a clear error (exit 1 or 2) and nothing is written anywhere."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import EVERY_KIND, HARNESSES, Uze, snapshot
from tests.helpers import DATA, build_tree
from uze.harnesses import HARNESS_IDS
from uze.package import MAX_FILE_BYTES

pytestmark = pytest.mark.e2e

SKILL = "---\nname: x\ndescription: A skill.\n---\nBody.\n"


def _issue_lines(stderr: str) -> list[str]:
    """The `location: message` lines printed before `uze: error:`."""
    lines = stderr.splitlines()
    return lines[: next(i for i, line in enumerate(lines) if line.startswith("uze: error: "))]


def _assert_invalid_package(
    result: subprocess.CompletedProcess[str], source: Path, locations: list[str]
) -> None:
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    count = len(locations)
    noun = "problem" if count == 1 else "problems"
    assert f"uze: error: invalid package {source}: {count} {noun}" in lines
    assert lines[-1].startswith("hint: ")
    issues = _issue_lines(result.stderr)
    assert len(issues) == count, issues
    for location in locations:
        assert sum(line.startswith(location) for line in issues) == 1, (location, issues)


@pytest.fixture
def untouched(sandbox: Sandbox) -> Iterator[None]:
    """Assert the test leaves project, HOME and UZE_HOME as they were (UZE_HOME not created)."""
    sandbox.uze_home.rmdir()
    before = snapshot(sandbox)
    yield
    assert not sandbox.uze_home.exists()
    assert snapshot(sandbox) == before


INVALID = {
    "invalid-hooks": [
        "hooks.json: hooks.PreToolUse[0].matcher: ",
        "hooks.json: hooks.PostToolUse[0].effect: ",
        "hooks.json: hooks.Stop[0].hooks: ",
    ],
    "invalid-invoke": ["skills/never/SKILL.md: invoke: "],
    "invalid-json": ["plugin.json: invalid JSON at line 4"],
    "invalid-mcp": ["mcp.json: mcpServers.both: ", "mcp.json: mcpServers.typo.arg: "],
    "invalid-names": [
        "plugin.json: name: ",
        "mcp.json: mcpServers.My_Server: ",
    ],
    "invalid-skill-no-skillmd": ["skills/empty: missing SKILL.md"],
    "invalid-unknown-keys": ["plugin.json: main: unknown key"],
}


def test_every_invalid_fixture_is_covered() -> None:
    assert sorted(p.name for p in DATA.glob("invalid-*")) == sorted(INVALID)


@pytest.mark.usefixtures("untouched")
@pytest.mark.parametrize(("name", "locations"), INVALID.items(), ids=INVALID.keys())
def test_invalid_package_fails_listing_every_problem_and_writes_nothing(
    uze: Uze, name: str, locations: list[str]
) -> None:
    source = DATA / name
    _assert_invalid_package(uze("install", source, "--harness", "all"), source, locations)


def _escaping_symlink(pkg: Path) -> list[str]:
    (pkg.parent / "secret.txt").write_text("outside\n", encoding="utf-8")
    (pkg / "skills/x/leak.txt").symlink_to("../../../secret.txt")
    return ["skills/x/leak.txt: symbolic link points outside the package"]


def _oversize_file(pkg: Path) -> list[str]:
    with (pkg / "skills/x/big.bin").open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: fast and takes no disk
    return [f"skills/x/big.bin: file is {MAX_FILE_BYTES + 1} bytes"]


def _several_problems(pkg: Path) -> list[str]:
    (pkg / "plugin.json").write_text('{"name": "Bad Name", "colour": "red"}', encoding="utf-8")
    build_tree(
        pkg,
        {
            "skills/no-skill-md/notes.md": "no SKILL.md here\n",
            "skills/never/SKILL.md": "---\ninvoke: {model: false, user: false}\n---\nBody.\n",
        },
    )
    return [
        "plugin.json: name: ",
        "plugin.json: colour: ",
        "skills/no-skill-md: missing SKILL.md",
        "skills/never/SKILL.md: invoke: ",
        *_escaping_symlink(pkg),
    ]


BUILT = {
    "symlink escaping the package": _escaping_symlink,
    "file over the size limit": _oversize_file,
    "several problems at once": _several_problems,
}


@pytest.mark.usefixtures("untouched")
@pytest.mark.parametrize("breakage", BUILT.values(), ids=BUILT.keys())
def test_package_built_in_tmp_with_problems_fails_and_writes_nothing(
    sandbox: Sandbox, uze: Uze, breakage: Callable[[Path], list[str]]
) -> None:
    pkg = build_tree(
        sandbox.root / "packages" / "broken",
        {"plugin.json": '{"name": "broken"}', "skills/x/SKILL.md": SKILL},
    )
    locations = breakage(pkg)
    _assert_invalid_package(uze("install", pkg, *HARNESSES), pkg, locations)


@pytest.mark.usefixtures("untouched")
def test_missing_source_folder_fails_and_writes_nothing(sandbox: Sandbox, uze: Uze) -> None:
    missing = sandbox.root / "no-such-package"
    _assert_invalid_package(uze("install", missing, *HARNESSES), missing, [f"{missing}: "])


@pytest.mark.usefixtures("untouched")
def test_unknown_harness_is_a_usage_error_whose_hint_lists_every_id(uze: Uze) -> None:
    result = uze("install", EVERY_KIND, "--harness", "claude_code,vim")
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[0] == "uze: error: unknown harness 'vim'"
    assert lines[1].startswith("hint: ")
    for harness_id in HARNESS_IDS:
        assert harness_id in lines[1]


@pytest.mark.usefixtures("untouched")
@pytest.mark.parametrize(
    "command",
    [("install", str(EVERY_KIND), *HARNESSES), ("uninstall", "every-kind"), ("status",)],
    ids=["install", "uninstall", "status"],
)
def test_bad_scope_is_a_usage_error(uze: Uze, command: tuple[str, ...]) -> None:
    result = uze(*command, "--scope", "global")
    assert result.returncode == 2
    assert result.stdout == ""
    assert "uze: error: invalid --scope 'global'" in result.stderr
    assert "hint: use one of: project, user" in result.stderr


def test_install_refuses_a_foreign_folder_where_a_skill_would_go(
    sandbox: Sandbox, uze: Uze
) -> None:
    sandbox.uze_home.rmdir()
    build_tree(sandbox.project, {".claude/skills/every-kind/SKILL.md": "the user's own\n"})
    before = snapshot(sandbox)

    result = uze("install", EVERY_KIND, *HARNESSES)

    assert result.returncode == 1
    assert result.stdout == ""
    *differing, error, hint = result.stderr.splitlines()  # each differing file, then the error
    assert error.startswith("uze: error: ") and ".claude/skills/every-kind" in error
    assert hint.startswith("hint: ")
    assert differing[0] == (".claude/skills/every-kind/.claude-plugin/plugin.json: not on disk; "
                            "the package's blake3:" + differing[0].rsplit(":", 1)[1])
    assert ".claude/skills/every-kind/SKILL.md: on disk blake3:" in result.stderr  # the user's
    assert all(line.startswith(".claude/skills/every-kind/") for line in differing)
    assert not sandbox.uze_home.exists()
    assert snapshot(sandbox) == before


def test_install_refuses_a_file_with_broken_region_markers(sandbox: Sandbox, uze: Uze) -> None:
    sandbox.uze_home.rmdir()
    build_tree(sandbox.project, {"AGENTS.md": "# Mine\n<!-- uze:begin old-pkg -->\nleft over\n"})
    before = snapshot(sandbox)

    result = uze("install", EVERY_KIND, *HARNESSES)

    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[0].startswith("uze: error: ") and "AGENTS.md" in lines[0]
    assert "uze:begin old-pkg has no uze:end" in lines[0]
    assert lines[1].startswith("hint: ")
    assert not sandbox.uze_home.exists()
    assert snapshot(sandbox) == before


@pytest.mark.usefixtures("untouched")
def test_uninstall_of_a_package_that_is_not_installed_fails_and_writes_nothing(uze: Uze) -> None:
    result = uze("uninstall", "every-kind", "--json")
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[0].startswith("uze: error: package 'every-kind' is not installed in project scope")
    assert lines[1].startswith("hint: ")


@pytest.mark.usefixtures("untouched")
@pytest.mark.parametrize(
    "args",
    [("uninstall",), ("install", str(EVERY_KIND), "--colour")],
    ids=["missing argument", "unknown option"],
)
def test_parser_usage_errors_use_the_uze_error_format(uze: Uze, args: tuple[str, ...]) -> None:
    result = uze(*args)
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert lines[0].startswith("uze: error: ")
    assert lines[1].startswith("hint: ")


@pytest.mark.usefixtures("untouched")
def test_install_with_no_source_and_no_manifest_says_there_is_nothing_to_install(uze: Uze) -> None:
    """`uze install` alone installs uze.toml + uze.lock (issue 22); with neither it is an error."""
    result = uze("install")
    assert result.returncode == 1
    assert result.stderr.startswith("uze: error: nothing to install: no uze.toml")
    assert "hint: uze install SOURCE" in result.stderr
