"""The state of one name against uze.toml + uze.lock (uze/commands/declared.py, adr/0062): every
combination of declared, pinned and installed gets one state and one fix that names no folder."""

from __future__ import annotations

import pytest

from uze.commands.declared import declared_row, keep_unknown, opaque_harnesses
from uze.sources.lockfile import LockedPackage
from uze.state.receipts import Receipt

TREE, OTHER = "a" * 64, "b" * 64


def _pin(tree: str = TREE, harnesses: tuple[str, ...] = ("claude_code",),
         version: str = "1.1.0") -> LockedPackage:
    return LockedPackage(name="flow", version=version, source="./plugins/flow", tree=tree,
                         harnesses=list(harnesses))


def _receipt(tree: str = TREE, harnesses: tuple[str, ...] = ("claude_code",)) -> Receipt:
    return Receipt(name="flow", version="1.0.0", tree=tree, scope="project",
                   harnesses=list(harnesses), projections=[], artifacts=[])


@pytest.mark.parametrize(("source", "pin", "receipt", "state", "fix", "says"), [
    ("./plugins/flow", _pin(), _receipt(), "installed", "", ""),
    ("./plugins/flow", _pin(), None, "not installed", "`uze install`",
     "flow 1.1.0 (tree aaaaaaaaaaaa) is declared, not installed here"),
    ("./plugins/flow", _pin(), _receipt(OTHER), "other pin", "`uze install`",
     "uze.lock moved flow to 1.1.0 (tree aaaaaaaaaaaa) (1.0.0 installed here)"),
    ("./plugins/flow", _pin(harnesses=("claude_code", "codex")), _receipt(), "other pin",
     "`uze install`", "uze.lock pins flow for claude_code, codex (installed here for claude_code)"),
    ("./plugins/flow", None, None, "not pinned", "`uze install`",
     "uze.toml declares flow as ./plugins/flow, uze.lock has no pin"),
    ("./plugins/other", _pin(), _receipt(), "not pinned", "`uze install`",
     "uze.toml declares flow as ./plugins/other, uze.lock pins ./plugins/flow"),
    (None, _pin(), None, "not declared", "`uze install`",
     "uze.lock pins flow, uze.toml does not declare it"),
    (None, _pin(), _receipt(), "undeclared", "`uze uninstall flow` (or declare it again in "
     "uze.toml)", "flow is installed here but not declared in uze.toml"),
    (None, None, _receipt(), "undeclared", "`uze uninstall flow` (or declare it again in "
     "uze.toml)", "flow is installed here but not declared in uze.toml"),
    ("./plugins/flow", _pin(harnesses=("zed_ai",)), None, "unknown harness", "",
     "flow is pinned only for harnesses this uze does not know (zed_ai)"),
    ("./plugins/flow", _pin(harnesses=("claude_code", "zed_ai")), _receipt(), "installed", "",
     ""),
])
def test_each_combination_has_one_state_and_a_fix_that_names_no_folder(
        source: str | None, pin: LockedPackage | None, receipt: Receipt | None, state: str,
        fix: str, says: str) -> None:
    row = declared_row("flow", "project", source, pin, receipt)
    assert (row.state, row.fix, row.message) == (state, fix, says)


def test_unknown_harness_ids_are_skipped_named_and_kept_in_the_next_pin() -> None:
    pins = {"flow": _pin(harnesses=("claude_code", "zed_ai")),
            "later": _pin(harnesses=("zed_ai",))}
    kept, empty, notes = opaque_harnesses(pins)
    assert kept["flow"].harnesses == ["claude_code"] and kept["later"].harnesses == []
    assert empty == {"later"}
    assert notes == ("uze.lock pins flow, later for harness zed_ai, which this uze does not "
                     "know (a newer uze's?): skipped there; the rest installs",)
    written = keep_unknown(pins["flow"], _pin(harnesses=("claude_code", "codex")))
    assert written.harnesses == ["claude_code", "codex", "zed_ai"]
    assert keep_unknown(None, kept["flow"]) == kept["flow"]
