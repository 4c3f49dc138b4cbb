"""Git, run as the system `git` (as pip and uv do), hardened (ADR 0023).

Each repository has one cached bare mirror under `$UZE_HOME/git/<key>`, created whole (in a
temporary folder renamed into place) and fetched into under a lock. A commit is fetched once
(shallow, by name or by id) and kept under `refs/uze/c/<commit>`; once there, nothing is asked
of the network again. A package is read by checking its tree out into a temporary folder with a
private index, with every attribute-driven conversion switched off in the mirror's
`info/attributes`, so the bytes are exactly the blobs of the commit.

Hardening: no system config (GIT_CONFIG_NOSYSTEM); the user's global config stays (credential
helpers, `insteadOf`, proxies and CA settings are how private repositories work), with the keys
that could run code or widen what is reached overridden on the command line: no hooks, no
fsmonitor, no submodules, protocols https, ssh, git and file only (plain http only to loopback),
no prompts (GIT_TERMINAL_PROMPT=0, no askpass, ssh in BatchMode). Credentials are never put in
a URL uze writes; git's messages are shown with the URL as the user gave it replaced by the
credential-free one.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

import blake3

from uze import fs
from uze.errors import UzeError
from uze.paths import Paths
from uze.sources.spec import LOOPBACK, Source

TIMEOUT: Final = 600.0
_KEEP_GIT_ENV: Final = frozenset({
    "GIT_SSH", "GIT_SSH_VARIANT", "GIT_SSL_CAINFO", "GIT_SSL_CAPATH", "GIT_PROXY_COMMAND",
    "GIT_CONFIG_GLOBAL", "GIT_EXEC_PATH", "GIT_TRACE", "GIT_CURL_VERBOSE",
})
_HARDEN: Final = (
    "core.hooksPath=/dev/null", "core.fsmonitor=false", "core.askPass=", "core.autocrlf=false",
    "core.symlinks=true", "submodule.recurse=false", "fetch.recurseSubmodules=false",
    "protocol.allow=never", "protocol.https.allow=always", "protocol.ssh.allow=always",
    "protocol.git.allow=always", "protocol.file.allow=always", "gc.auto=0",
    "maintenance.auto=false", "init.defaultBranch=main", "advice.detachedHead=false",
    "transfer.fsckObjects=true",
)
# Every attribute that makes a checkout differ from the blob: off (info/attributes wins).
_ATTRIBUTES: Final = b"* -text -eol -ident -filter -working-tree-encoding\n"
_SHA: Final = re.compile(r"[0-9a-f]{40}")
_AUTH: Final = ("authentication failed", "could not read username", "could not read password",
                "terminal prompts disabled", "permission denied", "returned error: 401",
                "returned error: 403", "host key verification failed", "access denied")
_UNREACHABLE: Final = ("connection refused", "could not resolve host", "unable to connect",
                       "failed to connect", "timed out", "network is unreachable",
                       "no route to host", "unable to look up", "could not resolve hostname",
                       "connection reset", "connection closed")
_MISSING: Final = ("not found", "does not appear to be a git repository", "does not exist",
                   "returned error: 404", "no such file")


class GitFailed(UzeError):
    """git could not do what was asked; `cause` is unreachable, auth, missing, ref or git."""

    def __init__(self, message: str, cause: str, hint: str) -> None:
        super().__init__(message, hint=hint)
        self.cause = cause


def _env(paths: Paths) -> dict[str, str]:
    env = {k: v for k, v in paths.env.items() if not k.startswith("GIT_") or k in _KEEP_GIT_ENV}
    env.pop("SSH_ASKPASS", None)
    ssh = paths.env.get("GIT_SSH_COMMAND") or "ssh"
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0", LC_ALL="C",
               GIT_SSH_COMMAND=f"{ssh} -o BatchMode=yes", GIT_PROTOCOL_FROM_USER="0")
    return env


def _config(url: str | None) -> list[str]:
    settings = list(_HARDEN)
    host = _http_host(url) if url else None
    settings.append(f"protocol.http.allow={'always' if host in LOOPBACK else 'never'}")
    return [arg for item in settings for arg in ("-c", item)]


def _http_host(url: str) -> str | None:
    parts = urlsplit(url)
    return parts.hostname if parts.scheme == "http" else None


def run_git(
    paths: Paths, args: list[str], *, git_dir: Path | None = None, source: Source | None = None,
    extra_env: Mapping[str, str] | None = None,
) -> str:
    """Run one hardened git command; its stdout. Raises GitFailed with the cause classified."""
    command = ["git", *_config(source.url if source else None)]
    if git_dir is not None:
        command.append(f"--git-dir={git_dir}")
    env = {**_env(paths), **(extra_env or {})}
    try:
        done = subprocess.run([*command, *args], env=env, capture_output=True, text=True,
                              timeout=TIMEOUT, check=False, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise UzeError("git is not installed (uze runs the system git for git sources)",
                       hint="install git, or install from a folder") from None
    except subprocess.TimeoutExpired:
        where = source.location if source else "git"
        raise GitFailed(f"cannot reach {where}: git timed out after {TIMEOUT:.0f} s",
                        "unreachable", "check the network and the URL, then run again") from None
    if done.returncode != 0:
        raise _failure(done.stderr, source)
    return done.stdout


def _failure(stderr: str, source: Source | None) -> GitFailed:
    text = stderr
    if source is not None and source.fetch_url:
        text = stderr.replace(source.fetch_url, source.location)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    said = lines[-1] if lines else "no message"
    low = text.lower()
    where = source.location if source else "the repository"
    if any(s in low for s in _AUTH):
        return GitFailed(f"authentication to {where} was refused: {said}", "auth",
                         "check your credentials (git credential helper or SSH agent); uze "
                         "never prompts")
    if any(s in low for s in _UNREACHABLE):
        return GitFailed(f"cannot reach {where}: {said}", "unreachable",
                         "check the network and the URL, then run again")
    if any(s in low for s in _MISSING):
        return GitFailed(f"no git repository at {where}: {said}", "missing",
                         "check the URL (and that you have access to the repository)")
    return GitFailed(f"git failed on {where}: {said}", "git", "check the source, then run again")


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


def remote_refs(paths: Paths, source: Source) -> dict[str, str]:
    """Every ref the remote advertises -> its commit (annotated tags peeled)."""
    found: dict[str, str] = {}
    for line in run_git(paths, ["ls-remote", "--", source.url], source=source).splitlines():
        sha, _, name = line.partition("\t")
        if name.endswith("^{}"):
            found[name[:-3]] = sha  # the peeled commit wins over the tag object
        else:
            found.setdefault(name, sha)
    return found


def resolve_ref(refs: Mapping[str, str], ref: str, where: str) -> tuple[str, str]:
    """(ref name to fetch, commit) for `ref` ("" = the default branch); a full commit id is
    itself. Raises GitFailed(cause="ref") when the remote has no such ref."""
    for name in (("HEAD",) if not ref else (ref, f"refs/tags/{ref}", f"refs/heads/{ref}")):
        if name in refs and (name == "HEAD" or name.startswith("refs/")):
            return name, refs[name]
    if _SHA.fullmatch(ref):
        return ref, ref
    raise GitFailed(f"{where} has no branch, tag or commit {ref or 'HEAD'!r}", "ref",
                    "list them with `git ls-remote`, or give a full 40-hex commit id")


def has_commit(paths: Paths, path: Path, commit: str) -> bool:
    """Whether the mirror at `path` holds `commit` (and so its tree)."""
    try:
        run_git(paths, ["cat-file", "-e", f"{commit}^{{commit}}"], git_dir=path)
    except GitFailed:
        return False
    return True


def fetch(paths: Paths, path: Path, source: Source, name: str, commit: str) -> None:
    """Fetch `commit` (advertised as `name`, or asked for by id) into the mirror, shallow."""
    if has_commit(paths, path, commit):
        return
    keep = f"refs/uze/c/{commit}"
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
    """(what to fetch, commit): asks the remote only when the cache cannot answer."""
    if commit and cached is not None and has_commit(paths, cached, commit):
        return commit, commit
    refs = remote_refs(paths, source)
    if not commit:
        return resolve_ref(refs, source.ref, source.location)
    return next((n for n, sha in sorted(refs.items()) if sha == commit), commit), commit


@contextlib.contextmanager
def fetched(paths: Paths, source: Source, commit: str = "", *, cache: bool = True
            ) -> Iterator[tuple[Path, str]]:
    """The package folder of `source` at `commit` (default: what its ref points at now), in a
    temporary folder removed afterwards, and the resolved commit. The remote is asked first,
    so a source that cannot be reached leaves nothing behind. With `cache` False (a dry run, a
    check before install) nothing is written under $UZE_HOME: a commit the mirror lacks is
    fetched into a temporary repository."""
    cached = mirror_path(paths, source)
    present = cached if (cached / "HEAD").is_file() else None
    name, commit = _wanted(paths, present, source, commit)
    if cache:
        with (mirror(paths, source) if present is not None else _new_mirror(paths, source)) \
                as path, _checked_out(paths, path, source, name, commit) as found:
            yield found
        return
    if present is not None and has_commit(paths, present, commit):
        with _checked_out(paths, present, source, name, commit) as found:
            yield found
        return
    with tempfile.TemporaryDirectory(prefix="uze-git-") as scratch:
        path = Path(scratch) / "repo.git"
        run_git(paths, ["init", "--bare", "--quiet", str(path)])
        fs.atomic_write(path / "info" / "attributes", _ATTRIBUTES)
        with _checked_out(paths, path, source, name, commit) as found:
            yield found


def is_cached(paths: Paths, source: Source, commit: str) -> bool:
    """Whether the mirror of `source` holds `commit` (a fetch of it needs no network)."""
    cached = mirror_path(paths, source)
    return (cached / "HEAD").is_file() and has_commit(paths, cached, commit)


@contextlib.contextmanager
def _checked_out(paths: Paths, path: Path, source: Source, name: str, commit: str
                 ) -> Iterator[tuple[Path, str]]:
    fetch(paths, path, source, name, commit)
    commit = run_git(paths, ["rev-parse", f"{commit}^{{commit}}"], git_dir=path).strip()
    with tempfile.TemporaryDirectory(prefix="uze-src-") as scratch:
        dest = Path(scratch) / "package"
        fs.make_dir(dest)
        checkout(paths, path, commit, source.subdirectory, dest)
        yield dest, commit


def current_commit(paths: Paths, source: Source) -> str:
    """What `source`'s ref points at on the remote now (read-only: the mirror is not touched)."""
    return resolve_ref(remote_refs(paths, source), source.ref, source.location)[1]

