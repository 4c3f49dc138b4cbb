"""Digests of what uze wrote: text normalised CRLF -> LF, binary as is."""

from __future__ import annotations

from typing import Final

import blake3

from uze import memo

# Digests of bytes objects a command holds while it works on one package, by id: the object
# is kept here too, so its id cannot be reused while its digest is. Cleared when it grows past
# _HELD_LIMIT (a long-lived process, e.g. a test run, must not keep every package it ever
# read) and by `memo.forget()` between the packages of a converge.
_HELD: dict[int, tuple[bytes, str]] = {}
_HELD_CONTENT: dict[int, tuple[bytes, str]] = {}
_HELD_LIMIT: Final = 16384
memo.per_package(_HELD.clear)  # a converge forgets each package's bytes after it (ADR 0100)
memo.per_package(_HELD_CONTENT.clear)


def content_digest(data: bytes) -> str:
    """blake3 hex of `data`, with CRLF read as LF when `data` is UTF-8 text.

    So a checkout that converts line endings (Windows, autocrlf) does not read as a user edit.
    """
    # `b"\r" in` first: a one-byte search is memchr, about 10x faster than looking for the
    # pair, and most files have no CR at all.
    if b"\r" in data and b"\r\n" in data and b"\0" not in data:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            data = data.replace(b"\r\n", b"\n")
    return blake3.blake3(data).hexdigest()


def held_digest(data: bytes) -> str:
    """blake3 hex of `data` as it is (the store's digest), computed once per bytes object.

    For bytes a command holds anyway (a package's files, the plan's bytes): the store, the
    package's tree digest and the receipt (`held_content_digest`) then hash each file once.
    """
    hit = _HELD.get(id(data))
    if hit is None:
        if len(_HELD) >= _HELD_LIMIT:
            _HELD.clear()
        hit = _HELD[id(data)] = (data, blake3.blake3(data).hexdigest())
    return hit[1]


def held_content_digest(data: bytes) -> str:
    """`content_digest` of bytes a command holds anyway, computed once per bytes object; for
    bytes without a CR it is the store's digest of the same object (`held_digest`). Looked up
    before the bytes are searched for a CR: an install asks three times for each file of each
    skill root (preflight twice, the receipt), 30 MB of searching for the real skills."""
    hit = _HELD_CONTENT.get(id(data))
    if hit is None:
        if len(_HELD_CONTENT) >= _HELD_LIMIT:
            _HELD_CONTENT.clear()
        # Nothing to normalise without a CR: content_digest(data) is blake3(data).
        digest = held_digest(data) if b"\r" not in data else content_digest(data)
        hit = _HELD_CONTENT[id(data)] = (data, digest)
    return hit[1]
