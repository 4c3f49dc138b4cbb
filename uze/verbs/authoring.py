"""The command table's `pack` (issue 34 item 4, ADRs 0091 and 0097) and `export` (item 1, ADR
0095)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from uze.verbs.base import JSON, PROJECT, SCOPE, Call, Param, Verb, lines, paths, project, to_json


def _pack(call: Call) -> Any:
    from uze.commands.pack import pack  # start-up: one command's module

    return pack(Path(call["source"]), Path(call["out"]), check=call["check"],
                marketplace=call["marketplace"])


PACK = Verb(
    "pack", "Write a portable package's native envelopes into a folder, for publishing: a "
            "Claude Code plugin, a Codex plugin and a Gemini CLI extension, one subfolder each.",
    (Param("source", "path-argument", "Package folder (plugin.json at its root), or with "
                                      "--marketplace a folder of package folders.", default=...),
     Param("out", "path", "Folder to write (created; files pack does not write are kept).",
           "--out", ...),
     Param("marketplace", "text", "Pack each package folder of SOURCE into OUT/<package>/ and "
                                  "write the Claude Code and Codex catalogs of this name.",
           "--marketplace"),
     Param("check", "flag", "Write nothing; exit 1 naming each file that differs from what "
                            "pack would write (for CI).", "--check"),
     JSON),
    _pack, to_json, lines, finish=lambda result: 1 if result.differs else 0)


def _export(call: Call) -> Any:
    from uze.commands.export import export  # start-up: one command's module

    return export(paths(), call["harness"], out=Path(call["out"]), scope=call["scope"],
                  name=call["name"], project=project(call), cwd=Path.cwd())


EXPORT = Verb(
    "export", "Write what one harness has in a scope (skills, agents, commands, MCP servers, "
              "hooks, instructions), minus what uze owns, as one portable package.",
    (Param("harness", "text", "The harness to read (one id, e.g. claude_code).", "--harness",
           ...),
     Param("out", "path", "Folder to create (absent or empty; written whole or not at all).",
           "--out", ...),
     SCOPE, Param("name", "text", "Package name (default: the project folder's name).",
                  "--name"),
     PROJECT, JSON),
    _export, to_json, lines)
