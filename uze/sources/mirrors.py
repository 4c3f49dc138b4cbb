"""The cached bare mirror of each repository and the checkouts read from it (ADR 0023).

Each repository has one mirror under `$UZE_HOME/git/<key>`, created whole (in a temporary
folder renamed into place) and fetched into under a lock. A commit is fetched once (shallow, by
name or by id) and kept under `refs/uze/c/<commit>`; once there, nothing is asked of the network
again. A package is read by checking its tree out into a temporary folder with a private index,
with every attribute-driven conversion switched off in the mirror's `info/attributes`, so the
bytes are exactly the blobs of the commit.

One command may read many packages of one repository (a marketplace, a monorepo): the
repositories it has open are kept by mirror path, so it takes each mirror's lock once and asks
the remote for a commit once.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import blake3

from uze import fs
from uze.errors import UzeError
from uze.paths import Paths
from uze.sources.git import GitFailed, has_commit, remote_refs, resolve_ref, run_git
from uze.sources.spec import Source

# Every attribute that makes a checkout differ from the blob: off (info/attributes wins).
_ATTRIBUTES: Final = b"* -text -eol -ident -filter -working-tree-encoding\n"


def mirror_path(paths: Paths, source: Source) -> Path:
    """The cached bare mirror of `source`'s repository (keyed by its credential-free URL)."""
    key = blake3.blake3(source.location.encode()).hexdigest()[:24]
    return paths.uze_home / "git" / key


@contextlib.contextmanager
def mirror(paths: Paths, source: Source) -> Iterator[Path]:
    """Hold the mirror's lock; create the mirror first if there is none (whole, or not at all)."""
    path = mirror_path(paths, source)
    with fs.file_lock(_lock_file(paths, path), paths.lock_timeout):
        if not (path / "HEAD").is_file():
            fs.make_dir(path.parent, parents=True)
            with tempfile.TemporaryDirectory(dir=path.parent, prefix=".new-") as scratch:
                fresh = Path(scratch) / "repo.git"
                run_git(paths, ["init", "--bare", "--quiet", str(fresh)])
                fs.atomic_write(fresh / "info" / "attributes", _ATTRIBUTES)
                fs.rename(fresh, path)
        yield path


@contextlib.contextmanager
def _new_mirror(paths: Paths, source: Source) -> Iterator[Path]:
    """A new mirror, built in a scratch folder beside its place and put there (under the
    mirror's lock, unless another command made one meanwhile) only when the caller's block
    ends without an error: an install refused after the fetch (consent, a conflict, a digest)
    leaves no new mirror, lock or folder behind under $UZE_HOME."""
    path = mirror_path(paths, source)
    missing = [p for p in (path.parent, *path.parent.parents) if not p.exists()]
    made = missing[-1] if missing else None  # the topmost folder this creates
    fs.make_dir(path.parent, parents=True)
    sweep_scratch(path.parent)
    scratch = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".new-{os.getpid()}-"))
    try:
        fresh = scratch / "repo.git"
        run_git(paths, ["init", "--bare", "--quiet", str(fresh)])
        fs.atomic_write(fresh / "info" / "attributes", _ATTRIBUTES)
        yield fresh
        with fs.file_lock(_lock_file(paths, path), paths.lock_timeout):
            if not (path / "HEAD").is_file():
                fs.rename(fresh, path)
    finally:
        with contextlib.suppress(OSError):
            fs.remove_tree(scratch)
        if made is not None:
            for folder in (path.parent, *path.parent.parents):
                with contextlib.suppress(OSError):
                    fs.remove_dir_if_empty(folder)  # another command's files stay
                if folder == made:
                    break


def sweep_scratch(folder: Path) -> None:
    """Remove the scratch folders of new mirrors in `folder` ($UZE_HOME/git) whose command was
    killed (its pid is gone): a kill between the fetch and the end of the install leaves one
    behind. Safe without a lock: a live command's scratch is never touched."""
    for scratch in folder.glob(".new-*"):
        pid = scratch.name.split("-")[1]
        if not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            with contextlib.suppress(OSError):
                fs.remove_tree(scratch)
        except OSError:
            pass  # alive, another user's: not ours to remove


