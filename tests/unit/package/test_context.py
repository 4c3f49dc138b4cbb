"""Instructions from the context files a package's `gemini-extension.json` names (adr/0049),
read as Gemini CLI 0.61.0 reads them: `contextFileName` a string or a list (default GEMINI.md),
`@` imports inlined, paths that leave the package refused. Packages written here."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from uze.package import Instructions, read_package
from uze.package.context import code_regions

Builder = Callable[..., Path]
SOURCE = "gemini-extension.json contextFileName"
CLAUDE = {".claude-plugin/plugin.json": {"name": "pkg"}}


def _text(source: Path) -> Instructions | None:
    return read_package(source).instructions


@pytest.mark.parametrize("named", [None, "", [], "absent"])
def test_without_a_name_gemini_md_is_the_context(build: Builder, named: object) -> None:
    manifest: dict[str, object] = {"name": "pkg"}
    if named != "absent":
        manifest["contextFileName"] = named
    source = build({"gemini-extension.json": manifest, "GEMINI.md": "Be brief.\n"})
    assert _text(source) == Instructions(("GEMINI.md",), b"Be brief.\n", SOURCE)


def test_a_list_is_read_in_its_order_and_a_missing_default_is_silent(build: Builder) -> None:
    source = build({"gemini-extension.json": {"name": "pkg", "contextFileName": [
        "docs/B.md", "A.md"]}, "A.md": "First line of A\n", "docs/B.md": "B, no newline"})
    found = read_package(source)
    assert found.instructions == Instructions(("docs/B.md", "A.md"),
                                              b"B, no newline\nFirst line of A\n", SOURCE)
    assert found.warnings == ()
    bare = build({"gemini-extension.json": {"name": "pkg"}, "skills/x/SKILL.md":
                  "---\nname: x\ndescription: X.\n---\nX.\n"}, name="bare")
    assert read_package(bare).instructions is None
    assert read_package(bare).warnings == ()


def test_agents_md_of_its_own_wins_and_a_claude_plugins_agents_md_does_not(
    build: Builder
) -> None:
    files = {"gemini-extension.json": {"name": "pkg"}, "GEMINI.md": "Gemini context.\n",
             "AGENTS.md": "Own instructions.\n"}
    portable = read_package(build(files))
    assert portable.instructions == Instructions(("AGENTS.md",), b"Own instructions.\n")
    claude = read_package(build({**files, **CLAUDE}, name="claude", manifest=False))
    assert claude.instructions == Instructions(("GEMINI.md",), b"Gemini context.\n", SOURCE)


def test_a_named_file_that_is_missing_or_not_a_string_is_a_located_warning(
    build: Builder, warnings_of: Callable[[Path], list[str]]
) -> None:
    source = build({"gemini-extension.json": {"name": "pkg", "contextFileName": [
        "GONE.md", 7, " ", "HERE.md"]}, "HERE.md": "Here.\n", "folder/x": "x"})
    assert warnings_of(source) == [
        "gemini-extension.json: contextFileName[1]: expected a non-empty string; skipped",
        "gemini-extension.json: contextFileName[2]: expected a non-empty string; skipped",
        "gemini-extension.json: contextFileName: GONE.md: no such file in the package; skipped",
    ]
    assert _text(source) == Instructions(("HERE.md",), b"Here.\n", SOURCE)


@pytest.mark.parametrize("name", ["../outside.md", "/etc/passwd", "docs/../../outside.md",
                                  "docs/../GEMINI.md"])
def test_a_context_path_that_leaves_the_package_is_refused(
    build: Builder, issues_of: Callable[[Path], list[str]], name: str
) -> None:
    source = build({"gemini-extension.json": {"name": "pkg", "contextFileName": name},
                    "GEMINI.md": "x\n"})
    (source.parent / "outside.md").write_text("secret\n")
    assert issues_of(source) == [
        f"gemini-extension.json: contextFileName: {name}: is absolute or holds .. (Gemini CLI "
        "refuses both); a context file must be a path inside the package"]


def test_a_context_file_linking_outside_the_package_is_refused(
    build: Builder, issues_of: Callable[[Path], list[str]]
) -> None:
    source = build({"gemini-extension.json": {"name": "pkg"}})
    (source.parent / "outside.md").write_text("secret\n")
    (source / "GEMINI.md").symlink_to("../outside.md")
    issues = issues_of(source)
    assert len(issues) == 1 and issues[0].startswith("GEMINI.md: ")
    assert "secret" not in issues[0]


def test_imports_are_inlined_as_gemini_cli_inlines_them(build: Builder) -> None:
    source = build({
        "gemini-extension.json": {"name": "pkg"},
        "GEMINI.md": "@./skills/a/SKILL.md\nMail me@example.com, `@./code.md` stays.\n"
                     "@refs/b.md\n@gone.md\n",
        "skills/a/SKILL.md": "A: @../../refs/b.md\n",
        "refs/b.md": "B says @b.md\n",
    })
    found = read_package(source)
    assert found.instructions is not None
    assert found.instructions.text.decode() == (
        "<!-- Imported from: ./skills/a/SKILL.md -->\n"
        "A: <!-- Imported from: ../../refs/b.md -->\n"
        "B says <!-- File already processed: b.md -->\n\n"
        "<!-- End of import from: ../../refs/b.md -->\n\n"
        "<!-- End of import from: ./skills/a/SKILL.md -->\n"
        "Mail me@example.com, `@./code.md` stays.\n"
        "<!-- Imported from: refs/b.md -->\nB says <!-- File already processed: b.md -->\n\n"
        "<!-- End of import from: refs/b.md -->\n"
        "<!-- Import failed: gone.md - not a file of the package -->\n")
    assert found.instructions.imports == ("skills/a/SKILL.md", "refs/b.md")
    assert found.warnings == (
        "GEMINI.md:4: @gone.md: no such file in the package; left as a failed import",)


@pytest.mark.parametrize("target", ["../outside.md", "/etc/hostname", "a/../../outside.md"])
def test_an_import_that_leaves_the_package_is_refused(
    build: Builder, issues_of: Callable[[Path], list[str]], target: str
) -> None:
    source = build({"gemini-extension.json": {"name": "pkg"},
                    "GEMINI.md": f"Intro.\n\nSee @{target}\n"})
    (source.parent / "outside.md").write_text("secret\n")
    assert issues_of(source) == [
        f"GEMINI.md:3: @{target}: imports a file outside the package; an import must be a file "
        "of the package"]


def test_context_text_must_be_utf8_without_region_markers(
    build: Builder, issues_of: Callable[[Path], list[str]]
) -> None:
    source = build({"gemini-extension.json": {"name": "pkg"},
                    "GEMINI.md": "@part.md\n", "part.md": "ok\n<!-- uze:end pkg -->\n"})
    assert issues_of(source) == [
        "part.md:2: holds a uze region marker, which would break the region uze writes; "
        "remove that line"]
    binary = build({"gemini-extension.json": {"name": "pkg"}, "GEMINI.md": b"\xff\n"},
                   name="binary")
    assert issues_of(binary) == ["GEMINI.md: not UTF-8 text (bad byte at offset 0)"]


def test_imports_that_multiply_past_the_size_limit_are_refused_fast(
    build: Builder, issues_of: Callable[[Path], list[str]]
) -> None:
    files: dict[str, object] = {"gemini-extension.json": {"name": "pkg"},
                                "GEMINI.md": "@l1.md\n" * 30, "l5.md": "x" * 1000 + "\n"}
    files |= {f"l{i}.md": f"@l{i + 1}.md\n" * 30 for i in range(1, 5)}
    source = build(files)
    started = time.monotonic()
    assert issues_of(source) == [
        "GEMINI.md: with its @imports inlined the context text is larger than 16 MiB; import "
        "each file once"]
    assert time.monotonic() - started < 10


_GEMINI_CODE = re.compile(r"(`+)([\s\S]*?)\1")  # Gemini CLI's own findCodeRegions pattern


@given(st.text(alphabet="`a\n@", max_size=40))
def test_code_regions_are_the_spans_gemini_clis_regex_finds(text: str) -> None:
    assert code_regions(text) == [m.span() for m in _GEMINI_CODE.finditer(text)]


@pytest.mark.parametrize("text", ["`" * 200_000, "`a" * 100_000 + "``", "@x " * 100_000,
                                  "@" * 200_000, ("`" * 300 + "\n") * 500],
                         ids=["backticks", "unclosed", "missing-imports", "ats", "fences"])
def test_hostile_context_text_is_read_in_bounded_time(
    build: Builder, text: str
) -> None:
    source = build({"gemini-extension.json": {"name": "pkg"}, "GEMINI.md": text})
    started = time.monotonic()
    package = read_package(source)
    assert time.monotonic() - started < 10
    assert len(package.warnings) <= 21  # a missing import is named 20 times, then counted
