"""TOML in the forms uze writes `uze.toml` and `uze.lock`, read without `tomllib` (ADR 0105,
0110): lines of `key = value` whose strings are basic strings in the part of TOML that reads
the same as JSON, so msgspec decodes them. A reader here answers exactly what `tomllib`
answers for the text, or None for anything else (another spacing, a comment, a hand edit),
which `tomllib` then reads, with its messages.
"""

from __future__ import annotations

from typing import Final

import msgspec

# A basic string with the escapes TOML and JSON both have (no surrogate), no raw control
# character and no DEL. Possessive: a line without its closing quote fails at once, with no
# backtracking (hostile input is input).
STRING: Final = r'"(?:[^"\\\x00-\x1f\x7f]++|\\["\\bfnrt]|\\u(?![dD][89a-fA-F])[0-9a-fA-F]{4})*+"'


def strings(literals: list[str]) -> list[str]:
    """The values of `literals`, each a whole match of STRING, decoded in one call."""
    found: list[str] = msgspec.json.decode("[" + ",".join(literals) + "]")
    return found