def _lock_file(paths: Paths, path: Path) -> Path:
    return paths.uze_home / "locks" / f"git-{path.name}.lock"


def fetch(paths: Paths, path: Path, source: Source, name: str, commit: str) -> None:
    """Fetch `commit` (advertised as `name`, or asked for by id) into the mirror, shallow; from
    a repository this command already has open for the same remote when one holds it (no
    network), else from the remote."""
    if has_commit(paths, path, commit):
        return
    keep = f"refs/uze/c/{commit}"
    local = next((r for r in _open_for(paths, source) if r != path
                  and has_commit(paths, r, commit)), None)
    if local is not None:
        run_git(paths, ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--",
                        str(local), f"+{keep}:{keep}"], git_dir=path)
        return
    base = ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--depth=1", "--", source.url]
    try:
        run_git(paths, [*base, f"+{name}:{keep}"], git_dir=path, source=source)
    except GitFailed as failed:
        if failed.cause != "git" or name != commit:
            raise
        # A server that refuses a want by id: fetch its branches and tags, then look again.
        run_git(paths, [*base[:-3], "--", source.url, "+refs/heads/*:refs/uze/heads/*",
                        "+refs/tags/*:refs/uze/tags/*"], git_dir=path, source=source)
    if not has_commit(paths, path, commit):
        raise GitFailed(f"{source.location} has no commit {commit}", "ref",
                        "check the commit id, or pin a branch or tag")
    run_git(paths, ["update-ref", keep, f"{commit}^{{commit}}"], git_dir=path)


def checkout(paths: Paths, path: Path, commit: str, subdirectory: str, dest: Path) -> None:
    """Write the files of `commit` (below `subdirectory`) into the empty folder `dest`."""
    index = dest.parent / f".{dest.name}.index"
    treeish = f"{commit}:{subdirectory}" if subdirectory else commit
    env = {"GIT_INDEX_FILE": str(index)}
    try:
        run_git(paths, ["read-tree", treeish], git_dir=path, extra_env=env)
    except GitFailed:
        raise UzeError(f"commit {commit} has no folder {subdirectory!r}",
                       hint="check --subdirectory (a path inside the repository)") from None
    run_git(paths, [f"--work-tree={dest}", "checkout-index", "--all", "--force"],
            git_dir=path, extra_env=env)
    fs.remove_file(index)


def _wanted(paths: Paths, cached: Path | None, source: Source, commit: str) -> tuple[str, str]:
    """(what to fetch, commit): asks the remote only when neither the cache nor a repository
    this command has open for the same remote can answer."""
    if commit and _holder(paths, source, cached, commit) is not None:
        return commit, commit
    refs = remote_refs(paths, source)
    if not commit:
        return resolve_ref(refs, source.ref, source.location)
    return next((n for n, sha in sorted(refs.items()) if sha == commit), commit), commit


# The repositories this process has open, by mirror path: the mirror it holds (under its lock,
# or new in its scratch folder) first, then temporary ones of dry runs and checks. A command that
# needs the same remote again (two packages of one marketplace or monorepo) uses these instead of
# asking for the mirror's lock a second time (which it holds: that waited for itself) or
# fetching again.
_MIRRORS: dict[Path, Path] = {}
_TEMPORARY: dict[Path, list[Path]] = {}


def _holder(paths: Paths, source: Source, cached: Path | None, commit: str) -> Path | None:
    """A repository this command has open for `source`, else the cached mirror, holding
    `commit`; None when neither does (the remote must be asked)."""
    known = [*_open_for(paths, source), *([cached] if cached is not None else [])]
    return next((repo for repo in known if has_commit(paths, repo, commit)), None)


