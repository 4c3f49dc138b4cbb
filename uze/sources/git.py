"""Git, run as the system `git` (as pip and uv do), hardened (ADR 0023): what the remote
advertises and whether a repository holds a commit. The cached mirrors and checkouts are in
`uze.sources.mirrors`.

Hardening: no system config (GIT_CONFIG_NOSYSTEM); the user's global config stays (credential
helpers, `insteadOf`, proxies and CA settings are how private repositories work), with the keys
that could run code or widen what is reached overridden on the command line: no hooks, no
fsmonitor, no submodules, protocols https, ssh, git and file only (plain http only to loopback),
no prompts (GIT_TERMINAL_PROMPT=0, no askpass, ssh in BatchMode). Credentials are never put in
a URL uze writes; git's messages are shown with the URL as the user gave it replaced by the
credential-free one, and any other credential in them taken out (`uze.errors.redacted`).

Time (ADR 0058): a command that talks to a remote reports a progress step naming it, and is
stopped once it has been silent (nothing on its stdout or stderr; a fetch runs with
`--progress`, so a slow transfer is not silence) for `UZE_GIT_TIMEOUT` seconds (default 30),
or has run for `BUDGET` seconds in all; a remote that stalled once fails at once for the rest
of the command. Its whole process group is stopped (git's transport helpers and ssh with it).
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import subprocess
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Final
from urllib.parse import urlsplit

from uze import portable, progress
from uze.errors import UzeError, redacted
from uze.paths import Paths
from uze.sources.spec import LOOPBACK, Source

TIMEOUT: Final = 600.0  # a local git command (no remote): its whole run
BUDGET: Final = 600.0  # a git command that talks to a remote: its whole run
SILENCE: Final = 30.0  # ... and how long it may stay silent (UZE_GIT_TIMEOUT overrides)
_STEPS: Final = {"ls-remote": "asking", "fetch": "fetching from"}
_stalled: set[str] = set()  # remotes that stalled in this process: not waited for twice
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
    """Run one hardened git command; its stdout. With a `source` (the command talks to its
    remote) the run is bounded by `git_timeout` seconds of silence and `BUDGET` in all, and
    reported as a progress step naming the remote. Raises GitFailed with the cause classified."""
    command = ["git", *_config(source.url if source else None)]
    if git_dir is not None:
        command.append(f"--git-dir={git_dir}")
    env = {**_env(paths), **(extra_env or {})}
    try:
        if source is None:
            done = subprocess.run([*command, *args], env=env, capture_output=True, text=True,
                                  timeout=TIMEOUT, check=False, stdin=subprocess.DEVNULL)
            code, out, err = done.returncode, done.stdout, done.stderr
        else:
            code, out, err = _remote(paths, [*command, *args], env, source, args[0])
    except FileNotFoundError:
        raise UzeError("git is not installed (uze runs the system git for git sources)",
                       hint="install git, or install from a folder") from None
    except subprocess.TimeoutExpired:
        raise GitFailed(f"git timed out after {TIMEOUT:.0f} s", "git",
                        "check the mirror under $UZE_HOME/git, then run again") from None
    if code != 0:
        raise _failure(err, source)
    return out


def local_bytes(paths: Paths, args: list[str], cwd: Path) -> bytes | None:
    """The stdout of one hardened local git command run in `cwd`, bytes as git wrote them (no
    newline translation), or None when git is not there or fails (`cwd` in no repository, a
    repository git does not trust): the caller then does without git."""
    try:
        done = subprocess.run(["git", *_config(None), *args], cwd=cwd, env=_env(paths),
                              capture_output=True, timeout=TIMEOUT, check=False,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def git_timeout(paths: Paths) -> float:
    """UZE_GIT_TIMEOUT: the seconds of silence a remote is given (default `SILENCE`)."""
    text = paths.env.get("UZE_GIT_TIMEOUT", "")
    try:
        seconds = float(text) if text else SILENCE
    except ValueError:
        seconds = math.nan
    if not (seconds > 0 and math.isfinite(seconds)):
        raise UzeError(f"UZE_GIT_TIMEOUT={text!r} is not a number of seconds above 0",
                       hint=f"unset it (default {SILENCE:g}) or give seconds, e.g. 60")
    return seconds


def _remote(paths: Paths, command: list[str], env: Mapping[str, str], source: Source,
            verb: str) -> tuple[int, str, str]:
    """Run a command that talks to `source`'s remote, bounded (see `run_git`)."""
    silence = git_timeout(paths)
    if source.location in _stalled:
        raise _stall(source, silence)
    progress.stage(f"{_STEPS.get(verb, 'git ' + verb)} {source.location}")
    if verb == "fetch":  # stderr keeps moving while objects arrive: a slow transfer is not silence
        at = command.index("fetch")
        command = [*command[:at + 1], "--progress", *command[at + 1:]]
    proc = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=portable.POSIX)
    heard = [time.monotonic()]
    chunks: tuple[list[bytes], list[bytes]] = ([], [])
    readers = [threading.Thread(target=_drain, args=(pipe, into, heard), daemon=True)
               for pipe, into in ((proc.stdout, chunks[0]), (proc.stderr, chunks[1]))]
    for reader in readers:
        reader.start()
    try:
        _wait(proc, heard, silence, source)
    finally:
        if proc.poll() is None:
            with contextlib.suppress(OSError):
                portable.kill_group(proc.pid)  # git's transport helpers and ssh with it
            proc.wait()
        for reader in readers:
            reader.join(timeout=5)
    out, err = (b"".join(c).decode("utf-8", "replace") for c in chunks)
    return proc.returncode, out, err


