"""The README's harness table, generated from the capability map.

`python -m uze.capabilities.table` prints it; a test fails when README.md and the map disagree.
"""

from __future__ import annotations

from typing import Final

from uze.capabilities.map import lookup
from uze.harnesses import HARNESS_IDS

ROWS: Final = (
    ("instructions", "instructions", "base"),
    ("skill", "skill", "base"),
    ("skill, user-only policy", "skill", "invoke.user_only"),
    ("skill, model-only policy", "skill", "invoke.model_only"),
    ("command", "command", "base"),
    ("agent", "agent", "base"),
    ("MCP server", "mcp", "base"),
    ("hook", "hook", "base"),
    ("hook, Claude protocol", "hook", "protocol.claude"),
)
HARNESSES: Final = HARNESS_IDS


def markdown_table() -> str:
    """One row per resource kind (and policy), one column per harness, each cell its route."""
    lines = [
        "| resource | " + " | ".join(f"`{h}`" for h in HARNESSES) + " |",
        "|---" * (len(HARNESSES) + 1) + "|",
    ]
    for label, kind, feature in ROWS:
        cells = [lookup(h, kind, feature).route for h in HARNESSES]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # pragma: no cover - a convenience for editing the README
    print(markdown_table(), end="")
