"""Receipts are msgspec Structs (ADR 0015): what pydantic refused is still refused, located."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

import msgspec
import pytest

from uze.errors import ReceiptUnreadable
from uze.state.receipts import (
    Artifact,
    FileArtifact,
    ProjectionRecord,
    Receipt,
    TreeArtifact,
    dump_receipt,
    load_receipt,
)

DIGEST = "a" * 64


def _receipt(**changes: Any) -> Receipt:
    fields: dict[str, Any] = {
        "name": "pkg", "version": "1.0.0", "tree": DIGEST, "scope": "project",
        "harnesses": ["codex"],
        "projections": [
            ProjectionRecord(kind="skill", resource="s", harness="codex", route="native"),
        ],
        "artifacts": [
            TreeArtifact(target=".agents/skills/s", files={"SKILL.md": DIGEST},
                         harnesses=["codex"]),
            FileArtifact(target=".claude/agents/a.md", digest=DIGEST, harnesses=["codex"]),
        ],
    }
    return Receipt(**{**fields, **changes})


def test_each_artifact_class_repeats_its_json_tag_as_its_type() -> None:
    """`.type` (what code and the type checker narrow on) is the tag msgspec writes."""
    for cls in get_args(Artifact):
        assert cls.type == cls.__struct_config__.tag
        decoded = msgspec.json.decode(msgspec.json.encode(_any(cls)), type=Artifact)
        assert type(decoded) is cls and decoded.type == cls.type


def _any(cls: type[Any]) -> Any:
    fields = {"target": "t", "region": "r", "digest": DIGEST, "files": {}, "format": "json",
              "key_path": ["k"], "group": "g", "marker": "m", "info": {}, "add_info": {},
              "harnesses": ["codex"]}
    return cls(**{name: fields[name] for name in cls.__struct_fields__ if name in fields})


def _written(tmp_path: Path, edit: Any) -> Path:
    data = json.loads(dump_receipt(_receipt()))
    edit(data)
    path = tmp_path / "pkg.json"
    path.write_text(json.dumps(data))
    return path


def test_canonical_bytes_carry_each_artifact_type_tag_and_read_back_equal(tmp_path: Path) -> None:
    receipt = _receipt()
    data = dump_receipt(receipt)
    assert [a["type"] for a in json.loads(data)["artifacts"]] == ["tree", "file"]
    assert data.endswith(b"}\n") and b'  "artifacts": [' in data
    path = tmp_path / "pkg.json"
    path.write_bytes(data)
    loaded = load_receipt(path)
    assert loaded == receipt
    assert [a.type for a in loaded.artifacts] == ["tree", "file"]
    assert isinstance(loaded.artifacts[0], TreeArtifact)


def _artifact(index: int, **changes: Any) -> Any:
    return lambda d: d["artifacts"][index].update(changes)


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d.update(extra=1), "Object contains unknown field `extra`"),
    (_artifact(0, target=7), "artifacts.0.target: Expected `str`, got `int`"),
    (_artifact(1, type="folder"), "artifacts.1.type: Invalid value 'folder'"),
    (_artifact(1, digest=DIGEST + "\n"), "artifacts.1.digest: Expected `str` matching"),
    (_artifact(0, files={"x": "A" * 64}), "artifacts.0.files.<key>: Expected `str` matching"),
    (lambda d: d["projections"][0].update(route="sideways"),
     "projections.0.route: Invalid enum value 'sideways'"),
    (lambda d: d.pop("name"), "Object missing required field `name`"),
    (lambda d: d.update(scope="team"), "scope: Invalid enum value 'team'"),
])
def test_a_receipt_of_the_wrong_shape_is_refused_naming_where(
    tmp_path: Path, edit: Any, message: str
) -> None:
    path = _written(tmp_path, edit)
    with pytest.raises(ReceiptUnreadable) as caught:
        load_receipt(path)
    assert f"cannot read receipt {path}: {message}" in str(caught.value)
    assert caught.value.hint == "restore the file from version control, or remove it and reinstall"


def test_a_struct_is_frozen() -> None:
    with pytest.raises(AttributeError):
        _receipt().name = "other"  # type: ignore[misc]


def test_a_receipt_uze_could_not_read_back_is_never_dumped() -> None:
    """A Struct's constructor checks no types, so the dump validates first."""
    with pytest.raises(msgspec.ValidationError, match="tree"):
        dump_receipt(_receipt(tree="not a digest"))


def test_disabled_is_left_out_of_a_receipt_with_nothing_off() -> None:
    from uze.state.receipts import Off, Receipt, dump_receipt, parse_receipt

    base = Receipt(name="kit", version="1.0.0", tree="0" * 64, scope="project",
                   harnesses=["codex"], projections=[], artifacts=[])
    assert b'"disabled"' not in dump_receipt(base)
    switched = msgspec.structs.replace(base, disabled=[Off(resource="review", harness="codex")])
    data = dump_receipt(switched)
    assert b'"disabled"' in data
    assert parse_receipt(data, Path("kit.json")).disabled == [Off(resource="review",
                                                                  harness="codex")]
