"""Pydantic models for portable hooks (DESIGN section 8): events, matchers, effects, handlers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Final, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from uze.package.issues import key_path

HookEvent = Literal["PreToolUse", "PostToolUse", "Stop", "SessionStart"]
HookEffect = Literal["observe", "allow", "ask", "deny", "transform"]

HOOK_EVENTS: Final = ("PreToolUse", "PostToolUse", "Stop", "SessionStart")
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
_STRICT = ConfigDict(extra="forbid", frozen=True, strict=True)


def _check_matcher(matcher: str) -> str:
    for alias in matcher.split("|"):
        native = alias.removeprefix(NATIVE_PREFIX)
        if alias.startswith(NATIVE_PREFIX) and native:
            continue
        if alias not in TOOL_ALIASES:
            known = ", ".join(sorted(TOOL_ALIASES))
            raise ValueError(f"unknown tool {alias!r}: use {known} or native:<tool>")
    return matcher


Matcher = Annotated[str, AfterValidator(_check_matcher)]


class HookHandler(BaseModel):
    """A command run for a hook; it answers through its exit code (0 allow, 3 deny)."""

    model_config = _STRICT

    type: Literal["command"]
    command: str = Field(min_length=1)
    args: list[str] | None = None
    timeout: int = Field(default=DEFAULT_TIMEOUT, ge=1, le=MAX_TIMEOUT)


class HookGroup(BaseModel):
    """Handlers run in order for the tools `matcher` names (absent = every tool)."""

    model_config = _STRICT

    id: str | None = None
    matcher: Matcher | None = None
    effect: HookEffect = "observe"
    hooks: list[HookHandler] = Field(min_length=1)

    @model_validator(mode="after")
    def _check_total_timeout(self) -> HookGroup:
        total = sum(handler.timeout for handler in self.hooks)
        if total > MAX_TIMEOUT:
            raise ValueError(
                f"the handlers' timeouts add up to {total} seconds; a group may take at most "
                f"{MAX_TIMEOUT}"
            )
        return self


def hooks_problems(groups: Iterable[tuple[str, int, HookGroup]]) -> list[str]:
    """Check the rules that span groups: `transform` only on PreToolUse, ids unique in the file.

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
        if group.id in first_use:
            problems.append(f"{where}.id: {group.id!r} is already used by {first_use[group.id]}")
        else:
            first_use[group.id] = where
    return problems


class HooksFile(BaseModel):
    """hooks.json: `{"hooks": {Event: [group, ...]}}`."""

    model_config = _STRICT

    hooks: dict[HookEvent, list[HookGroup]]

    @model_validator(mode="after")
    def _check_groups(self) -> HooksFile:
        problems = hooks_problems(
            (event, index, group)
            for event, groups in self.hooks.items()
            for index, group in enumerate(groups)
        )
        if problems:
            raise ValueError("\n".join(problems))
        return self
