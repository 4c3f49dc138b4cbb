"""The skills CLI's `computedHash` of a skill folder (uze.sources.skills_lock): its order is
JavaScript's `localeCompare`, checked here against the real node when it is installed, and its
hash against one written out by hand."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import build_tree
from uze.sources.skills_lock import folder_hash, sort_key

NAMES = ["SKILL.md", "skill.md", "Skill.md", "references/Style.md", "references/style-extra.md",
         "references/style_b.md", "references/style.md", "scripts/run.py", "scripts/Run.py",
         "LICENSE.txt", "LICENSE", "_notes.md", "-dash.md", ".hidden", "a/b.md", "a.b", "a0.md",
         "a10.md", "a9.md", "aZ.md", "Aa.md", "aa.md", "x y.md", "x~y.md", "x$y.md", "x+y.md",
         "x(1).md", "x[1].md", "x@y.md", "x#y.md", "x%y.md", "x&y.md", "x'y.md", "x=y.md",
         "café.md", "cafe.md", "cafz.md", "Café.md"]


def test_the_order_is_javascripts_locale_compare() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the order cannot be compared with localeCompare")
    script = ("const n = JSON.parse(process.argv[1]);"
              "console.log(JSON.stringify(n.sort((a, b) => a.localeCompare(b))));")
    done = subprocess.run([node, "-e", script, json.dumps(NAMES)], capture_output=True,
                          text=True, check=True)
    assert sorted(NAMES, key=sort_key) == json.loads(done.stdout)


def test_the_hash_is_each_path_then_its_bytes_in_that_order_skipping_git_and_modules(
        tmp_path: Path) -> None:
    folder = build_tree(tmp_path / "guide", {
        "SKILL.md": "---\nname: guide\n---\nGuide.\n", "references/Style.md": "style\n",
        "references/style-extra.md": "extra\n", "_notes.md": "notes\n",
        ".git/HEAD": "ref\n", "node_modules/x/index.js": "x\n", "lib/node_modules/y.js": "y\n"})
    (folder / "link.md").symlink_to(folder / "_notes.md")
    digest = hashlib.sha256()
    for rel in ("_notes.md", "references/style-extra.md", "references/Style.md", "SKILL.md"):
        digest.update(rel.encode())
        digest.update((folder / rel).read_bytes())

    assert folder_hash(folder) == digest.hexdigest()
