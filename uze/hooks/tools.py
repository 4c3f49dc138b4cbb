"""Portable tool aliases and each harness's native tool names, as data (docs/package-format.md);
each harness declares its table in its module (`uze/harnesses/<id>.py`).

A native tool may stand for several aliases (Codex `apply_patch` both writes and edits files);
the first is the one a handler sees in `HOOK_TOOL`. An alias with no native name in a harness
cannot be matched there; `unreachable` reports it. Sources: harnesses.md 1.6, 2.6, 4.6, 6.1,
5.5 and probes 5.3, cited next to each table.
"""

from __future__ import annotations

from typing import Final

from uze.harnesses import REGISTRY
from uze.package.hooks import NATIVE_PREFIX
from uze.patterns import compile_later

_SPECIAL: Final = compile_later(r"[.^$*+?()\[\]{}|\\/]")

# Per harness, each native tool name -> the portable aliases it stands for (`hook_protocol.tools`).
TOOL_NAMES: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    h.id: dict(h.hook_protocol.tools) for h in REGISTRY.values() if h.hook_protocol.tools
}


def native_names(harness: str, matcher: str | None) -> tuple[str, ...] | None:
    """The native tool names `matcher` covers in `harness`, in table order; None = every tool."""
    if matcher is None:
        return None
    table = TOOL_NAMES.get(harness, {})
    parts = matcher.split("|")
    names = [name for name, aliases in table.items() if set(aliases) & set(parts)]
    names += [p.removeprefix(NATIVE_PREFIX) for p in parts if p.startswith(NATIVE_PREFIX)]
    return tuple(dict.fromkeys(names))


def unreachable(harness: str, matcher: str | None) -> list[str]:
    """The aliases in `matcher` that no native tool of `harness` stands for."""
    if matcher is None:
        return []
    reachable = {alias for aliases in TOOL_NAMES.get(harness, {}).values() for alias in aliases}
    return [p for p in matcher.split("|") if not p.startswith(NATIVE_PREFIX) and p not in reachable]


def _escape(name: str) -> str:
    # Only the characters special in both Python and JavaScript regexes: `re.escape` also
    # escapes `-`, which a JavaScript regex in unicode mode rejects outside a class.
    return _SPECIAL.sub(lambda m: "\\" + m.group(0), name)


def native_regex(names: tuple[str, ...] | None) -> str:
    """An anchored regex for the harness's matcher field ("" = every tool)."""
    if names is None:
        return ""
    return "^(?:" + "|".join(_escape(name) for name in names) + ")$"


# Per harness, each native tool's name in Claude's protocol (what a Claude-protocol handler's
# `tool_name` and a Claude group's `matcher` see): `claude_tools` of its module. Only the
# harnesses with a translating wrapper for Claude-protocol hooks (uze/hooks/claude.py) have one.
CLAUDE_TOOL_NAMES: Final[dict[str, dict[str, str]]] = {
    h.id: dict(h.hook_protocol.claude_tools)
    for h in REGISTRY.values() if h.hook_protocol.claude_tools
}
