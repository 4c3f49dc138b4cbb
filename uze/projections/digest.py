"""Digests of what uze wrote: text normalised CRLF -> LF, binary as is."""

from __future__ import annotations

import blake3


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
