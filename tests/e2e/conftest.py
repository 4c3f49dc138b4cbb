"""Shared pieces of the end-to-end tests: run the real uze, snapshot every root, copy packages."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Sandbox
from tests.helpers import DATA, SEVEN, run_uze, tree_bytes

HARNESSES = ("--harness", "claude_code,codex", "--trust")  # every-kind runs an MCP server
THE_SEVEN = ("--harness", ",".join(SEVEN))  # the harnesses the expectations describe
EVERY_KIND = DATA / "every-kind"

Snapshot = dict[str, dict[str, bytes | str]]
Uze = Callable[..., subprocess.CompletedProcess[str]]


def snapshot(sandbox: Sandbox) -> Snapshot:
    """Every byte of the project, HOME and UZE_HOME (an absent root is an empty dict)."""
    return {
        "project": tree_bytes(sandbox.project),
        "home": tree_bytes(sandbox.home),
        "uze_home": tree_bytes(sandbox.uze_home),
    }


def person(root: Path, name: str) -> dict[str, str]:
    """The environment of user `name` (a teammate, CI) whose HOME and UZE_HOME are under
    `root/name`: one person's machine among several in a test."""
    home = root / name / "home"
    home.mkdir(parents=True)
    return {**os.environ, "HOME": str(home), "UZE_HOME": str(root / name / "uze-home"),
            "XDG_CONFIG_HOME": str(home / ".config"), "USER": name, "LOGNAME": name}


def assert_no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    """A user never sees a Python traceback or the internal-error path (exit 3)."""
    assert "Traceback" not in result.stderr, result.stderr
    assert "Traceback" not in result.stdout, result.stdout
    assert result.returncode != 3, result.stderr


def assert_ok(result: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    """Exit 0 with nothing on stderr."""
    assert result.returncode == 0, (
        f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    )
    assert result.stderr == "", result.stderr
    return result


def as_json(result: subprocess.CompletedProcess[str]) -> Any:
    """stdout parsed as the one JSON document `--json` promises."""
    return json.loads(result.stdout)


def copy_package(source: Path, dest: Path, name: str) -> Path:
    """A copy of the package at `source`, renamed to `name` in its plugin.json.

    Its MCP servers are renamed `<name>-<server>` too: server names are not package-qualified
    (users name them in permissions), so two packages with one server name conflict.
    """
    shutil.copytree(source, dest, symlinks=True)
    manifest = dest / "plugin.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data["name"] = name
    manifest.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    mcp = dest / "mcp.json"
    if mcp.exists():
        servers = json.loads(mcp.read_text(encoding="utf-8"))["mcpServers"]
        renamed = {f"{name[:10]}-{key}": value for key, value in servers.items()}
        mcp.write_text(json.dumps({"mcpServers": renamed}, indent=2) + "\n", encoding="utf-8")
    return dest


def keep_only(
    tree: Mapping[str, bytes | str], kept: list[str], base: Mapping[str, bytes | str]
) -> dict[str, bytes | str]:
    """`base` plus the entries of `tree` at, below or above each path in `kept`."""
    out = dict(base)
    for rel, value in tree.items():
        for path in kept:
            if rel == path or rel.startswith(path + "/") or path.startswith(rel + "/"):
                out[rel] = value
    return dict(sorted(out.items()))


@pytest.fixture
def uze(sandbox: Sandbox) -> Uze:
    """Run the real `python -m uze` in the project; never a traceback."""

    def run(
        *args: str | Path, cwd: Path | None = None, env: Mapping[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        result = run_uze(*args, cwd=cwd or sandbox.project, env=env)
        assert_no_traceback(result)
        return result

    return run


@pytest.fixture
def other_kind(sandbox: Sandbox) -> Path:
    """A second package: every-kind copied outside the project and renamed `other-kind`."""
    return copy_package(EVERY_KIND, sandbox.root / "packages" / "other-kind", "other-kind")