def _drain(pipe: IO[bytes] | None, into: list[bytes], heard: list[float]) -> None:
    """Read `pipe` to its end into `into`, noting when anything last came."""
    assert pipe is not None
    with pipe:
        while chunk := os.read(pipe.fileno(), 65536):
            into.append(chunk)
            heard[0] = time.monotonic()


def _wait(proc: subprocess.Popen[bytes], heard: list[float], silence: float,
          source: Source) -> None:
    """Wait for `proc` to end; raise GitFailed once it is silent or over budget."""
    deadline = time.monotonic() + BUDGET
    while True:
        now = time.monotonic()
        if now - heard[0] >= silence:
            _stalled.add(source.location)
            raise _stall(source, silence)
        if now >= deadline:
            raise GitFailed(f"{source.location} did not finish within {BUDGET:.0f} s",
                            "unreachable", "check the network and the URL, then run again")
        try:
            proc.wait(timeout=max(0.01, min(heard[0] + silence, deadline) - now))
            return
        except subprocess.TimeoutExpired:
            continue


def _stall(source: Source, silence: float) -> GitFailed:
    return GitFailed(f"{source.location} sent nothing for {silence:g} s; uze stopped waiting",
                     "unreachable", "check the network and the URL, then run again; "
                     f"UZE_GIT_TIMEOUT sets the seconds of silence uze waits for (now {silence:g})")


def _failure(stderr: str, source: Source | None) -> GitFailed:
    text = stderr
    if source is not None and source.fetch_url:
        text = stderr.replace(source.fetch_url, source.location)
    text = redacted(text)
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
    """(ref name to fetch, commit) for `ref` ("" = the default branch). A full commit id is
    that commit, never looked up as a ref name first: a branch or tag named like a commit
    cannot take its place (ADR 0057). Raises GitFailed(cause="ref") when the remote has no
    such ref."""
    if _SHA.fullmatch(ref):
        return ref, ref
    for name in (("HEAD",) if not ref else (ref, f"refs/tags/{ref}", f"refs/heads/{ref}")):
        if name in refs and (name == "HEAD" or name.startswith("refs/")):
            return name, refs[name]
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

