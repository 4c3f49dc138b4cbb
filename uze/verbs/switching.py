"""The command table's `disable` and `enable` (ADR 0087)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from uze.ui.documents import switch_json
from uze.verbs.base import DRY_RUN, JSON, PROJECT, SCOPE, Call, Param, Verb, paths, project, scope

_SPEC = Param("spec", "argument", "NAME, or NAME:RESOURCE for one skill, command, agent or "
                                  "MCP server of it.", default=...)
_HARNESS = Param("harness", "text", "Only in these harnesses (comma-separated ids or binary "
                                    "names; default: every harness it is installed for).",
                 "--harness")


def _run(on: bool) -> Any:
    def run(call: Call) -> Any:
        from uze.commands.switch import switch  # start-up: one command's module

        return switch(paths(), call["spec"], on=on, harness=call["harness"], scope=scope(call),
                      project=project(call), dry_run=call["dry_run"], cwd=Path.cwd())
    return run


def _view(result: Any, _call: Call) -> list[Any]:
    from uze.ui.switch_view import switch_view  # start-up: a human view only

    return switch_view(result)


_PARAMS = (_SPEC, _HARNESS, PROJECT, SCOPE, DRY_RUN, JSON)
DISABLE = Verb(
    "disable", "Switch an installed package, or one of its resources, off (kept installed; "
               "`uze enable` switches it on again).",
    _PARAMS, _run(False), switch_json, _view, fast=True, writes=True,
    progress=lambda call: f"disable {call['spec']}")
ENABLE = Verb(
    "enable", "Switch on again what `uze disable` switched off, from the stored package.",
    _PARAMS, _run(True), switch_json, _view, fast=True, writes=True,
    progress=lambda call: f"enable {call['spec']}")
