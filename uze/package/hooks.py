"""Portable hooks (docs/package-format.md) as msgspec Structs: events, matchers, effects, handlers.

`uze.package.problems` reports every problem when msgspec finds one (ADR 0038); the rules
beyond types are functions here that the Structs and that walk both apply.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Annotated, Any, ClassVar, Final, Literal, Protocol

import msgspec

from uze.package.issues import key_path
from uze.package.manifest import NonEmpty, Strict, check
from uze.patterns import compile_later

HookEvent = Literal["PreToolUse", "PostToolUse", "Stop", "SessionStart", "UserPromptSubmit",
                   "SubagentStop", "SessionEnd", "PreCompact", "Notification"]
HookEffect = Literal["observe", "allow", "ask", "deny", "transform"]

HOOK_EVENTS: Final = ("PreToolUse", "PostToolUse", "Stop", "SessionStart", "UserPromptSubmit",
                      "SubagentStop", "SessionEnd", "PreCompact", "Notification")
TOOL_EVENTS: Final = ("PreToolUse", "PostToolUse")  # the events whose matcher names tools
# Handlers the harness's own model evaluates (adr/0089): they decide, so their group denies.
MODEL_HANDLERS: Final = ("prompt", "agent")
TOOL_ALIASES: Final = frozenset(
    {
        "shell",
        "file.read",
        "file.write",
        "file.edit",
        "search.files",
        "search.web",
        "agent.spawn",
        "agent.message",
    }
)
NATIVE_PREFIX: Final = "native:"
MAX_TIMEOUT: Final = 300
DEFAULT_TIMEOUT: Final = 30


def matcher_problem(matcher: str) -> str | None:
    """Why a matcher names a tool uze does not know, or None."""
    for alias in matcher.split("|"):
        native = alias.removeprefix(NATIVE_PREFIX)
        if alias.startswith(NATIVE_PREFIX) and native:
            continue
        if alias not in TOOL_ALIASES:
            known = ", ".join(sorted(TOOL_ALIASES))
            return f"unknown tool {alias!r}: use {known} or native:<tool>"
    return None


def timeout_problem(timeouts: Iterable[int]) -> str | None:
    """Why a group's handlers would take too long together, or None."""
    total = sum(timeouts)
    if total > MAX_TIMEOUT:
        return (f"the handlers' timeouts add up to {total} seconds; a group may take at most "
                f"{MAX_TIMEOUT}")
    return None


Timeout = Annotated[int, msgspec.Meta(ge=1, le=MAX_TIMEOUT)]
# The keys each handler type takes besides `type` and `timeout`, the first required.
HANDLER_KEYS: Final = {"command": ("command", "args"), "prompt": ("prompt", "model"),
                       "agent": ("prompt", "model")}


def article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def handler_problem(kind: str, given: Mapping[str, object]) -> str | None:
    """Why a handler of type `kind` with the keys `given` (None values = absent) is wrong."""
    keys = HANDLER_KEYS.get(kind)
    if keys is None:
        return None  # the type's own check reports it
    if given.get(keys[0]) is None:
        return f"{article(kind)} {kind} handler needs `{keys[0]}`"
    other = sorted(k for k, v in given.items() if v is not None and k not in (*keys, "timeout",
                                                                                "type"))
    if other:
        return f"{article(kind)} {kind} handler takes no {', '.join(f'`{k}`' for k in other)}"
    return None


class HookHandler(Strict, frozen=True, kw_only=True):
    """A hook handler. `command`: run by uze's wrapper; it answers through its exit code (0
    allow, 3 deny). `prompt` / `agent` (adr/0089): the harness's own model evaluates `prompt`
    with the hook input (`$ARGUMENTS`), an agent with tools first, and answers ok or not ok
    with a reason, not ok denying; `model` is the harness's model name to use instead of its
    default."""

    type: Literal["command", "prompt", "agent"]
    command: NonEmpty | None = None
    args: list[str] | None = None
    prompt: NonEmpty | None = None
    model: NonEmpty | None = None
    timeout: Timeout = DEFAULT_TIMEOUT

    def __post_init__(self) -> None:
        super().__post_init__()
        check(handler_problem(self.type, {"command": self.command, "args": self.args,
                                          "prompt": self.prompt, "model": self.model}))


