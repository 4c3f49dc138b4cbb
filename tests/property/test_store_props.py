"""Store round trips for arbitrary bytes and arbitrary sets of files."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

from blake3 import blake3
from hypothesis import given
from hypothesis import strategies as st

from uze.store import Store, TreeEntry

segments = st.text(alphabet="abcXYZ019._-é", min_size=1, max_size=6).filter(
    lambda s: s not in (".", "..")
)
paths = st.lists(segments, min_size=1, max_size=3).map("/".join)
files = st.dictionaries(paths, st.tuples(st.binary(max_size=64), st.booleans()), max_size=8)
metas = st.dictionaries(st.text(max_size=8), st.text(max_size=16), max_size=3)


def as_files(tree: dict[str, tuple[bytes, bool]]) -> list[tuple[str, bytes, bool]]:
    return [(path, data, executable) for path, (data, executable) in tree.items()]


@given(st.binary(max_size=4096))
def test_put_then_read_round_trips_and_the_name_is_blake3_of_the_bytes(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp))
        digest = store.put(data)
        assert digest == blake3(data).hexdigest()
        assert store.object_path(digest).name == digest[2:]
        assert store.read(digest) == data
        assert store.put(data) == digest


@given(files, metas, st.randoms(use_true_random=False))
def test_ingest_is_deterministic_and_gc_with_its_tree_live_removes_nothing(
    tree: dict[str, tuple[bytes, bool]], meta: dict[str, str], rng: random.Random
) -> None:
    listed = as_files(tree)
    shuffled = list(listed)
    rng.shuffle(shuffled)
    with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as two:
        first, second = Store(Path(one)), Store(Path(two))
        digest = first.ingest(listed, meta)
        assert second.ingest(shuffled, meta) == digest
        assert first.ingest(shuffled, meta) == digest
        expected = tuple(TreeEntry(p, blake3(d).hexdigest(), x) for p, d, x in sorted(listed))
        assert first.read_tree(digest) == expected
        assert first.read_tree_meta(digest) == meta
        size = first.size_bytes()
        report = first.gc([digest])
        assert (report.removed_objects, report.removed_trees, report.freed_bytes) == (0, 0, 0)
        assert report.kept_objects == len({blake3(d).hexdigest() for _, d, _ in listed})
        assert first.size_bytes() == size
        assert first.verify().is_clean
