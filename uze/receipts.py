"""Receipts: what uze wrote for one package in one scope, the root of ownership and of GC.

A receipt lists every projection (kind, resource, harness, route, reason, target) and every
artifact with the digest of exactly the bytes uze wrote. It never holds file contents or secret
values. Project scope: `<project>/.uze/receipts/<name>.json`; user scope:
`$UZE_HOME/receipts/<name>.json`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from uze.errors import ReceiptUnreadable

SCHEMA_VERSION: Final = 1
Digest = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
Route = Literal["native", "adapted", "degraded", "unsupported"]
Kind = Literal["instructions", "skill", "agent", "mcp", "hook"]


class _Model(BaseModel):
    # defer_build: a validator is built on first use, so `status` (which only validates whole
    # receipts) builds one instead of one per record class at import (issue 8).
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class ProjectionRecord(_Model):
    """One (resource, harness) pair: how it was routed and which artifact delivers it."""

    kind: Kind
    resource: str
    harness: str
    route: Route
    reason: str = ""
    target: str = ""


class TreeArtifact(_Model):
    """A folder uze created whole; `files` maps each relative path to the digest written."""

    type: Literal["tree"] = "tree"
    target: str
    files: dict[str, Digest]
    executables: list[str] = []
    harnesses: list[str]


class RegionArtifact(_Model):
    """A delimited region in a text file; `digest` is of the body with CRLF read as LF."""

    type: Literal["region"] = "region"
    target: str
    region: str
    digest: Digest
    lead: str = ""
    harnesses: list[str]


class FileArtifact(_Model):
    """A whole file uze created (an agent definition); `digest` of exactly what was written."""

    type: Literal["file"] = "file"
    target: str
    digest: Digest
    harnesses: list[str]


class EntryArtifact(_Model):
    """One entry at `key_path` in a harness config file; `digest` of its canonical JSON value.

    `add_info` tells the remover what else the add created (never a value: no secrets here).
    """

    type: Literal["entry"] = "entry"
    target: str
    format: Literal["json", "jsonc", "toml"]
    key_path: list[str]
    digest: Digest
    add_info: dict[str, Any]
    seq: int = 0
    harnesses: list[str]


class ElementArtifact(_Model):
    """One element uze appended to an array (a hook group in a harness's hook config).

    `marker` is the wrapper command it runs: how an edited element is still recognised.
    """

    type: Literal["element"] = "element"
    target: str
    format: Literal["json", "jsonc", "toml"]
    key_path: list[str]
    group: str
    digest: Digest
    marker: str
    info: dict[str, Any]
    seq: int = 0
    harnesses: list[str]


Artifact = Annotated[
    TreeArtifact | RegionArtifact | FileArtifact | EntryArtifact | ElementArtifact,
    Field(discriminator="type"),
]


class Receipt(_Model):
    """Everything uze wrote for one package version in one scope."""

    schema_version: int = SCHEMA_VERSION
    name: str
    version: str
    tree: Digest
    scope: Literal["project", "user"]
    harnesses: list[str]
    status: Literal["pending", "complete"] = "complete"
    projections: list[ProjectionRecord]
    artifacts: list[Artifact]
    trust: str = ""
    executions: list[str] = []


def dump_receipt(receipt: Receipt) -> bytes:
    """Canonical bytes: UTF-8 JSON, indent 2, sorted keys, trailing newline."""
    return (json.dumps(receipt.model_dump(), indent=2, sort_keys=True) + "\n").encode()


def migrate(data: dict[str, Any]) -> dict[str, Any]:
    """Bring an older receipt up to SCHEMA_VERSION (schema 1 is the first: nothing to do)."""
    return data


def load_receipt(path: Path) -> Receipt:
    """Parse one receipt. Raises ReceiptUnreadable for bad JSON, bad shape or a newer schema."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise ReceiptUnreadable(path, str(exc)) from None
    if not isinstance(data, dict):
        raise ReceiptUnreadable(path, "not a JSON object")
    version = data.get("schema_version")
    if isinstance(version, int) and version > SCHEMA_VERSION:
        raise ReceiptUnreadable(
            path, f"written by a newer uze (schema {version})", hint="upgrade uze"
        )
    try:
        return Receipt.model_validate(migrate(data))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ReceiptUnreadable(path, f"{where}: {first['msg']}") from None


def receipt_path(folder: Path, name: str) -> Path:
    """Where the receipt of package `name` lives in a receipts folder."""
    return folder / f"{name}.json"


def list_receipts(folder: Path) -> list[Receipt]:
    """Every receipt in `folder`, sorted by package name."""
    if not folder.is_dir():
        return []
    return [load_receipt(path) for path in sorted(folder.glob("*.json"))]
