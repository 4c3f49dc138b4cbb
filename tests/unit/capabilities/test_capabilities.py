"""The capability map is complete data, and the README's table is generated from it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from uze.capabilities import CAPABILITIES, HOOK_EVENTS, lookup
from uze.capabilities.table import markdown_table
from uze.harnesses import HARNESS_IDS, REGISTRY
from uze.package.hooks import HOOK_EVENTS as PORTABLE_EVENTS

README = Path(__file__).parents[3] / "README.md"


def test_the_readme_table_is_the_capability_map() -> None:
    text = README.read_text(encoding="utf-8")
    found = re.search(r"<!-- capability-table:begin -->\n(.*?)<!-- capability-table:end -->", text,
                      re.S)
    assert found is not None, "README.md lost its capability-table markers"
    assert found.group(1) == markdown_table()


def test_every_harness_is_one_registry_entry_named_by_its_module() -> None:
    assert len(set(HARNESS_IDS)) == len(HARNESS_IDS)
    assert all(re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", h) for h in HARNESS_IDS)
    for harness_id, harness in REGISTRY.items():
        assert harness.id == harness_id


@pytest.mark.parametrize("key", sorted(CAPABILITIES), ids=lambda k: "/".join(k))
def test_every_row_names_a_known_harness_and_non_native_rows_say_why(
    key: tuple[str, str, str],
) -> None:
    harness, kind, _feature = key
    cap = CAPABILITIES[key]
    assert harness in HARNESS_IDS
    assert kind in {"instructions", "skill", "command", "agent", "mcp", "hook"}
    assert cap.source
    assert cap.route == "native" or cap.reason


@pytest.mark.parametrize("harness", HARNESS_IDS)
@pytest.mark.parametrize("kind", ["instructions", "skill", "command", "agent", "mcp", "hook"])
def test_a_missing_row_is_unsupported_with_a_reason_never_native(harness: str, kind: str) -> None:
    cap = lookup(harness, kind)
    if (harness, kind, "base") not in CAPABILITIES:
        assert cap.route == "unsupported" and cap.reason


def test_hook_events_are_listed_for_every_harness_and_every_portable_event() -> None:
    assert set(HOOK_EVENTS) == set(HARNESS_IDS)
    for harness, events in HOOK_EVENTS.items():
        assert tuple(events) == PORTABLE_EVENTS, harness  # every one, in the file's order
        for event, found in events.items():  # absent only with the reason (adr/0089)
            assert found.native is not None or found.why_not, (harness, event)
            assert found.native is None or found.handler_types, (harness, event)
