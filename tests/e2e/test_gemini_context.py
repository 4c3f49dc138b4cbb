"""The context files a package's `gemini-extension.json` names are its instructions when it has
none of its own (adr/0049), through the real `uze` command: every harness's instructions file
but Claude Code's (which loads a Claude plugin, whose manifest names no context) holds their
text with `@` imports inlined and references rewritten, the plan shows the size and first
line, the repository's own AGENTS.md never lands, and a context path or import that leaves
the package is refused before anything is written."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import THE_SEVEN, Uze, as_json, assert_no_traceback, assert_ok, snapshot
from tests.helpers import SEVEN, build_tree

pytestmark = pytest.mark.e2e

GEMINI = "Use {focus} for every review.\n@./skills/focus/guide.md\n"
EXTRA = "Second context file.\n"
GUIDE = "Guide: one finding per line.\n"
SOURCE = "gemini-extension.json contextFileName"


def _lens(root: Path, **extra: object) -> Path:
    manifest = {"name": "lens", "version": "1.0.0", "contextFileName": ["GEMINI.md", "extra.md"],
                **extra}
    return build_tree(root / "lens", {
        ".claude-plugin/plugin.json": json.dumps({"name": "lens", "version": "1.0.0"}),
        "gemini-extension.json": json.dumps(manifest),
        "GEMINI.md": GEMINI.format(focus="lens:focus"),
        "extra.md": EXTRA,
        "AGENTS.md": "# Contributing\nWe reject most pull requests.\n",
        "skills/focus/SKILL.md": "---\nname: focus\ndescription: Focus.\n---\nFocus.\n",
        "skills/focus/guide.md": GUIDE,
    })


def _expected(label: str) -> str:
    return (GEMINI.format(focus=label).replace(
        "@./skills/focus/guide.md", "<!-- Imported from: ./skills/focus/guide.md -->\n"
        f"{GUIDE}\n<!-- End of import from: ./skills/focus/guide.md -->") + EXTRA)


def test_every_harness_gets_the_context_files_as_instructions(sandbox: Sandbox, uze: Uze) -> None:
    source = _lens(sandbox.root)
    before = snapshot(sandbox)
    text = _expected("lens:focus")

    plan = assert_ok(uze("install", source, *THE_SEVEN, "--dry-run"))
    assert (f"instructions: GEMINI.md, extra.md ({SOURCE}), {len(text.encode())} bytes, "
            "first line: Use lens:focus for every review.") in " ".join(plan.stdout.split())
    assert snapshot(sandbox) == before

    assert_ok(uze("install", source, *THE_SEVEN, "--trust"))
    rows = as_json(assert_ok(uze("status", "lens", "--json")))["packages"][0]["projections"]
    labels = {r["harness"]: r["label"] for r in rows if r["kind"] == "skill"}
    instructions = [r for r in rows if r["kind"] == "instructions"]
    assert {r["harness"] for r in instructions} == set(labels) and len(labels) == len(SEVEN)
    # Claude Code loads the package as a Claude plugin, and a Claude plugin names no context
    whole = [r for r in instructions if r["harness"] == "claude_code"]
    assert [(r["route"], r["target"]) for r in whole] == [("unsupported", "")], whole
    assert "loads the package as a Claude plugin, whose manifest names no instructions; " \
           f"GEMINI.md+extra.md is the context {SOURCE} names for another harness" \
           in whole[0]["reason"]
    assert not (sandbox.project / "CLAUDE.md").exists()
    for row in (r for r in instructions if r["harness"] != "claude_code"):
        assert row["resource"] == "GEMINI.md+extra.md"
        assert row["state"] == "matched" and row["route"] in ("adapted", "degraded")
        assert f"its Gemini CLI context GEMINI.md, extra.md ({SOURCE}), with its @imports " \
               "inlined (skills/focus/guide.md)" in row["reason"]
        written = (sandbox.project / row["target"].split("#")[0]).read_text(encoding="utf-8")
        assert _expected(labels[row["harness"]]) in written, row["harness"]
        assert "Contributing" not in written
    assert_ok(uze("uninstall", "lens"))
    after = snapshot(sandbox)
    assert (after["project"], after["home"]) == (before["project"], before["home"])


def _refused(result: subprocess.CompletedProcess[str], source: Path, line: str) -> None:
    assert_no_traceback(result)
    assert result.returncode == 1, result.stderr
    lines = result.stderr.splitlines()
    assert f"uze: error: invalid package {source}: 1 problem" in lines, result.stderr
    assert line in lines, result.stderr
    assert lines[-1].startswith("hint: ")


@pytest.mark.parametrize("how", ["name", "import", "link"])
def test_context_that_leaves_the_package_is_refused_and_nothing_is_written(
    sandbox: Sandbox, uze: Uze, how: str
) -> None:
    (sandbox.root / "secret.md").write_text("a secret\n")
    source = _lens(sandbox.root)
    if how == "name":
        (source / "gemini-extension.json").write_text(json.dumps(
            {"name": "lens", "contextFileName": "../secret.md"}))
        line = ("gemini-extension.json: contextFileName: ../secret.md: is absolute or holds .. "
                "(Gemini CLI refuses both); a context file must be a path inside the package")
    elif how == "import":
        (source / "extra.md").write_text("See\n@../secret.md\n")
        line = ("extra.md:2: @../secret.md: imports a file outside the package; an import "
                "must be a file of the package")
    else:
        (source / "extra.md").unlink()
        (source / "extra.md").symlink_to("../secret.md")
        line = ""
    before = snapshot(sandbox)
    for command in (("check", source), ("install", source, *THE_SEVEN, "--trust")):
        result = uze(*command)
        if line:
            _refused(result, source, line)
        else:
            assert result.returncode == 1 and "extra.md" in result.stderr, result.stderr
            assert "a secret" not in result.stderr + result.stdout
            assert result.stderr.splitlines()[-1].startswith("hint: ")
        assert snapshot(sandbox) == before


def test_a_claude_plugin_read_in_part_gets_no_context_on_claude_code_either(
        sandbox: Sandbox, uze: Uze) -> None:
    """A skill uze cannot read keeps the package off the whole-plugin route (ADR 0048), and
    Claude Code still gets no Gemini context: it loads the package as a Claude plugin."""
    source = _lens(sandbox.root)
    (source / "skills" / "bad").mkdir()
    (source / "skills" / "bad" / "SKILL.md").write_text("---\nname: [\n---\nBad.\n")
    before = snapshot(sandbox)
    result = assert_ok(uze("install", source, "--harness", "claude_code,codex", "--trust"))
    assert "skills/bad/SKILL.md" in result.stdout + result.stderr
    rows = as_json(assert_ok(uze("status", "lens", "--json")))["packages"][0]["projections"]
    skill = next(r for r in rows if r["kind"] == "skill" and r["harness"] == "claude_code")
    assert "its own manifest" not in skill["reason"], skill  # the generated plugin
    routes = {r["harness"]: r["route"] for r in rows if r["kind"] == "instructions"}
    assert routes == {"claude_code": "unsupported", "codex": "adapted"}, routes
    assert not (sandbox.project / "CLAUDE.md").exists()
    assert "Second context file." in (sandbox.project / "AGENTS.md").read_text(encoding="utf-8")
    assert_ok(uze("uninstall", "lens"))
    after = snapshot(sandbox)
    assert (after["project"], after["home"]) == (before["project"], before["home"])
