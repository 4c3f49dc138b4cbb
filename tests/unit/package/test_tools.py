"""tools.json (adr/0083): read into Tools, or every problem located in the file at once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from uze.package import read_package
from uze.package.tools import DEFAULT_TIMEOUT, server_name

Builder = Callable[..., Path]
Issues = Callable[[Path], list[str]]
SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}}


def tool(**fields: object) -> dict[str, object]:
    return {"name": "lint", "description": "Lint a file.", "inputSchema": SCHEMA,
            "command": "${PLUGIN_ROOT}/bin/lint", **fields}


def test_tools_are_read_with_their_defaults(build: Builder) -> None:
    package = read_package(build({"tools.json": {"tools": [
        tool(), tool(name="fmt", args=["--fix"], timeout=5)]}}))
    lint, fmt = package.tools
    assert (lint.name, lint.command, lint.args, lint.timeout, lint.input_schema) == (
        "lint", "${PLUGIN_ROOT}/bin/lint", None, DEFAULT_TIMEOUT, SCHEMA)
    assert (fmt.name, fmt.args, fmt.timeout) == ("fmt", ["--fix"], 5)
    assert not package.is_empty


def test_a_package_without_tools_json_has_no_tools(build: Builder) -> None:
    assert read_package(build({"AGENTS.md": "x\n"})).tools == ()


def test_every_problem_of_every_tool_is_located_at_once(build: Builder, issues_of: Issues
                                                        ) -> None:
    bad = [
        tool(name="1st", description="", timeout=0),
        tool(inputSchema={"type": "string"}, command=""),
        tool(name="x" * 33, args="--fix", extra=True),
        {"name": "lint"},
    ]
    assert issues_of(build({"tools.json": {"tools": bad}})) == [
        "tools.json: tools[0].name: invalid tool name '1st': start with a letter, then "
        "letters, digits, `_` or `-`",
        "tools.json: tools[0].description: must not be empty",
        "tools.json: tools[0].timeout: must be greater than or equal to 1",
        'tools.json: tools[1].inputSchema: must be a JSON Schema of an object: {"type": '
        '"object", "properties": {...}}',
        "tools.json: tools[1].command: must not be empty",
        "tools.json: tools[2].name: is 33 characters long; the limit is 32",
        "tools.json: tools[2].args: must be a list",
        "tools.json: tools[2].extra: unknown key",
        "tools.json: tools[3].description: required key missing",
        "tools.json: tools[3].inputSchema: required key missing",
        "tools.json: tools[3].command: required key missing",
    ]


@pytest.mark.parametrize(("content", "expected"), [
    ({"tools": []}, ["tools.json: tools: must not be empty"]),
    ({"tool": [tool()]}, ["tools.json: tools: required key missing",
                          "tools.json: tool: unknown key"]),
    ({"tools": [tool(), tool()]}, ["tools.json: tools[1].name: 'lint' is already the name of "
                                   "tools[0]"]),
    ({"tools": [tool(timeout=601)]}, ["tools.json: tools[0].timeout: must be less than or "
                                      "equal to 600"]),
    ({"tools": [tool(inputSchema={"type": "object", "required": "path"})]},
     ["tools.json: tools[0].inputSchema: required: must be a list of argument names"]),
    ("[1]", ["tools.json: must be a JSON object"]),
    ("{", ["tools.json: invalid JSON at line 1, column 2: Expecting property name enclosed "
           "in double quotes"]),
])
def test_a_bad_tools_file_is_refused_naming_the_place(
        build: Builder, issues_of: Issues, content: object, expected: list[str]) -> None:
    assert issues_of(build({"tools.json": content})) == expected


def test_the_generated_server_name_must_not_be_one_of_the_packages_servers(
        build: Builder, issues_of: Issues) -> None:
    server = {"mcpServers": {"pkg-tools": {"command": "x"}}}
    assert issues_of(build({"tools.json": {"tools": [tool()]}, "mcp.json": server})) == [
        "tools.json: uze serves these tools as the MCP server 'pkg-tools', which the "
        "package's own servers already name; rename that server"]


def test_hidden_text_a_json_escape_spells_in_a_tool_is_flagged(build: Builder) -> None:
    schema = {"type": "object", "properties": {"p": {"description": "\u200b" * 4}}}
    package = read_package(build({"tools.json": {"tools": [  # json.dumps writes \\u escapes
        tool(description="Lint.\u202eevil"), tool(name="fmt", inputSchema=schema)]}}))
    assert package.warnings == (
        "tools.json: tools[0]: hides text from a reader: a bidi control U+202E (reorders "
        "what you read)",
        "tools.json: tools[1]: hides text from a reader: a run of 4 zero-width characters")


def test_a_published_plugins_tools_json_is_one_of_its_files(build: Builder) -> None:
    package = read_package(build({".claude-plugin/plugin.json": {"name": "pkg"},
                                  "tools.json": "not read"}, manifest=False))
    assert package.tools == ()
    assert "tools.json" in package.files


@pytest.mark.parametrize(("package", "expected"), [
    ("kit", "kit-tools"),
    ("a" * 26, "a" * 26 + "-tools"),
    ("a" * 25 + "-bc", "a" * 25 + "-tools"),
    ("x" * 64, "x" * 26 + "-tools"),
])
def test_the_server_name_stays_within_the_mcp_name_limit(package: str, expected: str) -> None:
    assert server_name(package) == expected
    assert len(expected) <= 32
