"""Consent: this user's decision to let a package run things, kept under `$UZE_HOME` (ADR 0021).

One file per scope and package, `$UZE_HOME/consent/<scope key>/<name>.json`, holding the
project it was given for, the trust digest accepted (`uze.trust.trust_digest`), the package's
tree digest and the lines the user read. Nothing in a project is ever read as consent: a
receipt copied into a clone carries the attacker's digest, not this user's decision.

A consent file that cannot be read, is of another schema, or names another project or package
is no consent: install asks again (the safe direction), and a new answer replaces it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

import msgspec

CONSENT_SCHEMA: Final = 1
_MAX_BYTES: Final = 4 * 1024 * 1024


class Consent(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What this user accepted for one package in one scope."""

    schema_version: int = CONSENT_SCHEMA
    project: str  # the project root for scope project, "" for scope user
    package: str
    digest: str
    tree: str
    executions: list[str]


def consent_file(uze_home: Path, scope_key: str, name: str) -> Path:
    """Where the consent for package `name` in the scope named `scope_key` lives."""
    return uze_home / "consent" / scope_key / f"{name}.json"


def load_consent(path: Path, project: str, package: str) -> Consent | None:
    """The consent at `path` if it is readable, of this schema, and for `project` and `package`;
    else None (no consent)."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > _MAX_BYTES:
            return None
        found = msgspec.json.decode(path.read_bytes(), type=Consent)
    except (OSError, msgspec.ValidationError, msgspec.DecodeError):
        return None
    if found.schema_version != CONSENT_SCHEMA or found.project != project \
            or found.package != package:
        return None
    return found


def dump_consent(consent: Consent) -> bytes:
    """Canonical bytes: UTF-8 JSON, indent 2, sorted keys, trailing newline."""
    return (json.dumps(msgspec.to_builtins(consent), indent=2, sort_keys=True) + "\n").encode()


def accepted(path: Path, project: str, package: str, digest: str) -> bool:
    """Whether this user accepted `digest` for `package` in this scope ("" needs no consent)."""
    if not digest:
        return True
    found = load_consent(path, project, package)
    return found is not None and found.digest == digest
