"""Content-addressed store: blobs and tree manifests keyed by blake3 (put / read / verify / gc)."""

from __future__ import annotations

from uze.store.manifest import TreeEntry
from uze.store.store import GcReport, Store, VerifyReport, digest_bytes

__all__ = ["GcReport", "Store", "TreeEntry", "VerifyReport", "digest_bytes"]
