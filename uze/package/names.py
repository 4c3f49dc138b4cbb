"""The naming rule, as the package layer imports it (it lives in `uze.names`, below every layer,
so receipts are checked by it without importing the package models), and the version rule."""

from __future__ import annotations

import re
from typing import Final

from uze.names import MAX_MCP_NAME_CHARS, MAX_NAME_CHARS, NAME_PATTERN, name_problem

__all__ = ["MAX_MCP_NAME_CHARS", "MAX_NAME_CHARS", "MAX_VERSION_CHARS", "NAME_PATTERN",
           "VERSION_PATTERN", "name_problem", "version_problem"]


VERSION_PATTERN: Final = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+_~-]*")
MAX_VERSION_CHARS: Final = 64


def version_problem(version: object) -> str | None:
    """Why a plugin.json `version` is not one uze shows and records (ADR 0021), or None."""
    if not isinstance(version, str):
        return f"version must be a string, not {type(version).__name__}"
    rule = (f"use letters, digits and . + _ ~ - (starting with a letter or digit), "
            f"at most {MAX_VERSION_CHARS} characters")
    if len(version) > MAX_VERSION_CHARS:
        return f"invalid version: it has {len(version)} characters; {rule}"
    if not VERSION_PATTERN.fullmatch(version):
        return f"invalid version {version!r}: {rule}"
    return None