def _open_for(paths: Paths, source: Source) -> list[Path]:
    key = mirror_path(paths, source)
    held = _MIRRORS.get(key)
    return [*([held] if held is not None else []), *_TEMPORARY.get(key, ())]


@contextlib.contextmanager
def _holding(key: Path, repo: Path, *, temporary: bool) -> Iterator[Path]:
    if temporary:
        _TEMPORARY.setdefault(key, []).append(repo)
    else:
        _MIRRORS[key] = repo
    try:
        yield repo
    finally:
        if temporary:
            _TEMPORARY[key].remove(repo)
            if not _TEMPORARY[key]:
                del _TEMPORARY[key]
        else:
            del _MIRRORS[key]


@contextlib.contextmanager
def _cache_repo(paths: Paths, source: Source, present: Path | None) -> Iterator[Path]:
    """The mirror for the block: the one this process already holds, else the cached one under
    its lock, else a new one (put in place when the outermost block ends without an error)."""
    key = mirror_path(paths, source)
    if key in _MIRRORS:
        yield _MIRRORS[key]
        return
    with (mirror(paths, source) if present is not None else _new_mirror(paths, source)) as path, \
            _holding(key, path, temporary=False):
        yield path


@contextlib.contextmanager
def fetched(paths: Paths, source: Source, commit: str = "", *, cache: bool = True
            ) -> Iterator[tuple[Path, str]]:
    """The package folder of `source` at `commit` (default: what its ref points at now), in a
    temporary folder removed afterwards, and the resolved commit. The remote is asked first,
    so a source that cannot be reached leaves nothing behind. With `cache` False (a dry run, a
    check before install) nothing is written under $UZE_HOME: a commit the mirror lacks is
    fetched into a temporary repository, which serves the same command's later fetches of that
    remote while the block is open. Nested blocks for one remote share its mirror and fetch a
    commit once."""
    cached = mirror_path(paths, source)
    present = cached if (cached / "HEAD").is_file() else None
    name, commit = _wanted(paths, present, source, commit)
    if cache:
        with _cache_repo(paths, source, present) as path, \
                _checked_out(paths, path, source, name, commit) as found:
            yield found
        return
    holder = _holder(paths, source, present, commit)
    if holder is not None:
        with _checked_out(paths, holder, source, name, commit) as found:
            yield found
        return
    with tempfile.TemporaryDirectory(prefix="uze-git-") as scratch:
        path = Path(scratch) / "repo.git"
        run_git(paths, ["init", "--bare", "--quiet", str(path)])
        fs.atomic_write(path / "info" / "attributes", _ATTRIBUTES)
        with _holding(cached, path, temporary=True), \
                _checked_out(paths, path, source, name, commit) as found:
            yield found


def is_cached(paths: Paths, source: Source, commit: str) -> bool:
    """Whether the mirror of `source` holds `commit` (a fetch of it needs no network)."""
    cached = mirror_path(paths, source)
    return (cached / "HEAD").is_file() and has_commit(paths, cached, commit)


def _folder_name(source: Source) -> str:
    """The checkout's folder name: the subdirectory's last part, else the repository's name
    (`skills` for .../anthropics/skills.git), what a package without a manifest is named
    after; `package` when that is no usable name."""
    last = source.subdirectory.rsplit("/", 1)[-1] or \
        source.location.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1].removesuffix(".git")
    return last if last not in ("", ".", "..") and "/" not in last else "package"


@contextlib.contextmanager
def _checked_out(paths: Paths, path: Path, source: Source, name: str, commit: str
                 ) -> Iterator[tuple[Path, str]]:
    fetch(paths, path, source, name, commit)
    commit = run_git(paths, ["rev-parse", f"{commit}^{{commit}}"], git_dir=path).strip()
    with tempfile.TemporaryDirectory(prefix="uze-src-") as scratch:
        dest = Path(scratch) / _folder_name(source)
        fs.make_dir(dest)
        checkout(paths, path, commit, source.subdirectory, dest)
        yield dest, commit
