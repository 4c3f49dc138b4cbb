"""Each error class carries the hint for its own cause; details are fixed once built."""

from __future__ import annotations

from pathlib import Path

import pytest

from uze.errors import (
    Blocked,
    ConfigBroken,
    MarkersBroken,
    PackageInvalid,
    RequirementUnmet,
    TrustRequired,
    UzeError,
    ValueInTheWay,
)


def test_each_blocked_cause_has_its_own_hint() -> None:
    errors = [MarkersBroken("AGENTS.md", "x"), ConfigBroken(".mcp.json", "x"),
              ValueInTheWay(".mcp.json", "x")]
    assert all(isinstance(e, Blocked) for e in errors)
    assert len({e.hint for e in errors}) == 3
    assert [("uze:begin" in (e.hint or "")) for e in errors] == [True, False, False]
    assert "syntax" in (errors[1].hint or "")
    assert [e.message for e in errors] == ["cannot safely edit AGENTS.md: x",
                                           "cannot safely edit .mcp.json: x",
                                           "cannot safely edit .mcp.json: x"]


@pytest.mark.parametrize("error", [
    PackageInvalid(Path("p"), ["a: b"]),
    TrustRequired(["run x"], changed=False),
    RequirementUnmet("pkg", ["codex: skill s: degraded: why"]),
    UzeError("plain"),
])
def test_details_are_a_tuple_set_when_the_error_is_built(error: UzeError) -> None:
    assert isinstance(error.details, tuple)
    with pytest.raises(AttributeError):
        error.details.append("more")  # type: ignore[attr-defined]
