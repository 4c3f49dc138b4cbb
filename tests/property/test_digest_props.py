"""content_digest reads CRLF as LF in UTF-8 text and hashes anything else as it is."""

from __future__ import annotations

from blake3 import blake3
from hypothesis import given
from hypothesis import strategies as st

from uze.projections.digest import content_digest

# Bytes rich in the characters the rule looks at: CR, LF, NUL and a byte that is never UTF-8.
pieces = st.sampled_from([b"\r", b"\n", b"\r\n", b"\0", b"\xff", b"a", "é".encode(), b" "])
data = st.one_of(st.binary(max_size=64), st.lists(pieces, max_size=40).map(b"".join))


def _expected(raw: bytes) -> str:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return blake3(raw).hexdigest()
    text = raw if b"\0" in raw else raw.replace(b"\r\n", b"\n")
    return blake3(text).hexdigest()


@given(data)
def test_content_digest_is_blake3_of_the_text_with_crlf_read_as_lf(raw: bytes) -> None:
    assert content_digest(raw) == _expected(raw)


@given(st.lists(pieces, max_size=40).map(b"".join))
def test_a_crlf_checkout_of_a_file_digests_like_the_file(raw: bytes) -> None:
    lf = raw.replace(b"\r", b"")
    if b"\0" not in lf and b"\xff" not in lf:
        assert content_digest(lf.replace(b"\n", b"\r\n")) == content_digest(lf)
