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
    redacted,
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


@pytest.mark.parametrize(("text", "shown"), [
    ("git+https://user:tok@host:1/x.git#f=b", "git+https://***@host:1/x.git#f=b"),
    ("cannot reach https://tok@host/x", "cannot reach https://***@host/x"),
    ("'https://u:p@ss@host/x'", "'https://***@host/x'"),
    ("user:tok@127.0.0.1:acme/flow.git", "user:***@127.0.0.1:acme/flow.git"),
    ("git+user:tok@host:a/f.git", "git+user:***@host:a/f.git"),
    ("ssh://git:pw@host/x", "ssh://git:***@host/x"),
    ("ssh://git@host/x", "ssh://git@host/x"),
    ("git@github.com:acme/flow.git", "git@github.com:acme/flow.git"),
    ("git+https://host/x.git@v1", "git+https://host/x.git@v1"),
    ("flow@team", "flow@team"),
])
def test_redacted_takes_the_credential_out_of_every_url_form_git_accepts(
        text: str, shown: str) -> None:
    assert redacted(text) == shown
