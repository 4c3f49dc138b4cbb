"""Config entries that switch one skill: `Skills.user_only` (adr/0084), `Skills.off` (ADR 0098)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import msgspec

from uze.location import Location
from uze.vocabulary import ConfigFormat


class SkillSwitch(msgspec.Struct, frozen=True):
    """A config entry that keeps one skill from the harness's model while its user can still
    run it by name (OpenCode: `permission.skill.<name> = "deny"`, adr/0084): the file per
    scope, its format, the key path of a skill's name, and the value."""

    file: Callable[[Location], Path]
    fmt: ConfigFormat
    key: Callable[[str], tuple[str, ...]]
    value: object


class SkillOff(msgspec.Struct, frozen=True):
    """The harness's own switch that turns one skill off while its folder stays (ADR 0098): an
    element appended to an array of a config file. `file` per scope, None in a scope where the
    real binary ignores the switch; `element` of the skill's name as the harness lists it."""

    file: Callable[[Location], Path | None]
    fmt: ConfigFormat
    key_path: tuple[str, ...]
    element: Callable[[str], object]
