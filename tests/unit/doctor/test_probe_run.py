"""How `uze doctor --probe` reads one listing for an item (adr/0048): a Claude Code plugin's
skill in a project is listed only in a trusted workspace, and the scratch copy doctor lists in
is not one, so it is reported not probed with that reason, never missing."""

from __future__ import annotations

from collections import Counter

import pytest

from uze.doctor.probe_run import NOT_TRUSTED, Expected, _in_plugin, _item
from uze.doctor.probes import Seen

LISTED = {"skill": Seen(Counter({"kit:plan": 1}), "kit:plan")}
NOTHING = {"skill": Seen(Counter(), "")}


@pytest.mark.parametrize(("scope", "in_scratch", "listing", "state"), [
    ("project", True, NOTHING, "unverified"),  # the scratch copy is not trusted
    ("project", False, LISTED, "found"),
    ("user", True, LISTED, "found"),  # a user's plugins load in any folder
    ("user", True, NOTHING, "missing"),
])
def test_a_plugin_skill_in_an_untrusted_scratch_copy_is_not_probed(
    scope: str, in_scratch: bool, listing: dict[str, Seen], state: str
) -> None:
    expected = Expected(scope, "kit", "skill", "kit:plan", in_plugin=True)  # type: ignore[arg-type]
    item = _item(expected, "claude", ("-p /context", listing, in_scratch))
    assert item.state == state
    assert (item.note == NOT_TRUSTED) == (state == "unverified")


def test_only_claude_codes_skills_commands_and_agents_are_in_a_plugin() -> None:
    assert _in_plugin("claude_code", "skill") and _in_plugin("claude_code", "agent")
    assert not _in_plugin("claude_code", "mcp") and not _in_plugin("claude_code", "instructions")
    assert not _in_plugin("opencode", "skill") and not _in_plugin("codex", "agent")
