"""The command table's `pack` (issue 34 item 4, ADR 0091)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from uze.verbs.base import JSON, Call, Param, Verb, lines, to_json


def _pack(call: Call) -> Any:
    from uze.commands.pack import pack  # start-up: one command's module

    return pack(Path(call["source"]), Path(call["out"]), check=call["check"])


PACK = Verb(
    "pack", "Write a portable package's native envelopes (Claude Code, Codex, Gemini CLI) and "
            "its files into a folder, for publishing.",
    (Param("source", "path-argument", "Package folder (plugin.json at its root).", default=...),
     Param("out", "path", "Folder to write (created; files pack does not write are kept).",
           "--out", ...),
     Param("check", "flag", "Write nothing; exit 1 naming each file that differs from what "
                            "pack would write (for CI).", "--check"),
     JSON),
    _pack, to_json, lines, finish=lambda result: 1 if result.differs else 0)
