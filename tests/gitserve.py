"""Real git repositories and servers on loopback for the source tests: `file://` repositories,
a `git daemon` and smart HTTP (`git http-backend` behind a wsgiref server, optionally asking
for Basic authentication). Everything listens on 127.0.0.1 on a free port and is stopped by
the fixture that started it."""

from __future__ import annotations

import base64
import os
import socket
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from tests.helpers import build_tree

IDENTITY = ("-c", "user.name=Test", "-c", "user.email=test@example.invalid",
            "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false",
            "-c", "tag.gpgsign=false")


def git(*args: str | Path, cwd: Path) -> str:
    """Run git in `cwd` (tests only: a fixed identity, no global config)."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    done = subprocess.run(["git", *IDENTITY, *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


class Repo:
    """A bare repository at `bare` with a work tree beside it to commit from."""

    def __init__(self, bare: Path) -> None:
        self.bare = bare
        self.work = bare.with_name(bare.name + ".work")
        bare.mkdir(parents=True)
        git("init", "--bare", "-q", bare, cwd=bare.parent)
        git("clone", "-q", bare, self.work, cwd=bare.parent)

    def commit(self, files: Mapping[str, str | bytes], message: str = "change",
               remove: tuple[str, ...] = ()) -> str:
        """Write `files`, remove `remove`, commit, push to the bare repository; the new commit."""
        build_tree(self.work, files)
        for rel in remove:
            (self.work / rel).unlink()
        git("add", "-A", cwd=self.work)
        git("commit", "-q", "--allow-empty", "-m", message, cwd=self.work)
        git("push", "-q", "origin", "HEAD:main", cwd=self.work)
        return git("rev-parse", "HEAD", cwd=self.work)

    def tag(self, name: str, annotated: bool = True) -> None:
        """Tag HEAD and push the tag."""
        git("tag", *(["-a", "-m", name] if annotated else []), name, cwd=self.work)
        git("push", "-q", "origin", name, cwd=self.work)

    def branch(self, name: str) -> None:
        """Push HEAD as branch `name`."""
        git("push", "-q", "origin", f"HEAD:refs/heads/{name}", cwd=self.work)

    @property
    def url(self) -> str:
        """The file:// URL of the bare repository."""
        return self.bare.as_uri()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (right now)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_listening(port: int) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on 127.0.0.1:{port}")


@contextmanager
def git_daemon(base: Path) -> Iterator[str]:
    """`git daemon` serving every repository under `base`; yields `git://127.0.0.1:<port>`."""
    port = free_port()
    daemon = subprocess.Popen(
        ["git", "daemon", "--reuseaddr", "--export-all", f"--base-path={base}",
         "--listen=127.0.0.1", f"--port={port}", str(base)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_listening(port)
        yield f"git://127.0.0.1:{port}"
    finally:
        daemon.terminate()
        daemon.wait(timeout=20)


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


class Stall:
    """Holds every fetch (not ref listing) until `release` is set; `reached` says one came."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self.release = threading.Event()


def _backend(root: Path, password: str | None, stall: Stall | None = None,
             user: str = "user") -> Any:
    def app(environ: dict[str, Any], start: Any) -> list[bytes]:
        if password is not None:
            expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
            if environ.get("HTTP_AUTHORIZATION") != expected:
                start("401 Unauthorized", [("WWW-Authenticate", 'Basic realm="git"')])
                return [b"authentication required\n"]
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        if stall is not None and b"command=fetch" in body:
            stall.reached.set()
            stall.release.wait(timeout=60)
        env = {"PATH": os.environ["PATH"], "GIT_PROJECT_ROOT": str(root),
               "GIT_HTTP_EXPORT_ALL": "1", "GIT_CONFIG_NOSYSTEM": "1",
               "GIT_CONFIG_GLOBAL": os.devnull, "HOME": str(root)}
        for key in ("REQUEST_METHOD", "PATH_INFO", "QUERY_STRING", "CONTENT_TYPE",
                    "CONTENT_LENGTH", "REMOTE_ADDR", "HTTP_CONTENT_ENCODING"):
            if environ.get(key):
                env[key] = environ[key]
        if environ.get("HTTP_GIT_PROTOCOL"):
            env["GIT_PROTOCOL"] = environ["HTTP_GIT_PROTOCOL"]
        done = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True,
                              check=False, timeout=60)
        head, _, payload = done.stdout.partition(b"\r\n\r\n")
        headers = [tuple(line.split(": ", 1)) for line in head.decode().split("\r\n") if line]
        status = next((v for k, v in headers if k.lower() == "status"), "200 OK")
        start(status, [(k, v) for k, v in headers if k.lower() != "status"])
        return [payload]

    return app


@contextmanager
def smart_http(root: Path, password: str | None = None, stall: Stall | None = None,
               user: str = "user") -> Iterator[str]:
    """`git http-backend` over HTTP for every repository under `root` (with Basic auth for
    `user` when `password` is given); yields `http://127.0.0.1:<port>`."""
    server: WSGIServer = make_server("127.0.0.1", 0, _backend(root, password, stall, user),
                                     handler_class=_Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        if stall is not None:
            stall.release.set()
        server.shutdown()
        server.server_close()
