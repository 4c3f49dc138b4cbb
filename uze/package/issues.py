"""Turn parse and validation failures into `location: message` issue lines."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Final

from pydantic import ValidationError

_MESSAGES: Final = {
    "extra_forbidden": "unknown key",
    "missing": "required key missing",
    "too_short": "must not be empty",
    "string_too_short": "must not be empty",
    "string_type": "must be a string",
    "bool_type": "must be true or false",
    "int_type": "must be a whole number",
    "list_type": "must be a list",
    "dict_type": "must be a JSON object",
    "model_type": "must be a JSON object",
    "model_attributes_type": "must be a JSON object",
}


def key_path(parts: Sequence[str | int]) -> str:
    """Join a key path the way users write it: `hooks.PreToolUse[0].matcher`."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def issue(location: str, *parts: str) -> str:
    """Build one issue line from a location and any non-empty detail parts."""
    return ": ".join([location, *(part for part in parts if part)])


def pydantic_issues(
    error: ValidationError,
    location: str,
    prefix: Sequence[str | int] = (),
    *,
    own_key: str | None = None,
) -> list[str]:
    """Translate every pydantic error into a located issue line (no raw pydantic dumps).

    `prefix` is the key path of the validated value inside its file. An error on `own_key`
    (a field filled from the item's key, such as a server's name) is reported at the prefix.
    """
    lines: list[str] = []
    for detail in error.errors(include_url=False):
        loc = list(detail["loc"])
        if own_key is not None and loc == [own_key]:
            loc = []
        message = _MESSAGES.get(detail["type"], detail["msg"])
        message = message.removeprefix("Value error, ").replace("Input should be", "must be")
        for line in message.splitlines():
            lines.append(issue(location, key_path([*prefix, *loc]), line))
    return lines


def json_issue(location: str, error: json.JSONDecodeError) -> str:
    """Describe bad JSON with the line and column where parsing stopped."""
    return issue(
        location, f"invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}"
    )
