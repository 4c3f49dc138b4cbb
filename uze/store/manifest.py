"""Tree manifests: the canonical bytes that name one package version in the store.

A manifest is UTF-8 JSON, `sort_keys`, `indent=2`, trailing newline:
`{"entries": [[path, digest, "x" | "-"], ...], "meta": {...}, "schema_version": 1}` with the
entries sorted by path, so the same files and meta always give the same bytes (and digest).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Final

import msgspec

from uze import canonical
from uze.errors import UzeError

SCHEMA_VERSION: Final = 1
EXECUTABLE: Final = "x"
PLAIN: Final = "-"
_DIGEST: Final = re.compile(r"[0-9a-f]{64}")
_KEYS: Final = frozenset({"schema_version", "meta", "entries"})


def is_digest(value: object) -> bool:
    """Whether `value` is a 64-character lowercase hex digest."""
    return isinstance(value, str) and _DIGEST.fullmatch(value) is not None


class TreeEntry(msgspec.Struct, frozen=True):
    """One file of a tree: relative POSIX path, digest of its blob, executable bit."""

    path: str
    digest: str
    executable: bool


def encode_manifest(entries: Iterable[TreeEntry], meta: Mapping[str, str]) -> bytes:
    """Return the canonical manifest bytes for `entries` and `meta` (entry order is irrelevant).

    Raises ValueError for a duplicate or unsafe path, a malformed digest or non-string meta.
    """
    ordered = sorted(entries, key=lambda entry: entry.path)
    _check_entries(ordered)
    _check_meta(meta)
    document = {
        "schema_version": SCHEMA_VERSION,
        "meta": dict(meta),
        "entries": [[e.path, e.digest, EXECUTABLE if e.executable else PLAIN] for e in ordered],
    }
    return canonical.dumps(document, ensure_ascii=False)


def decode_manifest(data: bytes, source: Path) -> tuple[tuple[TreeEntry, ...], dict[str, str]]:
    """Parse manifest bytes into (entries sorted by path, meta).

    Raises UzeError if a newer uze wrote it, ValueError if it is not a valid manifest.
    """
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a JSON manifest: {exc}") from None
    if not isinstance(document, dict):
        raise ValueError("manifest is not a JSON object")
    version = document.get("schema_version")
    if type(version) is not int or version < 1:
        raise ValueError(f"bad schema_version {version!r}")
    if version > SCHEMA_VERSION:
        raise UzeError(
            f"store tree {source} was written by a newer uze (schema {version}); upgrade uze",
            hint="upgrade uze, then run the command again",
        )
    if set(document) != _KEYS:
        raise ValueError(f"manifest keys are {sorted(document)}, expected {sorted(_KEYS)}")
    meta = document["meta"]
    _check_meta(meta)
    entries = tuple(_decode_entry(item) for item in _as_list(document["entries"]))
    if [e.path for e in entries] != sorted(e.path for e in entries):
        raise ValueError("entries are not sorted by path")
    _check_entries(entries)
    return entries, dict(meta)


def _as_list(value: object) -> list[object]:
    if not isinstance(value, list):
        raise ValueError("entries is not a JSON list")
    return value


def _decode_entry(item: object) -> TreeEntry:
    if not isinstance(item, list) or len(item) != 3 or item[2] not in (EXECUTABLE, PLAIN):
        raise ValueError(f"bad entry {item!r}")
    path, digest, mode = item
    if not isinstance(path, str) or not isinstance(digest, str):
        raise ValueError(f"bad entry {item!r}")
    return TreeEntry(path=path, digest=digest, executable=mode == EXECUTABLE)


def _check_entries(entries: Sequence[TreeEntry]) -> None:
    seen: set[str] = set()
    for entry in entries:
        _check_path(entry.path)
        if entry.path in seen:
            raise ValueError(f"duplicate path in tree: {entry.path!r}")
        seen.add(entry.path)
        if not is_digest(entry.digest):
            raise ValueError(f"not a blake3 digest: {entry.digest!r} ({entry.path})")
        if type(entry.executable) is not bool:
            raise ValueError(f"executable must be a bool ({entry.path})")


def _check_path(path: object) -> None:
    # The store only guards what would make a manifest ambiguous or escape a target folder;
    # the package layer applies the full RelPath rules.
    if not isinstance(path, str) or not path:
        raise ValueError(f"tree path must be a non-empty string: {path!r}")
    if path.startswith("/") or "\\" in path or "\x00" in path:
        raise ValueError(f"tree path must be relative POSIX: {path!r}")
    if any(part in ("", ".", "..") for part in path.split("/")):
        raise ValueError(f"tree path has an empty, '.' or '..' segment: {path!r}")
    _check_utf8(path)


def _check_meta(meta: object) -> None:
    if not isinstance(meta, Mapping):
        raise ValueError("tree meta is not a mapping")
    for key, value in meta.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise ValueError(f"tree meta must map strings to strings: {key!r}: {value!r}")
        _check_utf8(key)
        _check_utf8(value)


def _check_utf8(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"not encodable as UTF-8: {text!r}") from None
