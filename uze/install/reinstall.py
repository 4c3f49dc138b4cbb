"""Re-installing an unchanged package: answered from its receipt, without reading the package
into models or planning it (ADR 0016).

Planning is pure and validation depends only on the package's files, so the same files with the
same inputs give the same plan. After an install whose receipt records exactly its plan,
`record` keeps a stamp beside the digest cache: the digest of those inputs (uze's own files,
Python, the installed distributions, the scope's folders and the harness variables), the digest
of the receipt, and the plan's artifact keys in plan order. `unchanged` answers only while all
of it holds, the package folder holds exactly the files of the receipt's store tree, every blob
of that tree is intact, every artifact is as uze wrote it, and no transaction is open; on any
doubt it returns None and the full install runs. Like `status`, it writes nothing, so it takes
no lock.
"""

from __future__ import annotations

import functools
import json
import os
import stat
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from uze import fs
from uze.artifacts import registry as kinds
from uze.artifacts.kind import Action
from uze.errors import UzeError
from uze.harness_ids import parse_harnesses
from uze.install.results import InstallResult, RecordedPlan
from uze.names import name_problem
from uze.package.layout import CLAUDE_MANIFEST, PORTABLE_MANIFEST
from uze.package.tree import read_file, walk_tree
from uze.paths import LOCATION_ENV, Paths
from uze.projections.statcache import settled, stat_key
from uze.state.consent import accepted
from uze.state.context import ScopeContext, load_created, open_scope, registered_projects
from uze.store import Store, digest_bytes
from uze.store.manifest import decode_manifest
from uze.vocabulary import Scope

if TYPE_CHECKING:
    from uze.state.receipts import Receipt

STAMP_SCHEMA: Final = 1


@functools.cache
def _code_digest() -> str | None:
    return code_digest(Path(__file__).resolve().parent.parent)


def code_digest(root: Path, started_ns: int | None = None) -> str | None:
    """The digest of every file of the uze package at `root` (code and data), by relative path
    and stat: device, inode, size, mtime and ctime, the evidence the digest cache trusts
    (ADR 0011); any write moves ctime, which no user-level call sets back. None when a file
    changed within the racy-git margin before `started_ns` (default: now), whose stat could
    still hide an edit. Hashing the files' bytes instead cost 7 ms per install."""
    started = time.time_ns() if started_ns is None else started_ns
    parts: list[str] = []
    for folder, subfolders, names in os.walk(root):  # Path.walk is Python 3.12
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        rel_folder = Path(folder).relative_to(root).as_posix()
        for name in sorted(names):
            info = os.stat(os.path.join(folder, name))  # noqa: PTH116, PTH118 (no Path per file)
            if not settled(info, started):
                return None
            fields = "\0".join(map(str, stat_key(info)))
            parts.append(f"{rel_folder}/{name}\0{fields}\n")
    return digest_bytes("".join(parts).encode("utf-8", "surrogateescape"))


def _distributions() -> list[str]:
    """The installed distributions with their versions (`*.dist-info` names on sys.path)."""
    found: set[str] = set()
    for entry in map(Path, filter(None, sys.path)):
        if entry.is_absolute() and entry.is_dir():
            found.update(p.name for p in entry.iterdir()
                         if p.name.endswith((".dist-info", ".egg-info")))
    return sorted(found)


def inputs_digest(ctx: ScopeContext) -> str | None:
    """The digest of everything but the package that the plan and its validation depend on;
    None while a file of uze itself is too fresh to be told apart by its stat."""
    code = _code_digest()
    if code is None:
        return None
    facts = {
        "uze": code, "python": sys.version, "distributions": _distributions(),
        "scope": ctx.scope, "project": str(ctx.location.project), "home": str(ctx.paths.home),
        "uze_home": str(ctx.paths.uze_home),
        "env": {name: ctx.paths.env.get(name, "") for name in LOCATION_ENV},
    }
    return digest_bytes(json.dumps(facts, sort_keys=True).encode())


def record(ctx: ScopeContext, name: str, receipt_data: bytes, keys: list[str]) -> None:
    """Keep the stamp of an install whose receipt (`receipt_data`) records its plan exactly;
    `keys` are the plan's artifact keys in plan order.

    A cache written after the commit, like the digest cache: if it cannot be written, the next
    re-install takes the full path, so a failure here does not fail the install.
    """
    inputs = inputs_digest(ctx)
    if inputs is None:
        return  # the next re-install takes the full path and stamps it then
    body = {"schema_version": STAMP_SCHEMA, "inputs": inputs,
            "receipt": digest_bytes(receipt_data), "actions": keys}
    data = (json.dumps(body, indent=2, sort_keys=True) + "\n").encode()
    path = ctx.stamp_file(name)
    try:
        if path.is_file() and path.read_bytes() == data:
            return
        fs.atomic_write(path, data, durable=False)
    except (OSError, UzeError):
        pass  # an old stamp stays true of its own receipt bytes and inputs; it just won't match


def unchanged(
    paths: Paths, source: Path, *, scope: Scope, project: Path | None, harness: str | None,
    dry_run: bool, cwd: Path,
) -> InstallResult | None:
    """What `install` would return for `source` if it is installed unchanged, else None.

    Never raises for what the full install would report: any doubt gives None.
    """
    try:
        return _unchanged(paths, source, scope, project, harness, dry_run, cwd)
    except (OSError, ValueError, RecursionError, UzeError):  # deep JSON: the reader says so
        return None


