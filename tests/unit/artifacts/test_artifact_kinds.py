"""The artifact kinds (ADR 0036): one registry entry per ArtifactKind, planned and recorded
shapes tagged alike, and the planned and recorded key of every artifact equal."""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args

from tests.conftest import Sandbox
from uze import vocabulary
from uze.artifacts import registry
from uze.commands.install import install
from uze.commands.uninstall import uninstall
from uze.paths import Paths
from uze.plan.model import PlannedArtifact
from uze.state.receipts import Artifact

EVERY_KIND = Path(__file__).parents[2] / "data" / "packages" / "every-kind"


def _words(alias: Any) -> set[str]:
    return {str(arg) for arg in get_args(alias)}


def test_the_registry_has_one_kind_per_artifact_kind_and_both_shapes_name_them() -> None:
    kinds = _words(vocabulary.ArtifactKind)
    assert kinds == set(registry.Registry.__annotations__)
    assert {cls.type for cls in get_args(PlannedArtifact)} == kinds
    assert {cls.type for cls in get_args(Artifact)} == kinds
    for planned in get_args(PlannedArtifact):
        record = next(cls for cls in get_args(Artifact) if cls.type == planned.type)
        assert registry.of(planned) is registry.of(record) is registry.kind(planned.type)
        assert type(registry.kind(planned.type)).__module__ == f"uze.artifacts.{planned.type}"


def test_each_planned_artifact_has_the_key_of_its_record(sandbox: Sandbox) -> None:
    """every-kind in every harness plans every artifact kind; the receipt's records come back
    under the keys their plans had, so an upgrade finds each one."""
    paths = Paths(home=sandbox.home, uze_home=sandbox.uze_home, env={})
    result = install(paths, EVERY_KIND, harness="all", trust=True, cwd=sandbox.project)
    assert result.receipt is not None
    planned = {registry.planned_key(a): a.type for a in result.plan.artifacts}
    recorded = {registry.record_key(r): r.type for r in result.receipt.artifacts}
    assert planned == recorded
    assert set(planned.values()) == _words(vocabulary.ArtifactKind)
    again = install(paths, EVERY_KIND, trust=True, cwd=sandbox.project)
    assert {a.action for a in again.actions} == {"unchanged"}
    assert {a.target for a in again.actions} == set(planned)
    gone = uninstall(paths, "every-kind", cwd=sandbox.project)
    assert {a.action for a in gone.actions} == {"remove"}
    assert not (sandbox.project / ".uze").exists()
