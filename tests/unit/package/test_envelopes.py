"""A package's own Codex, Gemini CLI and OpenCode envelopes: what uze leaves behind is a warning
(ADRs 0043-0045), never a refusal, and `--strict` makes it one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from uze.errors import PackageInvalid
from uze.package import Instructions, Package
from uze.package import read_package as read_without_envelopes
from uze.plan.envelopes import envelope_warnings

Builder = Callable[..., Path]
GEMINI = "uze delivers the package to Gemini CLI resource by resource, not as an extension"
CODEX = "uze delivers the package to Codex resource by resource, not as a Codex plugin"
OPENCODE = "uze does not run a package's own OpenCode plugin"
SKILL = "---\nname: tidy\ndescription: Tidy.\n---\nBody.\n"


def read_package(source: Path, *, strict: bool = False) -> Package:
    """read_package as install and check call it (uze.commands.install.read_source)."""
    return read_without_envelopes(source, strict=strict, extra_warnings=envelope_warnings)


def test_without_the_harness_facts_the_reader_names_no_envelope(build: Builder) -> None:
    source = build({"skills/tidy/SKILL.md": SKILL, ".opencode/plugins/pkg.js": "export {};\n"})

    assert read_without_envelopes(source).warnings == ()
    assert len(read_package(source).warnings) == 1


def test_no_envelope_no_warning(build: Builder) -> None:
    assert read_package(build({"skills/tidy/SKILL.md": SKILL})).warnings == ()


def test_codex_manifest_naming_only_the_skills_folder_loses_nothing(build: Builder) -> None:
    package = read_package(build({
        "skills/tidy/SKILL.md": SKILL,
        ".codex-plugin/plugin.json": {"name": "pkg", "skills": "./skills/", "hooks": {},
                                      "interface": {"displayName": "Pkg"}},
    }))

    assert package.warnings == ()
    assert [s.name for s in package.skills] == ["tidy"]


def test_codex_manifest_component_paths_of_its_own_are_named(build: Builder) -> None:
    package = read_package(build({
        "skills/tidy/SKILL.md": SKILL,
        ".codex-plugin/plugin.json": {"name": "pkg", "skills": ["./skills", "./codex-skills"],
                                      "mcpServers": "./.codex-mcp.json", "apps": "./app.json"},
    }))

    assert package.warnings == (
        f".codex-plugin/plugin.json: skills: not read ({CODEX})",
        f".codex-plugin/plugin.json: mcpServers: not read ({CODEX})",
        f".codex-plugin/plugin.json: apps: not read ({CODEX})",
    )


def test_gemini_extension_context_servers_and_commands_are_named(build: Builder) -> None:
    package = read_package(build({
        "skills/tidy/SKILL.md": SKILL,
        "gemini-extension.json": {"name": "pkg", "version": "1.0.0",
                                  "contextFileName": ["CONTEXT.md", "MISSING.md"],
                                  "mcpServers": {"db": {"command": "db-server"}},
                                  "excludeTools": []},
        "CONTEXT.md": "Use the tidy skill.\n",
        "GEMINI.md": "Not named by contextFileName: Gemini CLI would not load it.\n",
        "commands/tidy.toml": 'prompt = "tidy {{args}}"\n',
    }))

    assert package.warnings == (
        "gemini-extension.json: contextFileName: MISSING.md: no such file in the package; "
        "skipped",
        f"gemini-extension.json: mcpServers: not read ({GEMINI})",
        f"commands/tidy.toml: Gemini CLI command: not installed ({GEMINI})",
    )
    assert package.instructions == Instructions(("CONTEXT.md",), b"Use the tidy skill.\n",
                                                "gemini-extension.json contextFileName")
    assert package.mcp_servers == ()


def test_gemini_extension_without_context_file_name_loads_gemini_md(build: Builder) -> None:
    package = read_package(build({
        "gemini-extension.json": {"name": "pkg", "version": "1.0.0"},
        "GEMINI.md": "Context.\n",
        "skills/tidy/SKILL.md": SKILL,
    }))

    assert package.warnings == ()
    assert package.instructions is not None
    assert (package.instructions.files, package.instructions.text) == (("GEMINI.md",),
                                                                       b"Context.\n")


def test_a_context_file_that_is_the_packages_instructions_is_delivered(build: Builder) -> None:
    package = read_package(build({
        "gemini-extension.json": {"name": "pkg", "contextFileName": "AGENTS.md"},
        "AGENTS.md": "Prefer small changes.\n",
    }))

    assert package.instructions == Instructions(("AGENTS.md",), b"Prefer small changes.\n")
    assert package.warnings == ()


def test_opencode_plugin_modules_are_named_only_where_opencode_loads_them(
    build: Builder,
) -> None:
    package = read_package(build({
        "skills/tidy/SKILL.md": SKILL,
        ".opencode/plugins/pkg.js": "export const Pkg = async () => ({});\n",
        ".opencode/plugin/old.ts": "export const Old = async () => ({});\n",
        ".opencode/plugins/lib/helper.js": "export const x = 1;\n",
        ".opencode/plugins/README.md": "How to install.\n",
    }))

    assert package.warnings == (
        f".opencode/plugin/old.ts: OpenCode plugin module: not loaded ({OPENCODE})",
        f".opencode/plugins/pkg.js: OpenCode plugin module: not loaded ({OPENCODE})",
    )


@pytest.mark.parametrize("content", [b"\xff\xfe not utf-8", "{not json", "[1, 2]"])
def test_an_unreadable_envelope_is_not_a_refusal(build: Builder, content: str | bytes) -> None:
    package = read_package(build({
        "skills/tidy/SKILL.md": SKILL,
        "gemini-extension.json": content,
        ".codex-plugin/plugin.json": content,
    }))

    assert package.warnings == ()
    assert [s.name for s in package.skills] == ["tidy"]


def test_strict_turns_envelope_warnings_into_problems(build: Builder) -> None:
    source = build({"skills/tidy/SKILL.md": SKILL, "AGENTS.md": "Own instructions.\n",
                    "gemini-extension.json": {"name": "pkg", "contextFileName": "GEMINI.md"},
                    "GEMINI.md": "Context.\n"})

    with pytest.raises(PackageInvalid) as caught:
        read_package(source, strict=True)

    assert caught.value.issues == [
        "gemini-extension.json: contextFileName: GEMINI.md not installed (the package's own "
        "AGENTS.md is its instructions)",
    ]
