"""What the config editors share: key paths, the errors of an edit, and the add record a
receipt keeps (`AddInfo`). `config_entry` re-exports each of these names."""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Mapping
from typing import Any, Final, Literal

import msgspec

KeyPath = tuple[str, ...]
FORMATS: Final[tuple[str, ...]] = ("json", "jsonc", "toml")
AddMode = Literal["member", "document", "tables", "item"]
JSON_MODES: Final[tuple[AddMode, ...]] = ("member", "document")
TOML_MODES: Final[tuple[AddMode, ...]] = ("tables", "item")
_BARE_KEY: Final = re.compile(r"[A-Za-z0-9_-]+")


class Missing(enum.Enum):
    """The type of `MISSING`."""

    MISSING = "missing"


MISSING: Final = Missing.MISSING
"""What `read_entry` returns when nothing is at the key path."""


def format_key_path(key_path: KeyPath) -> str:
    """`a.b."/some/path"`: keys joined by dots, quoted when they are not bare words."""
    return ".".join(k if _BARE_KEY.fullmatch(k) else json.dumps(k) for k in key_path)


class ConfigUnreadable(ValueError):
    """The document does not parse; the message starts with `line:col`. Nothing was edited."""

    def __init__(self, line: int, col: int, problem: str) -> None:
        super().__init__(f"{line}:{col}: {problem}")
        self.line, self.col, self.problem = line, col, problem


class EntryExists(ValueError):
    """Something is already at the key path (the caller decides whether that is a conflict)."""

    def __init__(self, key_path: KeyPath, message: str | None = None) -> None:
        super().__init__(message or f"an entry already exists at {format_key_path(key_path)}")
        self.key_path = key_path


class KeyPathBlocked(EntryExists):
    """A key on the way to the entry holds a value that is not an object or table."""

    def __init__(self, key_path: KeyPath, blocked_at: KeyPath, found: object) -> None:
        where = format_key_path(blocked_at) if blocked_at else "the top level"
        kind = type(found).__name__
        super().__init__(key_path, f"cannot reach {format_key_path(key_path)}: {where} is {kind}")
        self.blocked_at = blocked_at


class EntryMissing(LookupError):
    """`replace_entry` found nothing at the key path."""

    def __init__(self, key_path: KeyPath) -> None:
        super().__init__(f"no entry at {format_key_path(key_path)}")
        self.key_path = key_path


class UnsafeEdit(ValueError):
    """The entry could not be added so that removing it gives back the same bytes."""

    def __init__(self, key_path: KeyPath) -> None:
        super().__init__(
            f"cannot add {format_key_path(key_path)} without risking bytes uze does not own"
        )
        self.key_path = key_path


class AddInfo(msgspec.Struct, frozen=True):
    """What `add_entry` added besides the entry, for `remove_entry`; stored in the receipt.

    - `mode`: "member" (JSON: a member appended to an existing object), "document" (JSON: the
      file held no value, so the whole top-level object was written), "tables" (TOML: table
      headers appended at the end), "item" (TOML: one `key = value` inside the document, in
      an inline table or where tomlkit put it).
    - `first_new_key`: index in the key path of the first key that did not exist; the objects
      or tables below it were created by uze and go again once they hold nothing else.
    - `lead`: whitespace added before the entry ("document", "tables", "item").
    - `tail`: whitespace added after it: so that a closing brace that shared its line with
      the opening one gets a line of its own ("member"), the final newline ("document"), the
      line break or blank line tomlkit added ("item").
    """

    mode: AddMode
    first_new_key: int
    lead: str = ""
    tail: str = ""

    def __post_init__(self) -> None:
        if self.mode not in JSON_MODES + TOML_MODES:
            raise ValueError(f"unknown config entry mode {self.mode!r}")
        if type(self.first_new_key) is not int or self.first_new_key < 0:
            raise ValueError("first_new_key must be a non-negative integer")
        for name in ("lead", "tail"):
            text = getattr(self, name)
            if not isinstance(text, str) or text.strip(" \t\r\n"):
                raise ValueError(f"{name} must be whitespace, not {text!r}")

    def to_json(self) -> dict[str, object]:
        """The fields as a JSON-ready dict."""
        return {
            "mode": self.mode,
            "first_new_key": self.first_new_key,
            "lead": self.lead,
            "tail": self.tail,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AddInfo:
        """Read `to_json()` output back. Raises ValueError on any other shape."""
        if not isinstance(data, Mapping) or set(data) != {"mode", "first_new_key", "lead", "tail"}:
            raise ValueError(f"not a config entry add record: {data!r}")
        return cls(data["mode"], data["first_new_key"], data["lead"], data["tail"])
