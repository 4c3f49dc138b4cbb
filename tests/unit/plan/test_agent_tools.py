"""An agent's tool allowlist in each harness's terms: kept where enforceable, else reported lost."""

from __future__ import annotations

import pytest

from uze.plan.agent_tools import LOST, claude_tools, translate_tools


@pytest.mark.parametrize(
    ("value", "expected"),
    [("Read, Grep,Glob", ["Read", "Grep", "Glob"]), (["Bash", " Edit "], ["Bash", "Edit"]),
     ("", []), (None, []), (7, [])],
)
def test_claude_tools_reads_a_comma_string_or_a_list(value: object, expected: list[str]) -> None:
    assert claude_tools(value) == expected


def test_opencode_gets_a_map_that_disables_every_other_tool() -> None:
    found = translate_tools("opencode", {"tools": "Read, Bash", "disallowedTools": ["Write"]})

    assert found.fields == {"tools": {"*": False, "read": True, "bash": True, "write": False,
                                      "apply_patch": False}}
    assert found.lost == ()


def test_gemini_gets_its_own_names_and_an_unknown_claude_tool_is_left_out() -> None:
    found = translate_tools("gemini_cli", {"tools": ["Bash", "TodoWrite"]})

    assert found.fields == {"tools": ["run_shell_command"]}
    assert found.lost == ()
    assert "no gemini_cli tool for TodoWrite: left out" in found.notes


def test_kimi_keeps_claude_names_and_its_denylist() -> None:
    found = translate_tools("kimi_code", {"tools": "Read", "disallowedTools": "Bash"})

    assert found.fields == {"tools": ["Read"], "disallowedTools": ["Bash"]}


@pytest.mark.parametrize("harness", ["codex", "antigravity", "deepseek_harness"])
def test_a_harness_without_an_allowlist_loses_the_restriction(harness: str) -> None:
    found = translate_tools(harness, {"tools": "Read"})

    assert found.fields == {}
    assert found.lost == (f"{LOST} (tools: Read)",)


def test_gemini_has_no_denylist_so_it_is_lost() -> None:
    found = translate_tools("gemini_cli", {"disallowedTools": "Bash"})

    assert found.lost == ("tool denylist not enforced (disallowedTools: Bash)",)


def test_an_agent_without_tools_has_nothing_to_translate() -> None:
    assert translate_tools("codex", {"model": "sonnet"}).fields == {}
    assert translate_tools("codex", {"model": "sonnet"}).lost == ()
