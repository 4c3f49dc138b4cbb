"""What delivering a package's hooks to one harness means: wrapper files plus config elements.

Pure. For each hook group, `deliver_hooks` returns either a generated wrapper script and the
one element of the harness's own hook config that runs it, or the reason the harness cannot
honour the group. Everything harness-specific comes from the harness's `HookTarget`
(`uze/harnesses/<id>.py`): its file, layout, effects, timeout unit and notes. A group whose
effect, event or tools a harness cannot carry is never delivered as something that would let
a tool run while the user believes it is guarded (docs/package-format.md). The caller maps
each element to its harness's hook file for the scope and adds it with
`config_array.append_element` (or, for a `named` element, as an owned config entry). A harness
with the `plugin` layout (OpenCode) has no hook config: its groups carry a `BridgeGroup`
instead, and `opencode_bridge` renders the one plugin file of the package that runs them.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from pathlib import PurePath
from typing import Final

import msgspec

from uze.capabilities.hooks import hook_event
from uze.harnesses import REGISTRY
from uze.harnesses.base import HookTarget
from uze.hooks.claude import TRANSLATED, claude_problem
from uze.hooks.opencode_plugin import BridgeGroup, plugin_file_name, render_plugin
from uze.hooks.tools import native_names, native_regex, unreachable
from uze.hooks.wrapper import claude_handlers, render_claude_wrapper, render_wrapper
from uze.package.claude_hooks import ClaudeHookGroup
from uze.package.hooks import TOOL_EVENTS, HookGroup, HooksFile
from uze.vocabulary import ConfigFormat, Route

GRACE: Final = 5  # seconds the harness waits beyond the handlers' own deadlines
BLOCKING: Final = frozenset({"allow", "ask", "deny", "transform"})
_SLUG: Final = re.compile(r"[^A-Za-z0-9._-]+")

class WrapperFile(msgspec.Struct, frozen=True):
    """A generated script: `path` relative to the wrapper folder, its bytes, mode 0755."""

    path: str
    data: bytes
    executable: bool = True


class HookElement(msgspec.Struct, frozen=True):
    """One element to append to the array at `key_path` in the file playing `role`.

    `named`: the value is the whole entry at `key_path` instead (Antigravity's named hooks).
    """

    role: str
    fmt: ConfigFormat
    key_path: tuple[str, ...]
    value: dict[str, object]
    named: bool = False


class GroupDelivery(msgspec.Struct, frozen=True):
    """One group in one harness: its route and reason, and what carries it (None if nothing)."""

    group: str
    event: str
    route: Route
    reason: str
    wrapper: WrapperFile | None = None
    element: HookElement | None = None
    bridge: BridgeGroup | None = None
    marker: str = ""  # no wrapper (prompt, agent): what recognises the element as this group's


def group_name(event: str, index: int, group: HookGroup) -> str:
    """The group's id, or `<Event>-<index>` when it has none (as `plan.hook_ids`)."""
    return group.id or f"{event}-{index}"


def _target(harness: str) -> HookTarget:
    target = REGISTRY[harness].hooks
    if target is None:
        raise ValueError(f"uze does not deliver hooks to {harness}")
    return target


def _problem(harness: str, event: str, group: HookGroup) -> str | None:
    """Why `harness` cannot honour the group, or None."""
    native = hook_event(harness, event)
    if native.native is None:
        return native.why_not or f"{harness} has no {event} event"
    for kind in group.handler_type.split("+"):
        if kind not in native.handler_types:
            why = REGISTRY[harness].hook_protocol.handler_why.get(kind)
            return why or f"{harness} does not run {kind} hook handlers on {event}"
    effect, target = group.effect, _target(harness)
    if event == "PreToolUse" and effect not in target.effects:
        why = target.effect_why.get(effect, "it would let the tool run")
        return f"{harness} cannot express the effect {effect!r} ({why})"
    blocks = effect == "deny" and native.can_block
    if event != "PreToolUse" and effect != "observe" and not blocks:
        return f"{harness} cannot {effect} on {event} ({native.native})"
    missing = unreachable(harness, group.matcher)
    if native_names(harness, group.matcher) == () and event in ("PreToolUse", "PostToolUse"):
        return f"{harness} has no tool for {group.matcher}"
    if missing and effect in BLOCKING - {"allow"} and event in ("PreToolUse", "PostToolUse"):
        return f"{harness} has no tool for {', '.join(missing)}: those calls would run unguarded"
    return None


def _notes(harness: str, event: str, group: HookGroup, package: str) -> list[str]:
    target = _target(harness)
    notes = [target.note.format(plugin=plugin_file_name(package))] if target.note else []
    missing = unreachable(harness, group.matcher)
    if missing and event in ("PreToolUse", "PostToolUse"):
        notes.append(f"{harness} has no tool for {', '.join(missing)}")
    if target.transform_note and group.effect == "transform":
        notes.append(target.transform_note)
    if event in ("Stop", "SubagentStop") and group.effect == "deny":
        notes.append(f"a deny on {event} makes the agent keep going with the reason")
    if target.trust_note:
        notes.append(target.trust_note)
    return notes


def _route(harness: str, event: str, group: HookGroup, notes: list[str]) -> tuple[Route, str]:
    shell = group.matcher is None or "shell" in group.matcher.split("|")
    gap = _target(harness).shell_gap
    if gap and event == "PreToolUse" and group.effect != "observe" and shell:
        return "degraded", "; ".join([gap + ": some shell calls run unguarded", *notes])
    limit = hook_event(harness, event).limit
    if limit:
        return "degraded", "; ".join([limit, *notes])
    return ("adapted" if notes else "native"), "; ".join(notes)


def _model_group(harness: str, event: str, group: HookGroup, name: str,
                 package: str) -> GroupDelivery:
    """A group of prompt or agent handlers where the harness's own model runs them (only a
    `nested` layout: Claude Code): the handlers as written, with no wrapper (adr/0089)."""
    target = _target(harness)
    native = hook_event(harness, event).native or event
    has_tool = event in TOOL_EVENTS
    matcher = native_regex(native_names(harness, group.matcher)) if has_tool else ""
    handlers = [{k: v for k, v in msgspec.to_builtins(h).items() if v is not None}
                for h in group.hooks]  # `type` first, as the tag; no null `model`
    value: dict[str, object] = {"matcher": matcher} if matcher else {}
    element = HookElement(target.role, target.fmt, ("hooks", native), {**value, "hooks": handlers})
    route, reason = _route(harness, event, group, _notes(harness, event, group, package))
    return GroupDelivery(name, event, route, reason, element=element,
                         marker=str(handlers[0]["prompt"]))


def _timeout(group: HookGroup) -> int:
    return sum(h.timeout for h in group.hooks) + GRACE


def _named_entry(
    target: HookTarget, event: str, index: int, group: HookGroup, command: str, package: str
) -> HookElement:
    """A named hook `uze-<package>-<group>` (`<Event>-<index>` for an id with other characters
    than letters, digits, `.`, `_`, `-`, so two ids cannot end up with one name). No matcher:
    the wrapper filters tools itself, as it is unverified whether agy's matcher is a regex or a
    tool name (a miss would run unguarded)."""
    handler: dict[str, object] = {"type": "command", "command": command, "timeout": _timeout(group)}
    handlers = [{"hooks": [handler]}] if event in ("PreToolUse", "PostToolUse") else [handler]
    name = group.id if group.id and not _SLUG.search(group.id) else f"{event}-{index}"
    key = f"uze-{package}-{name}"
    return HookElement(target.role, target.fmt, (key,), {"enabled": True, event: handlers},
                       named=True)


def _element(harness: str, event: str, group: HookGroup, command: str, label: str) -> HookElement:
    target = _target(harness)
    role, fmt = target.role, target.fmt
    native = hook_event(harness, event).native or event
    timeout = _timeout(group) * target.timeout_unit
    has_tool = event in ("PreToolUse", "PostToolUse")
    matcher = native_regex(native_names(harness, group.matcher)) if has_tool else ""
    if target.layout == "flat":  # exactly these four keys (Kimi Code rejects any other)
        value = {"event": native, "matcher": matcher, "command": command, "timeout": timeout}
        return HookElement(role, fmt, ("hooks",), value)
    handler: dict[str, object] = {"type": "command", "command": command, "timeout": timeout}
    if target.names_handler:
        handler["name"] = label
    value = {"matcher": matcher, "hooks": [handler]} if matcher else {"hooks": [handler]}
    return HookElement(role, fmt, ("hooks", native), value)


def _where(rel: str, wrapper_dir: PurePath, plugin_root: PurePath,
           written_dir: str | None) -> tuple[str, str, str]:
    """The wrapper `rel` as its config element runs it (a shell word), as the OpenCode bridge
    spawns it, and the package copy relative to the wrapper's own folder (its PLUGIN_ROOT).
    `written_dir` is the wrapper folder as a project-scope entry names it (adr/0039): a
    `${VAR}`-led or relative path; None: the absolute folder."""
    root = posixpath.relpath(plugin_root.as_posix(), (wrapper_dir / rel).parent.as_posix())
    if written_dir is None:
        return shlex.quote(str(wrapper_dir / rel)), str(wrapper_dir / rel), root
    head, _, tail = written_dir.partition("/")
    head = f'"{head}"' if head.startswith("$") else head
    return f"{head}/{shlex.quote(f'{tail}/{rel}')}", f"{written_dir}/{rel}", root


def _deliver_group(
    harness: str, event: str, index: int, group: HookGroup, package: str,
    wrapper_dir: PurePath, plugin_root: PurePath, written_dir: str | None,
) -> GroupDelivery:
    name = group_name(event, index, group)
    problem = _problem(harness, event, group)
    if problem is not None:
        return GroupDelivery(name, event, "unsupported", problem)
    if group.handler_type != "command":
        return _model_group(harness, event, group, name, package)
    label = f"{package}/{name}"
    slug = _SLUG.sub("-", group.id).strip("-") if group.id else ""
    rel = f"{harness}/{event}-{index}{'-' + slug if slug else ''}.py"
    command, spawned, root = _where(rel, wrapper_dir, plugin_root, written_dir)
    script = render_wrapper(harness, event, group, root, label)
    route, reason = _route(harness, event, group, _notes(harness, event, group, package))
    wrapper = WrapperFile(rel, script)
    layout = _target(harness).layout
    if layout == "plugin":
        has_tool = event in ("PreToolUse", "PostToolUse")
        tools = native_names(harness, group.matcher) if has_tool else None
        bridge = BridgeGroup(label, event, tools, group.effect in BLOCKING, spawned,
                             _timeout(group) * 1000)
        return GroupDelivery(name, event, route, reason, wrapper, bridge=bridge)
    if layout == "named":
        element = _named_entry(_target(harness), event, index, group, command, package)
    else:
        element = _element(harness, event, group, command, label)
    return GroupDelivery(name, event, route, reason, wrapper, element)


def deliver_hooks(
    harness: str, hooks: HooksFile, package: str, wrapper_dir: PurePath, plugin_root: PurePath,
    written_dir: str | None = None,
) -> tuple[GroupDelivery, ...]:
    """Each group of `hooks` as delivered to `harness`, in file order. Pure.

    `wrapper_dir` is the absolute folder the wrapper files go to (their `path` is relative to
    it); the config elements name them through `written_dir`, the harness's project-relative
    form of that folder (adr/0039), or by absolute path when it is None. `plugin_root` is the
    package copy handlers see as `PLUGIN_ROOT` (each wrapper finds it relative to itself).
    """
    groups = [
        (event, index, group)
        for event, listed in hooks.hooks.items()
        for index, group in enumerate(listed)
    ]
    if REGISTRY[harness].hooks is None:
        why = REGISTRY[harness].unsupported.get("hook", f"uze does not deliver hooks to {harness}")
        return tuple(
            GroupDelivery(group_name(e, i, g), e, "unsupported", why) for e, i, g in groups
        )
    return tuple(
        _deliver_group(harness, e, i, g, package, wrapper_dir, plugin_root, written_dir)
        for e, i, g in groups
    )


def opencode_bridge(package: str, delivered: tuple[GroupDelivery, ...]) -> bytes | None:
    """The OpenCode plugin running the package's delivered groups; None when there is none."""
    groups = tuple(d.bridge for d in delivered if d.bridge is not None and d.route != "unsupported")
    return render_plugin(package, groups) if groups else None


def deliver_claude_group(
    harness: str, group: ClaudeHookGroup, package: str, wrapper_dir: PurePath,
    plugin_root: PurePath, written_dir: str | None = None,
) -> GroupDelivery:
    """One Claude-protocol group on a harness other than Claude Code: a translating wrapper
    and the element that runs it on the native event, or `unsupported` with the reason. The
    element has no matcher: the wrapper applies the group's own (a regex on Claude's tool
    names, or on SessionStart's source). Pure."""
    problem = claude_problem(harness, group)
    target = REGISTRY[harness].hooks
    if problem is not None or target is None:
        return GroupDelivery(group.name, group.event, "unsupported", problem or "")
    native = REGISTRY[harness].hook_protocol.claude_events[group.event]
    label = f"{package}/{group.name}"
    rel = f"{harness}/claude-{_SLUG.sub('-', group.name).strip('-')}.py"
    command, spawned, root = _where(rel, wrapper_dir, plugin_root, written_dir)
    script = render_claude_wrapper(harness, group, native, root, label)
    seconds = sum(int(float(str(h["timeout"]))) for h in claude_handlers(group)) + GRACE
    if target.layout == "plugin":  # the plugin filters nothing: the wrapper applies the matcher
        notes = [TRANSLATED.format(harness=harness),
                 target.note.format(plugin=plugin_file_name(package))]
        bridge = BridgeGroup(label, group.event, None, False, spawned, seconds * 1000)
        return GroupDelivery(group.name, group.event, "adapted", "; ".join(notes),
                             WrapperFile(rel, script), bridge=bridge)
    handler: dict[str, object] = {"type": "command", "command": command,
                                  "timeout": seconds * target.timeout_unit}
    if target.names_handler:
        handler["name"] = label
    element = HookElement(target.role, target.fmt, ("hooks", native), {"hooks": [handler]})
    notes = [TRANSLATED.format(harness=harness)]
    if target.trust_note:
        notes.append(target.trust_note)
    gap = bool(target.shell_gap) and group.event == "PreToolUse"
    if gap:
        notes.insert(0, target.shell_gap + ": some shell calls run unguarded")
    limit = REGISTRY[harness].hook_protocol.claude_limits.get(group.event)
    if limit:
        notes.insert(0, limit)
    route: Route = "degraded" if gap or limit else "adapted"
    return GroupDelivery(group.name, group.event, route, "; ".join(notes),
                         WrapperFile(rel, script), element)
