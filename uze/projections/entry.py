"""Config-entry artifacts (an MCP server): one owned entry in a harness's own config file.

Inspection compares values, not text: a harness that reformats its file is not an edit, a
changed value is. A file that does not parse is never rewritten.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Final

from uze.errors import ConfigBroken, ConfigShape, ValueInTheWay
from uze.projections import config_entry as ce
from uze.projections import (
    config_kept,  # noqa: F401 (keeps what a commit wrote: ADR 0112)
    snapshot,
)
from uze.projections.digest import content_digest
from uze.transaction import Transaction
from uze.vocabulary import ConfigFormat, LiveState


def _moment(value: object) -> object:
    """A TOML date, time or date-time (which JSON has no form for) in a form of its own: a
    config element holding one is hashed, not refused with a TypeError."""
    if isinstance(value, datetime.date | datetime.time):  # a datetime is a date
        return {"\0toml": value.isoformat()}
    raise TypeError(f"{type(value).__name__} is not a config value")


def value_digest(value: object) -> str:
    """Digest of a value's canonical JSON (key order and formatting do not matter)."""
    return content_digest(json.dumps(value, sort_keys=True, separators=(",", ":"),
                                     default=_moment).encode())


SHELL_KEYS: Final = frozenset({"mcpServers", "mcp", "mcp_servers", "hooks", "permission"})
"""The top-level keys under which uze adds entries or elements in a harness config (a unit
test plans every harness and checks this list): only empty containers under them can be
shells an add left behind; an empty value under any other key is the user's."""


def is_hollow(data: bytes, fmt: ConfigFormat) -> bool:
    """Only empty objects and lists left, under uze's own keys, and no comment: what another
    package's add made in a file uze made.

    Entries of one package are removed in reverse order, so their containers go with them;
    across packages the last one out finds the shells and, in a file uze created, removes it.
    A comment or a key of the user's own makes the file the user's: it is kept.
    """
    try:
        document = ce.read_document(data, fmt)
    except ce.ConfigUnreadable:
        return False
    if not isinstance(document, dict) or not document.keys() <= SHELL_KEYS \
            or not _hollow(document):
        return False
    return not ce.has_comment(data.decode("utf-8"), fmt)


def _hollow(value: object) -> bool:
    """Only empty objects and lists, at any depth."""
    if isinstance(value, list):
        return not value
    return isinstance(value, dict) and all(_hollow(v) for v in value.values())


def _keeps_content(document: object, key_path: tuple[str, ...]) -> bool:
    """Whether the parsed `document` holds, beside one of the keys on the way to `key_path`,
    a value that is not hollow: removing the entry keeps it (`remove_entry` takes out the
    entry and the objects above it that hold nothing else), so the file left is not hollow.
    Most often the first other package's entry beside it shows it."""
    node = document
    for key in key_path:
        if not isinstance(node, dict):
            return False
        if any(other != key and not _hollow(value) for other, value in node.items()):
            return True
        if key not in node:
            return False
        node = node[key]
    return False


def _read(path: Path) -> bytes:
    return snapshot.read(path)


def read_value(path: Path, fmt: ConfigFormat, key_path: tuple[str, ...], target: str) -> object:
    """The value at `key_path` (ce.MISSING if absent). Raises ConfigBroken if the file does
    not parse."""
    try:
        return ce.read_entry(_read(path), fmt, key_path)
    except ce.ConfigUnreadable as exc:
        raise ConfigBroken(target, f"it does not parse ({exc}); "
                                   "uze never rewrites a file it cannot read") from None


_KINDS = {dict: "an object", list: "an array", str: "a string", bool: "true or false",
          int: "a number", float: "a number", type(None): "null"}


def check_reachable(
    path: Path, fmt: ConfigFormat, key_path: tuple[str, ...], target: str
) -> None:
    """Raise ConfigShape if a value on the way to `key_path` is not an object (or table): the
    document itself, or the value of a key before the last. Raises ConfigBroken if the file
    does not parse."""
    if not snapshot.exists(path):
        return
    try:
        node = ce.read_document(_read(path), fmt)
    except ce.ConfigUnreadable as exc:
        raise ConfigBroken(target, f"it does not parse ({exc}); "
                                   "uze never rewrites a file it cannot read") from None
    for index, key in enumerate(key_path):
        if not isinstance(node, dict):
            where = ce.format_key_path(key_path[:index]) if index else "the top level"
            found = next((name for kind, name in _KINDS.items() if isinstance(node, kind)),
                         "a value")
            raise ConfigShape(target, where, found, ce.format_key_path(key_path))
        if key not in node:
            return
        node = node[key]


def inspect(path: Path, fmt: ConfigFormat, key_path: tuple[str, ...], digest: str) -> LiveState:
    """`matched` | `missing` | `drifted` | `blocked` | `conflict`."""
    if snapshot.shape(path) == "other":  # a link or a folder
        return "conflict"
    try:
        value = ce.read_entry(_read(path), fmt, key_path)
    except ce.ConfigUnreadable:
        return "blocked"
    if value is ce.MISSING:
        return "missing"
    return "matched" if value_digest(value) == digest else "drifted"


def add(tx: Transaction, path: Path, fmt: ConfigFormat, key_path: tuple[str, ...],
        value: object, target: str) -> tuple[ce.AddInfo, bool]:
    """Add the entry; return the AddInfo for the receipt and whether the file was created."""
    created = not snapshot.exists(path)
    try:
        data, info = ce.add_entry(_read(path), fmt, key_path, value)
    except ce.ConfigUnreadable as exc:
        why = f"cannot add {ce.format_key_path(key_path)} safely ({exc})"
        raise ConfigBroken(target, why) from None
    except (ce.UnsafeEdit, ce.KeyPathBlocked) as exc:  # preflight refuses the second first
        why = f"cannot add {ce.format_key_path(key_path)} safely ({exc})"
        raise ValueInTheWay(target, why) from None
    tx.edit(path, data)
    return info, created


def replace(tx: Transaction, path: Path, fmt: ConfigFormat, key_path: tuple[str, ...],
            value: object) -> None:
    """Rewrite the value of uze's own entry in place."""
    tx.edit(path, ce.replace_entry(_read(path), fmt, key_path, value))


def remove(tx: Transaction, path: Path, fmt: ConfigFormat, key_path: tuple[str, ...],
           info: ce.AddInfo, delete_if_empty: bool) -> bool:
    """Remove the entry and what its add created; delete the file if uze made it and it is empty."""
    before = _read(path)
    data = ce.remove_entry(before, fmt, key_path, info)
    # the document before was parsed to remove the entry: what it keeps beside it tells
    # mostly that the new text is not hollow, with no parse of it
    if delete_if_empty and not _keeps_content(ce.read_document(before, fmt), key_path) \
            and (not data or is_hollow(data, fmt)):
        tx.remove(path)
        return True
    tx.edit(path, data)
    return False
