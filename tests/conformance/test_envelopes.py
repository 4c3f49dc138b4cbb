"""The evidence of ADR 0044 (Gemini CLI extensions), rerun on the pinned binary.

uze delivers a package that ships `gemini-extension.json` capability by capability. These tests
pin the facts that decision rests on, so a Gemini CLI release that changes them fails here and
sends the reader to the ADR: the extension link is a single file Gemini CLI reads only from the
user's HOME (never from the project), and it reads the extension root whole, a Claude-format
hooks file included with `${CLAUDE_PLUGIN_ROOT}` left for a shell that never sets it. And after
`uze install` of such a package, Gemini CLI lists no extension and the skill exactly once.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.lab import Lab
from tests.helpers import DATA, build_tree, tree_bytes

pytestmark = pytest.mark.conformance

INSTALL_FILE = ".gemini-extension-install.json"  # what `gemini extensions link` writes
CLAUDE_HOOK = '"${CLAUDE_PLUGIN_ROOT}/hooks/start.sh"'


def _extension(root: Path) -> Path:
    """A folder that is both a Claude Code plugin and a Gemini CLI extension."""
    return build_tree(root, {
        "gemini-extension.json": json.dumps(
            {"name": "probe-ext", "version": "1.0.0", "contextFileName": "GEMINI.md"}),
        "GEMINI.md": "Probe extension context.\n",
        ".claude-plugin/plugin.json": json.dumps({"name": "probe-ext", "version": "1.0.0"}),
        "skills/probe-skill/SKILL.md":
            "---\nname: probe-skill\ndescription: A probe skill.\n---\nBody.\n",
        "hooks/hooks.json": json.dumps({"hooks": {"SessionStart": [
            {"hooks": [{"type": "command", "command": CLAUDE_HOOK}]}]}}),
    })


def _link(folder: Path, extension: Path) -> None:
    """Write the one file `gemini extensions link` writes for an extension, by hand."""
    folder.mkdir(parents=True)
    (folder / INSTALL_FILE).write_text(
        json.dumps({"source": str(extension), "type": "link"}), encoding="utf-8")


def _extensions(lab: Lab) -> list[dict[str, Any]]:
    """`gemini extensions list -o json` (it prints the document on stderr)."""
    result = lab.run("gemini", "extensions", "list", "-o", "json")
    text = result.stdout + result.stderr
    start = text.index("\n[") + 1 if not text.startswith("[") else 0
    listed: list[dict[str, Any]] = json.JSONDecoder().raw_decode(text, start)[0]
    return listed


def test_a_gemini_extension_link_is_read_from_home_only_and_whole(lab: Lab) -> None:
    sandbox = lab.sandbox
    extension = _extension(sandbox.root / "probe-ext")
    user_extensions = sandbox.home / ".gemini" / "extensions"
    before = tree_bytes(sandbox.home / ".gemini")

    _link(sandbox.project / ".gemini" / "extensions" / "probe-ext", extension)
    assert _extensions(lab) == []  # no project-level extension folder

    _link(user_extensions / "probe-ext", extension)
    (listed,) = _extensions(lab)
    assert (listed["name"], listed["isActive"]) == ("probe-ext", True)
    assert listed["contextFiles"] == [str(extension / "GEMINI.md")]
    assert [skill["name"] for skill in listed["skills"]] == ["probe-skill"]
    hook = listed["hooks"]["SessionStart"][0]["hooks"][0]
    assert hook["command"] == CLAUDE_HOOK  # the Claude hook, unresolved

    shutil.rmtree(user_extensions)
    assert _extensions(lab) == []
    after = tree_bytes(sandbox.home / ".gemini")
    assert [path for path in after if path not in before and "extension" in path] == []


def test_uze_install_leaves_gemini_no_extension_and_one_skill(lab: Lab) -> None:
    for scope in ("project", "user"):
        lab.uze("install", str(DATA / "own-envelopes"), "--harness", "gemini_cli",
                "--scope", scope)

        assert _extensions(lab) == []
        listed = lab.run("gemini", "skills", "list").stdout
        names = [line.split(" [")[0] for line in listed.splitlines() if " [" in line]
        assert names.count("own-envelopes-outline") == 1, listed
        assert "own-envelopes:" not in listed
        lab.uze("uninstall", "own-envelopes", "--scope", scope)
        assert "own-envelopes-outline" not in lab.run("gemini", "skills", "list").stdout
