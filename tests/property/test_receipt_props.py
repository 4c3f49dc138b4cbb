"""Receipts: dump then load gives back the same receipt; the bytes are canonical."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from uze.state.receipts import (
    ProjectionRecord,
    Receipt,
    RegionArtifact,
    TreeArtifact,
    dump_receipt,
    load_receipt,
)

digest = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)
name = st.from_regex(r"[a-z0-9]+(-[a-z0-9]+)*", fullmatch=True)
text = st.text(max_size=30)
harnesses = st.lists(st.sampled_from(["claude_code", "codex", "opencode"]), max_size=3, unique=True)
projection = st.builds(
    ProjectionRecord, kind=st.sampled_from(["instructions", "skill", "agent", "mcp", "hook"]),
    resource=name, harness=st.sampled_from(["claude_code", "codex"]),
    route=st.sampled_from(["native", "adapted", "degraded", "unsupported"]), reason=text,
    target=text,
)
tree = st.builds(TreeArtifact, target=text, files=st.dictionaries(text, digest, max_size=3),
                 executables=st.lists(text, max_size=2), harnesses=harnesses)
region = st.builds(RegionArtifact, target=text, region=name, digest=digest,
                   lead=st.sampled_from(["", "\n", "\r\n\r\n"]),
                   harnesses=harnesses)
receipts = st.builds(
    Receipt, name=name, version=text, tree=digest, scope=st.sampled_from(["project", "user"]),
    harnesses=harnesses, projections=st.lists(projection, max_size=4),
    artifacts=st.lists(st.one_of(tree, region), max_size=4),
)


@given(receipts)
def test_receipts_round_trip_through_their_canonical_bytes(receipt: Receipt) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.json"
        path.write_bytes(dump_receipt(receipt))
        loaded = load_receipt(path)
    assert loaded == receipt
    assert dump_receipt(loaded) == dump_receipt(receipt)
