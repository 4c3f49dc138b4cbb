"""TOML in the forms uze writes `uze.toml` and `uze.lock`, read without `tomllib` (ADR 0105,
0110): lines of `key = value` whose strings are basic strings in the part of TOML that reads
the same as JSON, so msgspec decodes them. A reader here answers exactly what `tomllib`
answers for the text, or None for anything else (another spacing, a comment, a hand edit),
which `tomllib` then reads, with its messages.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from uze.nesting import parse_bounded

# A basic string with the escapes TOML and JSON both have (no surrogate), no raw control
# character and no DEL. Possessive: a line without its closing quote fails at once, with no
# backtracking (hostile input is input).
STRING: Final = r'"(?:[^"\\\x00-\x1f\x7f]++|\\["\\bfnrt]|\\u(?![dD][89a-fA-F])[0-9a-fA-F]{4})*+"'


def strings(literals: list[str]) -> list[str]:
    """The values of `literals`, each a whole match of STRING, decoded in one call."""
    found: list[str] = msgspec.json.decode("[" + ",".join(literals) + "]")
    return found


class NotToml(ValueError):
    """`tomllib`'s refusal of a text, its message kept (`loads`)."""


def loads(text: str) -> dict[str, Any]:
    """`tomllib.loads(text)` with the bound on nesting (`parse_bounded`: OverLimit), for a text
    no reader here takes; its TOMLDecodeError raised as NotToml, the same message. tomllib
    (about 5 ms to import) loads only then (ADR 0106, 0110)."""
    import tomllib

    try:
        found: dict[str, Any] = parse_bounded(tomllib.loads, text)
    except tomllib.TOMLDecodeError as exc:
        raise NotToml(str(exc)) from None
    return found
