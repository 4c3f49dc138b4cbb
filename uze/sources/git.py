"""Git, run as the system `git` (as pip and uv do), hardened (ADR 0023): what the remote
advertises and whether a repository holds a commit. The cached mirrors and checkouts are in
`uze.sources.mirrors`.

Hardening: no system config (GIT_CONFIG_NOSYSTEM); the user's global config stays (credential
helpers, `insteadOf`, proxies and CA settings are how private repositories work), with the keys
that could run code or widen what is reached overridden on the command line: no hooks, no
fsmonitor, no submodules, protocols https, ssh, git and file only (plain http only to loopback),
no prompts (GIT_TERMINAL_PROMPT=0, no askpass, ssh in BatchMode). Credentials are never put in
a URL uze writes; git's messages are shown with the URL as the user gave it replaced by the
credential-free one.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

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


def current_commit(paths: Paths, source: Source) -> str:
    """What `source`'s ref points at on the remote now (read-only: the mirror is not touched)."""
    return resolve_ref(remote_refs(paths, source), source.ref, source.location)[1]

