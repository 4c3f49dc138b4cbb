"""What delivering a package's hooks to one harness means: wrapper files plus config elements.

Pure. For each hook group, `deliver_hooks` returns either a generated wrapper script and the
one element of the harness's own hook config that runs it, or the reason the harness cannot
honour the group. A group whose effect, event or tools a harness cannot carry is never
delivered as something that would let a tool run while the user believes it is guarded
(DESIGN section 8, issue 5). The caller maps each element's `role` to a file for its scope and
adds the element with `config_array.append_element`.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import PurePath
from typing import Final, Literal

from uze.capabilities.hooks import hook_event
from uze.hooks.tools import native_names, native_regex, unreachable
from uze.hooks.wrapper import render_wrapper
from uze.package.hooks import HookGroup, HooksFile

Route = Literal["native", "adapted", "degraded", "unsupported"]
GRACE: Final = 5  # seconds the harness waits beyond the handlers' own deadlines
BLOCKING: Final = frozenset({"allow", "ask", "deny", "transform"})
_SLUG: Final = re.compile(r"[^A-Za-z0-9._-]+")

# Per harness: file role, format, the effects PreToolUse can express, timeout unit.
_TARGETS: Final[dict[str, tuple[str, Literal["json", "jsonc", "toml"], frozenset[str], int]]] = {
    "claude_code": ("claude settings", "json", frozenset(BLOCKING | {"observe"}), 1),
    "codex": ("codex hooks", "json", frozenset({"observe", "deny"}), 1),
    "gemini_cli": ("gemini settings", "jsonc", frozenset({"observe", "deny", "transform"}), 1000),
    "kimi_code": ("kimi config", "toml", frozenset({"observe", "deny"}), 1),
}
_NOT_DELIVERED: Final = {
    "opencode": "OpenCode has no command hooks; the JS plugin bridge is not generated yet",
    "antigravity": "Antigravity's hook format is unverified (harnesses.md 5.5); not delivered",
    "deepseek_harness": "DeepSeek Harness reads hooks only through a bridge plugin configured "
    "per profile (dsh-hooks-claude-code); uze does not configure it yet",
}
_CODEX_TRUST: Final = "Codex runs it only after the user trusts it in /hooks (hook trust gate)"
_CODEX_SHELL: Final = "Codex's PreToolUse does not see every shell path (unified_exec)"


@dataclass(frozen=True, slots=True)
class WrapperFile:
    """A generated script: `path` relative to the wrapper folder, its bytes, mode 0755."""

    path: str
    data: bytes
    executable: bool = True


@dataclass(frozen=True, slots=True)
class HookElement:
    """One element to append to the array at `key_path` in the file playing `role`."""

    role: str
    fmt: Literal["json", "jsonc", "toml"]
    key_path: tuple[str, ...]
    value: dict[str, object]


@dataclass(frozen=True, slots=True)
class GroupDelivery:
    """One group in one harness: its route and reason, and what carries it (None if nothing)."""

    group: str
    event: str
    route: Route
    reason: str
    wrapper: WrapperFile | None = None
    element: HookElement | None = None


def group_name(event: str, index: int, group: HookGroup) -> str:
    """The group's id, or `<Event>-<index>` when it has none (as `plan.hook_ids`)."""
    return group.id or f"{event}-{index}"


def _problem(harness: str, event: str, group: HookGroup) -> str | None:
    """Why `harness` cannot honour the group, or None."""
    native = hook_event(harness, event)
    if native.native is None:
        return f"{harness} has no {event} event"
    effect = group.effect
    if event == "PreToolUse" and effect not in _TARGETS[harness][2]:
        return f"{harness} cannot express the effect {effect!r} (it would let the tool run)"
    blocks = effect == "deny" and native.can_block
    if event != "PreToolUse" and effect != "observe" and not blocks:
        return f"{harness} cannot {effect} on {event} ({native.native})"
    missing = unreachable(harness, group.matcher)
    if native_names(harness, group.matcher) == () and event in ("PreToolUse", "PostToolUse"):
        return f"{harness} has no tool for {group.matcher}"
    if missing and effect in BLOCKING - {"allow"} and event in ("PreToolUse", "PostToolUse"):
        return f"{harness} has no tool for {', '.join(missing)}: those calls would run unguarded"
    return None


