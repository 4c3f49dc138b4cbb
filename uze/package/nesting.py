"""How deeply a package's parsed JSON may nest (`uze.package.limits` holds the other bounds).

Its own module so the file walk (`uze.package.tree`) checks it without loading YAML.
"""

from __future__ import annotations

from typing import Any, Final

MAX_DEPTH: Final = 64
"""Deepest nesting of lists and mappings accepted in a package's JSON or YAML."""


def depth_problem(value: object) -> str | None:
    """Why `value` (parsed JSON) is nested too deeply, or None. Iterative: never recurses."""
    pending: list[tuple[object, int]] = [(value, 0)]
    while pending:
        node, depth = pending.pop()
        children: Any = node.values() if isinstance(node, dict) else node \
            if isinstance(node, list) else ()
        if children and depth >= MAX_DEPTH:
            return f"nested more than {MAX_DEPTH} levels deep"
        pending.extend((child, depth + 1) for child in children)
    return None
