"""uze.canonical.dumps gives exactly the bytes of json.dumps(indent=2, sort_keys=True) + newline,
whichever encoder ran (receipts and tree manifests are compared and hashed byte for byte)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from uze import canonical


def _reference(value: Any, ensure_ascii: bool) -> bytes:
    return (json.dumps(value, ensure_ascii=ensure_ascii, indent=2, sort_keys=True) + "\n").encode()


CASES: list[Any] = [
    {},
    [],
    "text",
    7,
    {"b": [1, True, None, {"z": "a", "a": []}], "a": {"files": {"x/y.md": "0" * 64}}},
    {"del": "a\x7fb"},  # json.dumps escapes DEL when ensure_ascii
    {"ctl": "tab\tnl\ncr\r\x00\x1f", "quote": '"\\/'},
    {"float": 1.5, "big": 1e100, "neg": -0.0},
    {"accents": "café", "emoji": "\U0001f600", "sep": "\u2028"},
    {"tuple": (1, 2)},
    {1: "int key"},
    {"big int": 10**30},
]


@pytest.mark.parametrize("value", CASES)
@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_dumps_is_json_dumps_byte_for_byte(value: Any, ensure_ascii: bool) -> None:
    assert canonical.dumps(value, ensure_ascii=ensure_ascii) == _reference(value, ensure_ascii)


def test_dumps_matches_json_dumps_on_random_documents() -> None:
    rng = random.Random(5)
    alphabet = [chr(c) for c in range(0x180)] + ["\u2028", "\U0001f600", "/"]
    leaves: list[Any] = [0, -3, 2**70, True, False, None, 0.25, 1e-7]
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
        doc = {text: [text, {"v": rng.choice(leaves), "k" + text: {}}], "n": [[text, 1]]}
        for ensure_ascii in (True, False):
            assert canonical.dumps(doc, ensure_ascii=ensure_ascii) == _reference(doc, ensure_ascii)


def test_a_command_document_is_dumps_for_plain_documents_and_ascii_always() -> None:
    """`--json` output (issue 32 item 2): msgspec's encoder without a walk of the document,
    the bytes of `dumps` wherever the document is plain, and never anything but ASCII."""
    rng = random.Random(7)
    alphabet = [chr(c) for c in range(0x180)] + ["\u2028", "\U0001f600", "/"]
    for value in [*CASES, *({"k" + "".join(rng.choice(alphabet) for _ in range(6)):
                             [rng.randint(-9, 2**70), True, None, ("a", 1)]} for _ in range(500))]:
        found = canonical.document(value)
        assert found.isascii() and json.loads(found) == json.loads(json.dumps(value))
        if not any(isinstance(v, float) for v in (value.values() if isinstance(value, dict)
                                                  else [value])):
            assert found.encode() == canonical.dumps(value)
    assert canonical.document({"big": 1e100, "small": 0.5}) == \
        '{\n  "big": 1e100,\n  "small": 0.5\n}\n'