def handler_kinds_problem(handlers: Iterable[HookHandler], effect: str) -> str | None:
    """Why a group's handlers cannot run together, or None: prompt and agent handlers decide,
    so they stand in a `deny` group of their own (no command handlers beside them)."""
    kinds = {h.type for h in handlers}
    model = sorted(kinds & set(MODEL_HANDLERS))
    if not model:
        return None
    if "command" in kinds:
        return (f"{' and '.join(model)} handlers cannot share a group with command handlers "
                "(the harness runs them, not uze's wrapper): put them in a group of their own")
    if effect != "deny":
        return (f"a group of {' and '.join(model)} handlers must have effect \"deny\": the model "
                "answers ok or not ok, and not ok blocks")
    return None


class HookGroup(Strict, frozen=True, kw_only=True):
    """Handlers run in order for the tools `matcher` names (absent = every tool)."""

    id: str | None = None
    matcher: str | None = None
    effect: HookEffect = "observe"
    hooks: Annotated[list[HookHandler], msgspec.Meta(min_length=1)]

    rules: ClassVar[Mapping[str, Callable[[Any], str | None]]] = {"matcher": matcher_problem}

    def __post_init__(self) -> None:
        super().__post_init__()
        check(timeout_problem(handler.timeout for handler in self.hooks))
        check(handler_kinds_problem(self.hooks, self.effect))

    @property
    def handler_type(self) -> str:
        """`command`, or the model handlers' type(s) joined by `+` (`prompt`, `agent+prompt`)."""
        return "+".join(sorted({h.type for h in self.hooks}))

    @property
    def commands(self) -> list[HookHandler]:
        """The command handlers, in order (none in a group of prompt or agent handlers)."""
        return [h for h in self.hooks if h.type == "command"]


class Grouped(Protocol):
    """What the cross-group rules read of a group."""

    @property
    def id(self) -> str | None: ...

    @property
    def effect(self) -> str: ...


MAX_ID_LENGTH: Final = 64
_GENERATED_ID: Final = compile_later(f"({'|'.join(HOOK_EVENTS)})-[0-9]+")


def _id_problem(group_id: str) -> str | None:
    """Why a group id would break the names uze derives from it, or None: a wrapper
    file is named after it, and a group without an id is called `<Event>-<index>`."""
    if not group_id.strip():
        return "must not be empty; leave the key out instead"
    if len(group_id) > MAX_ID_LENGTH:
        return f"is {len(group_id)} characters long; the limit is {MAX_ID_LENGTH}"
    if _GENERATED_ID.fullmatch(group_id):
        return f"{group_id!r} is the name uze gives a group without an id; choose another"
    return None


def hooks_problems(groups: Iterable[tuple[str, int, Grouped]]) -> list[str]:
    """Check the rules that span groups: `transform` only on PreToolUse, ids unique in the file
    and apart from the names uze generates, at most MAX_ID_LENGTH characters.

    `groups` yields (event, index in that event's list, group). Each problem is
    `key.path: message`, relative to the hooks file.
    """
    problems: list[str] = []
    first_use: dict[str, str] = {}
    for event, index, group in groups:
        where = key_path(["hooks", event, index])
        if group.effect == "transform" and event != "PreToolUse":
            problems.append(f"{where}.effect: transform is only allowed on PreToolUse")
        if group.id is None:
            continue
        problem = _id_problem(group.id)
        if problem:
            problems.append(f"{where}.id: {problem}")
        elif group.id in first_use:
            problems.append(f"{where}.id: {group.id!r} is already used by {first_use[group.id]}")
        else:
            first_use[group.id] = where
    return problems


class HooksFile(Strict, frozen=True, kw_only=True):
    """hooks.json: `{"hooks": {Event: [group, ...]}}`."""

    hooks: dict[HookEvent, list[HookGroup]]

    def __post_init__(self) -> None:
        problems = hooks_problems(
            (event, index, group)
            for event, groups in self.hooks.items()
            for index, group in enumerate(groups)
        )
        check("\n".join(problems) or None)
