"""`uze status` keeps each package's verdict by its records (ADR 0107): another package's
install rewrites the shared files and leaves the others' verdicts standing, yet an edit by
hand of one package's entry, hook group or region in such a file is still reported, whether
it came with an install or after a status that re-checked the file."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import EVERY_KIND, HARNESSES, Uze, as_json, assert_ok, copy_package

pytestmark = pytest.mark.e2e

# (shared file, a text that starts beta's part of it, bytes of beta's part, the same-size edit,
# the projection whose state it changes)
EDITS = {
    "mcp entry, JSON": (".mcp.json", '"beta-docs"', '"DOCS_MODE": "local"',
                        '"DOCS_MODE": "LOCAL"', ("mcp", "beta-docs", "claude_code")),
    "mcp entry, TOML": (".codex/config.toml", "[mcp_servers.beta-docs.env]",
                        'DOCS_MODE = "local"', 'DOCS_MODE = "LOCAL"',
                        ("mcp", "beta-docs", "codex")),
    "hook group": (".claude/settings.json", "/beta/claude_code/PreToolUse-0", '"timeout": 15',
                   '"timeout": 16', ("hook", "no-force-push", "claude_code")),
    "region": ("AGENTS.md", "<!-- uze:begin beta -->", "which tests you ran",
               "which tests you RAN", ("instructions", "AGENTS.md", "codex")),
}


def _install(uze: Uze, sandbox: Sandbox, name: str) -> None:
    source = copy_package(EVERY_KIND, sandbox.root / "sources" / name, name)
    assert_ok(uze("install", source, *HARNESSES))


def _states(uze: Uze) -> dict[str, dict[tuple[str, str, str], str]]:
    document: Any = as_json(uze("status", "--json"))
    return {p["name"]: {(r["kind"], r["resource"], r["harness"]): r["state"]
                        for r in p["projections"]} for p in document["packages"]}


def _all_matched(found: dict[str, dict[tuple[str, str, str], str]], *names: str) -> None:
    assert sorted(found) == sorted(names)
    for name in names:
        assert set(found[name].values()) <= {"matched", "undelivered"}, (name, found[name])
        assert "matched" in found[name].values()


def _edit(path: Path, anchor: str, old: str, new: str) -> bytes:
    """Change `old` to `new` (same size) in the part of `path` after `anchor`, with the file's
    mtime put back; return the bytes before."""
    before, st = path.read_bytes(), path.stat()
    text = before.decode()
    at = text.index(old, text.index(anchor))
    path.write_bytes((text[:at] + new + text[at + len(old):]).encode())
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    return before


def _only_drifted(found: dict[str, dict[tuple[str, str, str], str]],
                  projection: tuple[str, str, str]) -> None:
    """beta's `projection` drifted, and nothing else of any package."""
    assert sorted(found) == ["alpha", "beta", "gamma"]
    assert [k for k, v in found["beta"].items() if v == "drifted"] == [projection]
    for name, states in found.items():
        assert set(states.values()) <= {"matched", "undelivered", "drifted"}, (name, states)
        assert name == "beta" or "drifted" not in states.values(), (name, states)


@pytest.mark.parametrize("edit", list(EDITS))
def test_an_edit_of_one_package_s_part_of_a_shared_file_is_reported_after_installs(
        sandbox: Sandbox, uze: Uze, edit: str) -> None:
    target, anchor, old, new, projection = EDITS[edit]
    path = sandbox.project / target
    _install(uze, sandbox, "alpha")
    _install(uze, sandbox, "beta")
    time.sleep(0.3)  # past the racy window (ADR 0011): every verdict is remembered
    _all_matched(_states(uze), "alpha", "beta")
    _all_matched(_states(uze), "alpha", "beta")  # taken from the verdicts

    # another install rewrites the file, and beta's part of it is edited by hand too
    _install(uze, sandbox, "gamma")
    before = _edit(path, anchor, old, new)
    _only_drifted(_states(uze), projection)

    # put back by hand: matched again; the verdicts re-check the file at its new stat
    path.write_bytes(before)
    time.sleep(0.3)
    _all_matched(_states(uze), "alpha", "beta", "gamma")
    _all_matched(_states(uze), "alpha", "beta", "gamma")

    # an edit after a status that re-checked the file (the verdict holds its new stat)
    _edit(path, anchor, old, new)
    _only_drifted(_states(uze), projection)
    _only_drifted(_states(uze), projection)  # a package with a difference is never remembered
