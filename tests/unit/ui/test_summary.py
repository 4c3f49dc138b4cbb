"""The short report of install and check (adr/0066): counts per harness, each reason once."""

from __future__ import annotations

from uze.ui.summary import attention_lines, group_lines, harness_lines


def _row(kind: str, resource: str, harness: str, route: str, reason: str = "") -> dict[str, str]:
    return {"kind": kind, "resource": resource, "harness": harness, "route": route,
            "reason": reason}


ROWS = [
    _row("skill", "a", "codex", "native"), _row("skill", "b", "codex", "degraded", "no switch"),
    _row("skill", "a", "kimi", "degraded", "no switch"),
    _row("skill", "b", "kimi", "degraded", "no switch"),
    _row("hook", "h", "kimi", "unsupported", "no hooks"),
    _row("hook", "h", "codex", "adapted", "translated"),
]


def test_one_line_per_harness_counts_each_route_and_what_is_not_delivered() -> None:
    assert harness_lines(ROWS, ["codex", "kimi", "none"]) == [
        "  codex: 3 delivered (1 native, 1 adapted, 1 degraded)",
        "  kimi: 2 delivered (2 degraded), 1 not delivered",
        "  none: 0 delivered"]


def test_each_reason_is_said_once_with_every_row_it_covers_by_harness() -> None:
    assert attention_lines(ROWS) == [
        "Degraded (delivered, part of the meaning lost), by reason:",
        "  no switch", "    codex: skill b; kimi: skill a, skill b",
        "Not delivered, by reason:",
        "  no hooks", "    kimi: hook h"]
    assert attention_lines([r for r in ROWS if r["route"] in ("native", "adapted")]) == []


def test_lines_that_say_the_same_thing_are_one_line_naming_each_who() -> None:
    assert group_lines(["a: not on PATH", "b: other", "c: not on PATH", "plain", "plain"]) == [
        "a, c: not on PATH", "b: other", "plain"]
