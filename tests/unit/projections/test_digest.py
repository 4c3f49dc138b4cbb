"""Held digests: each bytes object a command holds is hashed once, with the same result as
hashing it again (ADR 0052)."""

from __future__ import annotations

import blake3
import pytest

from uze.projections import digest


def test_held_digest_is_blake3_and_content_digest_of_plain_bytes() -> None:
    data = b"plain text\nno carriage return\n" * 100
    assert digest.held_digest(data) == blake3.blake3(data).hexdigest()
    assert digest.held_content_digest(data) == digest.content_digest(data)


def test_held_content_digest_normalises_crlf_text_like_content_digest() -> None:
    crlf = b"line one\r\nline two\r\n"
    assert digest.held_content_digest(crlf) == digest.content_digest(b"line one\nline two\n")
    assert digest.held_digest(crlf) == blake3.blake3(crlf).hexdigest()  # the store: as is
    assert digest.held_digest(crlf) != digest.held_content_digest(crlf)
    binary = b"\x00\r\n\xff"
    assert digest.held_content_digest(binary) == blake3.blake3(binary).hexdigest()


def test_each_object_is_hashed_once_and_distinct_objects_never_share_a_digest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []
    real = blake3.blake3

    def counting(data: bytes) -> blake3.blake3:
        calls.append(len(data))
        return real(data)

    monkeypatch.setattr(blake3, "blake3", counting)
    first = bytes(b"a" * 1000)
    for _ in range(3):
        digest.held_content_digest(first)
        digest.held_digest(first)
    assert calls == [1000]
    for n in range(50):  # fresh objects, freed and re-made: an id is never mistaken
        other = bytes([n]) * 999
        assert digest.held_digest(other) == real(other).hexdigest()


def test_the_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(digest, "_HELD_LIMIT", 10)
    for n in range(25):
        digest.held_digest(bytes([n]) * 7)
    assert len(digest._HELD) <= 10
