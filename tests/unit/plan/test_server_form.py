"""An MCP entry's portable form: what export writes and adoption compares (ADR 0095, 0108)."""

from __future__ import annotations

import pytest

from uze.harnesses import REGISTRY
from uze.plan.server_form import portable_form, server_dialect

HAND = {"type": "stdio", "command": "npx", "env": {"API_TOKEN": "sk-live-0123456789abcdef"}}
PACKAGE = {"command": "npx", "args": [], "env": {"API_TOKEN": "${API_TOKEN}"}}
EXPORTED = {"command": "npx", "env": {"API_TOKEN": "${API_TOKEN}"}}


def test_defaults_and_secrets_do_not_make_two_entries_differ() -> None:
    claude = REGISTRY["claude_code"]

    assert portable_form(claude, "tickets", HAND) == EXPORTED
    assert portable_form(claude, "tickets", PACKAGE) == EXPORTED


@pytest.mark.parametrize("other", [
    {**PACKAGE, "args": ["--port", "1"]},
    {**PACKAGE, "command": "uvx"},
    {**PACKAGE, "env": {"API_TOKEN": "${OTHER_TOKEN}"}},
    {**PACKAGE, "env": {"API_TOKEN": "${API_TOKEN}", "REGION": "eu"}},
    {"type": "http", "url": "https://tickets.example.com/mcp"},
])
def test_a_real_difference_is_still_a_difference(other: dict[str, object]) -> None:
    claude = REGISTRY["claude_code"]

    assert portable_form(claude, "tickets", other) != portable_form(claude, "tickets", HAND)


def test_codex_reads_its_own_keys_and_a_value_that_is_no_server_has_no_form() -> None:
    codex = REGISTRY["codex"]

    assert portable_form(codex, "t", {"command": "npx", "args": []}) == {"command": "npx"}
    assert portable_form(codex, "t", "not a server") is None
    assert server_dialect(REGISTRY["claude_code"]) is not server_dialect(codex)
