"""Portable tool aliases and each harness's native tool names, as data (docs/package-format.md).

A native tool may stand for several aliases (Codex `apply_patch` both writes and edits files);
the first is the one a handler sees in `HOOK_TOOL`. An alias with no native name in a harness
cannot be matched there; `unreachable` reports it. Sources: harnesses.md 1.6, 2.6, 4.6, 6.1;
Kimi Code's names are Claude's per the reference, plus kimi-cli's own names (unverified there).
OpenCode's are the tool ids of the real opencode 1.18.33 (probes 5.3 and its binary: `apply_patch`
takes `patchText`); Antigravity's are third-party reports (harnesses.md 5.5, unverified).
"""

from __future__ import annotations

import re
from typing import Final

from uze.package.hooks import NATIVE_PREFIX

_SPECIAL: Final = re.compile(r"[.^$*+?()\[\]{}|\\/]")

_CLAUDE: Final[dict[str, tuple[str, ...]]] = {
    "Bash": ("shell",),
    "Read": ("file.read",),
    "Write": ("file.write",),
    "Edit": ("file.edit",),
    "MultiEdit": ("file.edit",),
    "NotebookEdit": ("file.edit",),
    "Glob": ("search.files",),
    "Grep": ("search.files",),
    "WebSearch": ("search.web",),
    "WebFetch": ("search.web",),
    "Task": ("agent.spawn",),
    "Agent": ("agent.spawn",),
}

TOOL_NAMES: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    "claude_code": _CLAUDE,
    "deepseek_harness": _CLAUDE,  # runs Claude-format hooks through its bridge plugin
    # Codex: PreToolUse sees neither every shell path (unified_exec) nor web search (2.6).
    "codex": {
        "Bash": ("shell",),
        "shell": ("shell",),
        "apply_patch": ("file.edit", "file.write"),
        "Edit": ("file.edit",),
        "Write": ("file.write",),
    },
    "gemini_cli": {
        "run_shell_command": ("shell",),
        "read_file": ("file.read",),
        "read_many_files": ("file.read",),
        "write_file": ("file.write",),
        "replace": ("file.edit",),
        "glob": ("search.files",),
        "search_file_content": ("search.files",),
        "grep": ("search.files",),
        "google_web_search": ("search.web",),
        "web_fetch": ("search.web",),
    },
    "kimi_code": {
        **_CLAUDE,
        "Shell": ("shell",),
        "ReadFile": ("file.read",),
        "WriteFile": ("file.write",),
        "StrReplaceFile": ("file.edit",),
        "SearchWeb": ("search.web",),
        "FetchURL": ("search.web",),
    },
    "opencode": {
        "bash": ("shell",),
        "read": ("file.read",),
        "write": ("file.write",),
        "edit": ("file.edit",),
        "apply_patch": ("file.edit", "file.write"),
        "glob": ("search.files",),
        "grep": ("search.files",),
        "webfetch": ("search.web",),
        "websearch": ("search.web",),
        "task": ("agent.spawn",),
    },
    "antigravity": {
        "run_command": ("shell",),
        "view_file": ("file.read",),
        "write_to_file": ("file.write",),
        "replace_file_content": ("file.edit",),
        "multi_replace_file_content": ("file.edit",),
        "search_web": ("search.web",),
        "read_url_content": ("search.web",),
    },
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
# `tool_name` and a Claude group's `matcher` see). Only the harnesses with a translating
# wrapper for Claude-protocol hooks (uze/hooks/claude.py) have a table.
CLAUDE_TOOL_NAMES: Final[dict[str, dict[str, str]]] = {
    "gemini_cli": {
        "run_shell_command": "Bash",
        "read_file": "Read",
        "read_many_files": "Read",
        "write_file": "Write",
        "replace": "Edit",
        "glob": "Glob",
        "search_file_content": "Grep",
        "grep": "Grep",
        "list_directory": "LS",
        "google_web_search": "WebSearch",
        "web_fetch": "WebFetch",
    },
    # Codex already names its shell tool `Bash`; `apply_patch` matches `Edit` (CX-docs).
    "codex": {"Bash": "Bash", "shell": "Bash", "apply_patch": "Edit"},
    "opencode": {
        "bash": "Bash",
        "read": "Read",
        "write": "Write",
        "edit": "Edit",
        "apply_patch": "Edit",
        "glob": "Glob",
        "grep": "Grep",
        "list": "LS",
        "webfetch": "WebFetch",
        "websearch": "WebSearch",
        "task": "Task",
        "todowrite": "TodoWrite",
    },
}
