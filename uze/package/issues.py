"""Turn parse and validation failures into `location: message` issue lines."""

from __future__ import annotations

import json
from collections.abc import Sequence


def key_path(parts: Sequence[str | int]) -> str:
    """Join a key path the way users write it: `hooks.PreToolUse[0].matcher`."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def issue(location: str, *parts: str) -> str:
    """Build one issue line from a location and any non-empty detail parts."""
    return ": ".join([location, *(part for part in parts if part)])


def json_issue(location: str, error: json.JSONDecodeError) -> str:
    """Describe bad JSON with the line and column where parsing stopped."""
    return issue(
        location, f"invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}"
    )
