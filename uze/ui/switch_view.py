"""What `uze disable` and `uze enable` print (ADR 0087): the switch, then what the re-install
did to each artifact (removed, written back, kept because the user edited it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from uze.ui.blocks import Block, Line

if TYPE_CHECKING:
    from uze.commands.switch import SwitchResult

_DONE = {"remove": "removed", "create": "written", "replace": "rewritten",
         "merge": "kept (edited)", "kept": "kept (edited)"}


def switch_view(result: SwitchResult) -> list[Block]:
    """Lines for a human: what was switched, each artifact touched, each edit kept."""
    verb = "enabled" if result.on else "disabled"
    where = f" in {', '.join(result.harnesses)}" if result.harnesses else ""
    if not result.changed:
        return [Line(f"{result.asked} is already {verb}{where}: nothing changed.")]
    head = ("Dry run, nothing written: would switch " + ("on" if result.on else "off")
            if result.install.dry_run else verb.capitalize())
    out: list[Block] = [Line(f"{head} {result.asked}{where}")]
    for action in result.install.actions:
        done = "written back" if result.on and action.action == "create" \
            else _DONE.get(action.action)
        if done is None:
            continue
        line = f"  {done}: {action.target}" + (f" ({action.detail})" if action.detail else "")
        out.append(Line(line, style="yellow" if action.action in ("kept", "merge")
                               else ""))
    if any(a.action in ("kept", "merge") for a in result.install.actions):
        out.append(Line("What was kept now belongs to you; uze no longer tracks it."))
    if result.after:
        name = result.name
        out.append(Line("Off now: " + "; ".join(o.spelled(name) for o in result.after),
                               style="dim"))
    return out
