"""The vocabulary is typed once (uze/vocabulary.py); the tables that list its words agree."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, get_args

from uze import vocabulary
from uze.doctor import evidence
from uze.plan import overrides
from uze.state.receipts import Artifact
from uze.ui import render


def _words(alias: Any) -> set[str]:
    """Every string of a Literal, or of a union of Literals."""
    found: set[str] = set()
    for arg in get_args(alias):
        found |= _words(arg) if get_args(arg) else {arg}
    return found


def test_each_receipt_artifact_class_is_an_artifact_kind() -> None:
    assert {cls.type for cls in get_args(Artifact)} == _words(vocabulary.ArtifactKind)


def test_evidence_and_overrides_know_every_resource_kind() -> None:
    kinds = _words(vocabulary.Kind)
    assert set(evidence.KINDS) == kinds
    assert {key.split(".")[0] for key in overrides.KEYS} == kinds


def test_status_styles_every_state_and_live_states_are_states() -> None:
    assert _words(vocabulary.LiveState) < _words(vocabulary.State)
    assert set(render._STATE_STYLE) == _words(vocabulary.State)


def test_docs_design_lists_exactly_the_words_of_each_type() -> None:
    text = (Path(__file__).parents[2] / "docs" / "design.md").read_text(encoding="utf-8")
    text = text.split("## 5. Vocabulary")[1].split("\n## ")[0]
    rows = {m.group(1): set(re.findall(r"`([a-z]+)`", m.group(2)))
            for m in re.finditer(r"^\| ([a-z ]+) \| (`[^|]*) \|", text, re.M)}
    assert rows == {
        "scope": _words(vocabulary.Scope), "kind": _words(vocabulary.Kind),
        "route": _words(vocabulary.Route), "state": _words(vocabulary.State),
        "action": _words(vocabulary.Action), "artifact kind": _words(vocabulary.ArtifactKind),
        "config format": _words(vocabulary.ConfigFormat),
    }
