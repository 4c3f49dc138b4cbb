"""The content-addressed store: blobs and tree manifests named by their blake3 digest.

Layout under the root: `objects/<2 hex>/<62 hex>` holds each blob once and
`trees/<2 hex>/<62 hex>` each tree manifest. Files are written with `fs.atomic_write`, made
read-only and never changed. Reads always re-hash. `gc` expects the caller to hold the store
lock; the store itself never locks.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Final

import msgspec
from blake3 import blake3

from uze import durability, fs, progress
from uze.errors import StoreCorrupt
from uze.patterns import compile_later
from uze.store.manifest import TreeEntry, decode_manifest, encode_manifest, is_digest

OBJECTS: Final = "objects"
TREES: Final = "trees"
_READ_ONLY: Final = 0o444
_FANOUT: Final = compile_later(r"[0-9a-f]{2}")
_REST: Final = compile_later(r"[0-9a-f]{62}")


def digest_bytes(data: bytes) -> str:
    """Return the blake3 digest of `data` as 64 lowercase hex characters."""
    return blake3(data).hexdigest()


class VerifyReport(msgspec.Struct, frozen=True):
    """What `Store.verify` found; every path is relative to the store root, POSIX style.

    `corrupt`: objects or trees whose bytes do not hash to their name (or unparsable trees).
    `missing`: blobs a readable tree references that are not in the store.
    `stray`: leftover temp files and anything not named like a store entry.
    """

    objects: int
    trees: int
    corrupt: tuple[str, ...]
    missing: tuple[str, ...]
    stray: tuple[str, ...]

    @property
    def is_clean(self) -> bool:
        """Whether nothing is corrupt, missing or stray."""
        return not (self.corrupt or self.missing or self.stray)


class GcReport(msgspec.Struct, frozen=True):
    """What `Store.gc` removed; `freed_bytes` counts removed objects and trees."""

    removed_objects: int
    removed_trees: int
    freed_bytes: int
    kept_objects: int


class _Scan(msgspec.Struct, frozen=True):
    files: dict[str, Path] = msgspec.field(default_factory=dict)  # digest -> path
    stray: list[Path] = msgspec.field(default_factory=list)


class Store:
    """A content-addressed store of blobs and tree manifests under `root`."""

    def __init__(self, root: Path) -> None:
        """Use `root` as the store folder; nothing is created until the first write."""
        self.root = root
        self.added: list[Path] = []  # entries written by this value, oldest first

    def object_path(self, digest: str) -> Path:
        """Where the blob `digest` lives. Raises ValueError if `digest` is not 64 hex."""
        return self._path(OBJECTS, digest)

    def tree_path(self, digest: str) -> Path:
        """Where the tree manifest `digest` lives. Raises ValueError if `digest` is not 64 hex."""
        return self._path(TREES, digest)

    def has(self, digest: str) -> bool:
        """Whether the blob `digest` is present (a malformed digest is never present)."""
        return is_digest(digest) and self.object_path(digest).is_file()

    def has_tree(self, digest: str) -> bool:
        """Whether the tree manifest `digest` is present."""
        return is_digest(digest) and self.tree_path(digest).is_file()

    def put(self, data: bytes) -> str:
        """Store `data` once and return its digest.

        Writes nothing at all if an intact copy is already present; a corrupt copy is replaced,
        so reinstalling a package repairs the store.
        """
        digest = digest_bytes(data)
        self._write_once(self.object_path(digest), digest, data, durable=True)
        return digest

    def read(self, digest: str) -> bytes:
        """Return the bytes of blob `digest`; raises StoreCorrupt if missing or tampered with."""
        return self._read_verified(self.object_path(digest), digest)

    def put_tree(self, entries: Iterable[TreeEntry], meta: Mapping[str, str]) -> str:
        """Store the canonical manifest of `entries` and `meta`; return the tree digest.

        Idempotent. Raises StoreCorrupt if a referenced blob is absent, ValueError if an entry
        is malformed (duplicate or unsafe path, bad digest) or meta is not strings.
        """
        listed = tuple(entries)
        data = encode_manifest(listed, meta)
        for entry in listed:
            if not self.has(entry.digest):
                raise StoreCorrupt(entry.digest, self.object_path(entry.digest))
        digest = digest_bytes(data)
        self._write_once(self.tree_path(digest), digest, data, durable=True)
        return digest

    def ingest(self, files: Iterable[tuple[str, bytes, bool]], meta: Mapping[str, str]) -> str:
        """Store every `(path, bytes, executable)` blob, then their tree; return its digest.

        The tree is validated before any blob is written, so bad input leaves nothing behind.
        """
        listed = list(files)
        entries = [TreeEntry(path, digest_bytes(data), exe) for path, data, exe in listed]
        return self.ingest_entries(entries, {path: data for path, data, _ in listed}, meta)

    def ingest_entries(self, entries: Sequence[TreeEntry], data: Mapping[str, bytes],
                       meta: Mapping[str, str], *, sync: bool = True) -> str:
        """`ingest` for entries whose digests the caller computed already: `data[entry.path]`
        are the bytes of each (install hashed them for the plan's tree digest).

        `sync=False` leaves what it wrote unflushed: the caller passes `added` to the barrier
        of the transaction that will refer to it (ADR 0014).
        """
        manifest = encode_manifest(entries, meta)
        mark = len(self.added)
        done: set[str] = set()  # blobs this ingest wrote or found intact: not looked at again
        try:
            for entry in entries:
                if entry.digest not in done:
                    self._write_once(self.object_path(entry.digest), entry.digest,
                                     data[entry.path])
                    done.add(entry.digest)
                progress.advance()
            digest = digest_bytes(manifest)  # every blob was just checked or written
            self._write_once(self.tree_path(digest), digest, manifest)
            if sync:
                durability.barrier(self.added[mark:])
            return digest
        except BaseException:  # a full disk part way: take back what this ingest added
            self.discard_added(since=mark)
            raise

    def discard_added(self, since: int = 0) -> None:
        """Remove the objects and trees this Store value wrote, from the `since`-th on (the
        install they were for failed).

        None of them was there before, so no receipt can reference them. The caller holds the
        store lock.
        """
        for path in reversed(self.added[since:]):
            fs.remove_read_only(path)
            fs.remove_dir_if_empty(path.parent)
        del self.added[since:]
        if not self.added:  # the skeleton a first ingest made goes too (nothing written)
            for kind in (OBJECTS, TREES):
                fs.remove_dir_if_empty(self.root / kind)
            fs.remove_dir_if_empty(self.root)

    def read_tree(self, digest: str) -> tuple[TreeEntry, ...]:
        """Return the entries of tree `digest`, sorted by path.

        Raises StoreCorrupt if the manifest is missing, tampered with or malformed, and
        UzeError if a newer uze wrote it.
        """
        return self._load_tree(digest)[0]

    def read_tree_meta(self, digest: str) -> dict[str, str]:
        """Return the meta of tree `digest` (e.g. package name and version); raises as read_tree."""
        return self._load_tree(digest)[1]

    def verify(self) -> VerifyReport:
        """Re-hash every object and tree; report corrupt, missing and stray entries.

        Raises UzeError if a tree was written by a newer uze (this one cannot check it).
        """
        objects, trees = self._scan(OBJECTS), self._scan(TREES)
        corrupt = [p for d, p in objects.files.items() if not _is_intact(p, d)]
        missing: set[Path] = set()
        for digest in trees.files:
            try:
                entries = self.read_tree(digest)
            except StoreCorrupt:
                corrupt.append(trees.files[digest])
                continue
            missing.update(self.object_path(e.digest) for e in entries)
        missing.difference_update(objects.files.values())
        return VerifyReport(
            objects=len(objects.files),
            trees=len(trees.files),
            corrupt=self._relative(corrupt),
            missing=self._relative(missing),
            stray=self._relative(objects.stray + trees.stray),
        )

    def gc(self, live_trees: Iterable[str]) -> GcReport:
        """Remove every tree not in `live_trees` and every blob no live tree references.

        Every live tree is read (and verified) before anything is removed, so an unreadable
        live tree raises StoreCorrupt with the store untouched. Trees go before blobs, so an
        interrupted gc never leaves a tree pointing at a removed blob. Also removes leftover
        temp files and empty fan-out folders. The caller must hold the store lock.
        """
        live = set(live_trees)
        referenced = {entry.digest for tree in sorted(live) for entry in self.read_tree(tree)}
        trees, objects = self._scan(TREES), self._scan(OBJECTS)
        removed_trees, freed_trees = _remove_all(
            path for digest, path in trees.files.items() if digest not in live
        )
        removed_objects, freed_objects = _remove_all(
            path for digest, path in objects.files.items() if digest not in referenced
        )
        self._sweep()
        return GcReport(
            removed_objects=removed_objects,
            removed_trees=removed_trees,
            freed_bytes=freed_trees + freed_objects,
            kept_objects=len(objects.files) - removed_objects,
        )

    def size_bytes(self) -> int:
        """Total size in bytes of every object and tree manifest."""
        scans = (self._scan(OBJECTS), self._scan(TREES))
        return sum(path.stat().st_size for scan in scans for path in scan.files.values())

    def _path(self, kind: str, digest: str) -> Path:
        if not is_digest(digest):
            raise ValueError(f"not a blake3 digest: {digest!r}")
        return self.root.joinpath(kind, digest[:2], digest[2:])

    def _write_once(self, path: Path, digest: str, data: bytes, *, durable: bool = False) -> None:
        """Write the entry unless an intact copy is there (what it writes goes to `added`).

        Not `durable`: the caller flushes `added` with one barrier (ADR 0014)."""
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and stat.S_ISLNK(mode):
            fs.remove_file(path)
        elif mode is not None:
            if _is_intact(path, digest):
                return
            fs.remove_read_only(path)
        try:
            if durable:
                fs.atomic_write(path, data, mode=_READ_ONLY)
            else:  # nothing is there now (removed above), and the caller holds the store lock
                fs.write_absent(path, data, _READ_ONLY)
        except BaseException:
            # Roll back the fan-out folder atomic_write may have created, then re-raise.
            fs.remove_dir_if_empty(path.parent)
            raise
        self.added.append(path)

    def _read_verified(self, path: Path, digest: str) -> bytes:
        try:
            data = path.read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise StoreCorrupt(digest, path) from None
        if digest_bytes(data) != digest:
            raise StoreCorrupt(digest, path)
        return data

    def _load_tree(self, digest: str) -> tuple[tuple[TreeEntry, ...], dict[str, str]]:
        path = self.tree_path(digest)
        data = self._read_verified(path, digest)
        try:
            return decode_manifest(data, path)
        except ValueError:
            raise StoreCorrupt(digest, path) from None

    def _scan(self, kind: str) -> _Scan:
        scan = _Scan()
        base = self.root / kind
        if not base.is_dir():
            return scan
        for fanout in sorted(base.iterdir()):
            if _is_fanout(fanout):
                _scan_fanout(fanout, scan)
            else:
                scan.stray.append(fanout)
        return scan

    def _sweep(self) -> None:
        for kind in (OBJECTS, TREES):
            base = self.root / kind
            if not base.is_dir():
                continue
            fs.remove_temp_files(base)
            for fanout in base.iterdir():
                if _is_fanout(fanout):
                    fs.remove_temp_files(fanout)
                    fs.remove_dir_if_empty(fanout)

    def _relative(self, paths: Iterable[Path]) -> tuple[str, ...]:
        return tuple(sorted({path.relative_to(self.root).as_posix() for path in paths}))


def _is_fanout(path: Path) -> bool:
    return not path.is_symlink() and path.is_dir() and _FANOUT.fullmatch(path.name) is not None


def _scan_fanout(fanout: Path, scan: _Scan) -> None:
    for item in sorted(fanout.iterdir()):
        if not item.is_symlink() and item.is_file() and _REST.fullmatch(item.name):
            scan.files[fanout.name + item.name] = item
        else:
            scan.stray.append(item)


def _is_intact(path: Path, digest: str) -> bool:
    try:
        return digest_bytes(path.read_bytes()) == digest
    except OSError:
        return False


def _remove_all(paths: Iterable[Path]) -> tuple[int, int]:
    """Remove read-only store files; return (how many, how many bytes)."""
    count = size = 0
    for path in paths:
        size += path.stat().st_size
        fs.remove_read_only(path)
        count += 1
    return count, size
