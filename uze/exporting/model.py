"""What an export found: the files of the package it builds, and one line per resource read,
left out or changed (ADR 0095). Plain values; nothing here reads or writes."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from uze.plan.secrets import Secret

__all__ = ["ExportKind", "Exported", "Found", "Left", "OutFile", "Secret"]

ExportKind = Literal["instructions", "skill", "command", "agent", "mcp", "hook", "setting"]


class _Line(msgspec.Struct, frozen=True):
    """A line of the export's report, shown as a `--json` object of its fields."""

    def to_json(self) -> dict[str, Any]:
        """Its `--json` object."""
        return msgspec.to_builtins(self)  # type: ignore[no-any-return]


class Exported(_Line, frozen=True):
    """One resource taken into the package: its kind, name, where it was read (as the user
    reads a target: project-relative or `~/`) and where it is in the package."""

    kind: ExportKind
    resource: str
    source: str
    path: str


class Left(_Line, frozen=True):
    """One thing the harness has in the scope that the package does not carry, and why."""

    kind: ExportKind
    resource: str
    source: str
    reason: str


class OutFile(msgspec.Struct, frozen=True):
    """One file of the package: its path, bytes and executable bit."""

    relpath: str
    data: bytes
    executable: bool = False


class Found(msgspec.Struct):
    """What the readers collect, kind by kind: the files, and a line per resource."""

    files: dict[str, OutFile] = msgspec.field(default_factory=dict)
    exported: list[Exported] = msgspec.field(default_factory=list)
    left: list[Left] = msgspec.field(default_factory=list)
    secrets: list[Secret] = msgspec.field(default_factory=list)
    notes: list[str] = msgspec.field(default_factory=list)  # what an exported item still
    # needs from the place it came from (a file it imports or runs there)

    def add(self, relpath: str, data: bytes, executable: bool = False) -> None:
        """Put one file into the package."""
        self.files[relpath] = OutFile(relpath, data, executable)
