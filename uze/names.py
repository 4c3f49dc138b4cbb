"""The one naming rule every harness accepts, for packages, skills, agents and MCP servers."""

from __future__ import annotations

import re
from typing import Final

NAME_PATTERN: Final = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
MAX_NAME_CHARS: Final = 64
MAX_MCP_NAME_CHARS: Final = 32


def name_problem(name: object, limit: int = MAX_NAME_CHARS) -> str | None:
    """Return why `name` breaks the naming rule, or None when it is a valid name."""
    if not isinstance(name, str):
        return f"name must be a string, not {type(name).__name__}"
    rule = f"use lowercase letters, digits and single hyphens, at most {limit} characters"
    if not NAME_PATTERN.fullmatch(name):
        return f"invalid name {name!r}: {rule}"
    if len(name) > limit:
        return f"invalid name {name!r}: it has {len(name)} characters; {rule}"
    return None
