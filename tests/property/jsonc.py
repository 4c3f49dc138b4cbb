"""Shared hypothesis helper: turn indented JSON into JSONC with comments and trailing commas."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


def commented(text: str, draw: Any) -> str:
    """JSONC from indented JSON: comments and trailing commas on random lines.

    Dumped JSON has no raw newline inside strings, so every newline is between tokens.
    """
    lines = text.split("\n")
    for index, line in enumerate(lines):
        kind = draw(st.sampled_from(["", "", "line", "block", "comma"]))
        following = lines[index + 1].strip()[:1] if index + 1 < len(lines) else ""
        if kind == "line":
            lines[index] = line + " // note"
        elif kind == "block":
            stripped = line.lstrip()
            lines[index] = line[: len(line) - len(stripped)] + "/* c */ " + stripped
        elif kind == "comma" and following in ("}", "]") and line.rstrip()[-1:] not in "{[,":
            lines[index] = line + ","
    return "\n".join(lines)