def _notes(harness: str, event: str, group: HookGroup) -> list[str]:
    notes = []
    missing = unreachable(harness, group.matcher)
    if missing and event in ("PreToolUse", "PostToolUse"):
        notes.append(f"{harness} has no tool for {', '.join(missing)}")
    if harness == "claude_code" and group.effect == "transform":
        notes.append("Claude applies a rewritten input only with a decision: the user approves it")
    if event == "Stop" and group.effect == "deny":
        notes.append("a deny on Stop makes the agent keep going with the reason")
    if harness == "codex":
        notes.append(_CODEX_TRUST)
    return notes


def _route(harness: str, event: str, group: HookGroup, notes: list[str]) -> tuple[Route, str]:
    shell = group.matcher is None or "shell" in group.matcher.split("|")
    if harness == "codex" and event == "PreToolUse" and group.effect != "observe" and shell:
        return "degraded", "; ".join([_CODEX_SHELL + ": some shell calls run unguarded", *notes])
    return ("adapted" if notes else "native"), "; ".join(notes)


def _element(harness: str, event: str, group: HookGroup, command: str, label: str) -> HookElement:
    role, fmt, _, unit = _TARGETS[harness]
    native = hook_event(harness, event).native or event
    timeout = (sum(h.timeout for h in group.hooks) + GRACE) * unit
    has_tool = event in ("PreToolUse", "PostToolUse")
    matcher = native_regex(native_names(harness, group.matcher)) if has_tool else ""
    if harness == "kimi_code":  # exactly these four keys: Kimi Code rejects any other
        value = {"event": native, "matcher": matcher, "command": command, "timeout": timeout}
        return HookElement(role, fmt, ("hooks",), value)
    handler: dict[str, object] = {"type": "command", "command": command, "timeout": timeout}
    if harness == "gemini_cli":
        handler["name"] = label
    value = {"matcher": matcher, "hooks": [handler]} if matcher else {"hooks": [handler]}
    return HookElement(role, fmt, ("hooks", native), value)


def _deliver_group(
    harness: str, event: str, index: int, group: HookGroup, package: str,
    wrapper_dir: PurePath, plugin_root: PurePath,
) -> GroupDelivery:
    name = group_name(event, index, group)
    problem = _problem(harness, event, group)
    if problem is not None:
        return GroupDelivery(name, event, "unsupported", problem)
    label = f"{package}/{name}"
    slug = _SLUG.sub("-", group.id).strip("-") if group.id else ""
    rel = f"{harness}/{event}-{index}{'-' + slug if slug else ''}.py"
    script = render_wrapper(harness, event, group, str(plugin_root), label)
    command = shlex.quote(str(wrapper_dir / rel))
    route, reason = _route(harness, event, group, _notes(harness, event, group))
    element = _element(harness, event, group, command, label)
    return GroupDelivery(name, event, route, reason, WrapperFile(rel, script), element)


def deliver_hooks(
    harness: str, hooks: HooksFile, package: str, wrapper_dir: PurePath, plugin_root: PurePath
) -> tuple[GroupDelivery, ...]:
    """Each group of `hooks` as delivered to `harness`, in file order. Pure.

    `wrapper_dir` is the absolute folder the wrapper files go to (their `path` is relative to
    it, and the config elements name them by absolute path); `plugin_root` is the package copy
    handlers see as `PLUGIN_ROOT`.
    """
    groups = [
        (event, index, group)
        for event, listed in hooks.hooks.items()
        for index, group in enumerate(listed)
    ]
    if harness not in _TARGETS:
        why = _NOT_DELIVERED.get(harness, f"uze does not deliver hooks to {harness}")
        return tuple(
            GroupDelivery(group_name(e, i, g), e, "unsupported", why) for e, i, g in groups
        )
    return tuple(
        _deliver_group(harness, e, i, g, package, wrapper_dir, plugin_root) for e, i, g in groups
    )
