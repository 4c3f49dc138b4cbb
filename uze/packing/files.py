"""The unit pack computes: one output file, and the JSON form every generated file has."""

from __future__ import annotations

import json

import msgspec


class PackedFile(msgspec.Struct, frozen=True):
    """One file pack writes: its path in OUT, bytes and executable bit."""

    relpath: str
    data: bytes
    executable: bool = False


def json_bytes(value: object) -> bytes:
    """Deterministic JSON: sorted keys, 2-space indent, one final newline (ADR 0091)."""
    return (json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()