def _unchanged(
    paths: Paths, source: Path, scope: Scope, project: Path | None, harness: str | None,
    dry_run: bool, cwd: Path,
) -> InstallResult | None:
    name = _package_name(source)
    if name is None:
        return None
    ctx = open_scope(paths, scope, project, cwd)
    if ctx.journal_root.exists():  # a command is writing in this scope, or one crashed
        return None
    receipt, keys = _stamped_receipt(ctx, name)
    if receipt is None:
        return None
    if harness is not None and parse_harnesses(harness) != tuple(receipt.harnesses):
        return None
    if not _consented(ctx, receipt):
        return None
    if not _same_files(Store(paths.store), source, receipt):
        return None
    if any(kinds.inspect_record(ctx, r) != "matched" for r in receipt.artifacts):
        return None
    if not _bookkeeping_current(ctx) or ctx.journal_root.exists():
        return None
    return InstallResult(RecordedPlan.of(receipt, ctx.location),
                         tuple(Action(key, "unchanged") for key in keys),
                         dry_run, None if dry_run else receipt, 0)


def _stamped_receipt(ctx: ScopeContext, name: str) -> tuple[Receipt | None, list[str]]:
    """The receipt of `name` and the stamp's keys, if the stamp names that receipt's bytes, each
    of its artifacts once, and the inputs of this command; else (None, [])."""
    receipt_path = ctx.receipt_file(name)
    ctx.roots.check_links(receipt_path, itself=True)
    raw = receipt_path.read_bytes()
    stamp = json.loads(ctx.stamp_file(name).read_bytes())
    if not isinstance(stamp, dict) or stamp.get("schema_version") != STAMP_SCHEMA \
            or stamp.get("receipt") != digest_bytes(raw):
        return None, []
    from uze.state.receipts import check_receipt, parse_receipt

    receipt = check_receipt(parse_receipt(raw, receipt_path), receipt_path, ctx.roots)
    keys = stamp.get("actions")
    if receipt.name != name or receipt.status != "complete" or not isinstance(keys, list) \
            or not all(isinstance(k, str) for k in keys) or len(set(keys)) != len(keys) \
            or set(keys) != {kinds.record_key(r) for r in receipt.artifacts} \
            or not _same_inputs(stamp.get("inputs"), ctx):
        return None, []
    return receipt, keys


def _consented(ctx: ScopeContext, receipt: Receipt) -> bool:
    """This user's consent (under `$UZE_HOME`, ADR 0021) holds the digest the stamped receipt
    was installed with: the shortcut never answers for a package whose consent is gone. The
    stamp binds that receipt's bytes and the receipt its tree, so the digest is the plan's."""

    return accepted(ctx.consent_file(receipt.name), ctx.consent_project, receipt.name,
                    receipt.trust)


def _same_inputs(stamped: object, ctx: ScopeContext) -> bool:
    inputs = inputs_digest(ctx)
    return inputs is not None and stamped == inputs


def _package_name(source: Path) -> str | None:
    """The name in the package's manifest (the root plugin.json first, as the reader's layout
    does), if the reader would accept it."""
    for manifest in (source / PORTABLE_MANIFEST, source / CLAUDE_MANIFEST):
        if manifest.is_file():
            data: Any = json.loads(manifest.read_bytes())
            name = data.get("name") if isinstance(data, dict) else None
            return name if isinstance(name, str) and name_problem(name) is None else None
    return None


def _same_files(store: Store, source: Path, receipt: Receipt) -> bool:
    """The package folder holds exactly the files of the receipt's store tree, whose manifest
    and blobs are intact (what the full install would otherwise write again)."""
    manifest_path = store.tree_path(receipt.tree)
    manifest = _intact(manifest_path, receipt.tree)
    if manifest is None:
        return False
    entries, meta = decode_manifest(manifest, manifest_path)
    if meta != {"name": receipt.name, "version": receipt.version}:
        return False
    found = _package_files(source)
    if found != {e.path: (e.digest, e.executable) for e in entries}:
        return False
    return all(_intact(store.object_path(e.digest), e.digest) is not None for e in entries)


def _intact(path: Path, digest: str) -> bytes | None:
    """The bytes of a store file, if it is a regular file holding `digest`."""
    if not stat.S_ISREG(os.lstat(path).st_mode):
        return None
    data = path.read_bytes()
    return data if digest_bytes(data) == digest else None


def _package_files(root: Path) -> dict[str, tuple[str, bool]] | None:
    """Package path -> (digest, executable) of every file the reader would read under `root`
    (its own walk, `uze.package.tree.walk_tree`); None when the walk or a read finds a problem,
    which the full install reports."""
    tree, found = walk_tree(root)
    files: dict[str, tuple[str, bool]] = {}
    for item in found:
        data = read_file(item, tree.issues)
        if data is None:
            break
        files[item.relpath] = (digest_bytes(data), item.executable)
    return None if tree.issues else files


def _bookkeeping_current(ctx: ScopeContext) -> bool:
    """created.json reads, and a project scope is in the projects registry: the full install
    would otherwise fail on it or write it."""
    load_created(ctx)
    if ctx.scope != "project":
        return True
    return ctx.location.project in registered_projects(ctx.paths)
