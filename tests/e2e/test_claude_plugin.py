"""A package with its own `.claude-plugin/plugin.json`, through the real `uze` command: Claude
Code gets it whole as its own plugin (adr/0041), status shows the label a user types in each
harness, uninstall leaves every byte as it was; a package uze cannot hand over whole is
projected capability by capability, into a plugin folder uze generates (adr/0048)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, as_json, assert_ok, snapshot
from tests.helpers import build_tree

pytestmark = pytest.mark.e2e

SKILL = "---\nname: brainstorm\ndescription: Explore ideas first.\n---\nOne question at a time.\n"
AGENT = "---\nname: reader\ndescription: Reads.\ntools: Read\n---\nOnly read.\n"
COMMAND = "---\ndescription: Tidy files\n---\nTidy $ARGUMENTS\n"
HOOKS = {"hooks": {"SessionStart": [{"hooks": [
    {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/start.sh"}]}]}}


def _plugin(root: Path, **extra: str) -> Path:
    source = build_tree(root / "kit", {
        ".claude-plugin/plugin.json": json.dumps({"name": "kit", "version": "1.0.0",
                                                  "keywords": ["x"]}),
        "skills/brainstorm/SKILL.md": SKILL, "agents/reader.md": AGENT,
        "commands/tidy.md": COMMAND, "hooks/hooks.json": json.dumps(HOOKS),
        "hooks/start.sh": "#!/bin/sh\necho started\n", **extra,
    })
    (source / "hooks" / "start.sh").chmod(0o755)
    return source


def _rows(document: dict[str, object]) -> dict[tuple[str, str, str], dict[str, str]]:
    rows = document["projections"]  # type: ignore[index]
    return {(p["kind"], p["resource"], p["harness"]): p for p in rows}  # type: ignore[union-attr]


@pytest.mark.parametrize("scope", ["project", "user"])
def test_claude_code_gets_the_package_whole_and_status_shows_each_harness_label(
    sandbox: Sandbox, uze: Uze, scope: str
) -> None:
    source = _plugin(sandbox.root)
    before = snapshot(sandbox)

    assert_ok(uze("install", source, "--harness", "claude_code,codex", "--scope", scope,
                  "--trust"))

    base = sandbox.project / ".claude" if scope == "project" else sandbox.home / ".claude"
    plugin = base / "skills" / "kit"
    written = {p.relative_to(plugin).as_posix(): p.read_bytes()
               for p in plugin.rglob("*") if p.is_file()}
    # every byte but the skill's frontmatter `name`, which OpenCode would list (adr/0070)
    assert written == {p.relative_to(source).as_posix(): p.read_bytes()
                       for p in source.rglob("*") if p.is_file()} | {
        "skills/brainstorm/SKILL.md": SKILL.replace("name: brainstorm\n", "").encode()}
    assert (plugin / "hooks" / "start.sh").stat().st_mode & 0o111
    assert not (base / "settings.json").exists()  # the plugin's own hooks file carries them
    assert not (base / "agents").exists()
    assert not (base / "commands").exists()
    status = as_json(assert_ok(uze("status", "kit", "--json", "--scope", scope)))
    rows = _rows(status["packages"][0])
    labels = {key: row["label"] for key, row in rows.items()}
    assert labels[("skill", "brainstorm", "claude_code")] == "kit:brainstorm"
    assert labels[("skill", "brainstorm", "codex")] == "kit-brainstorm"
    assert labels[("command", "tidy", "claude_code")] == "kit:tidy"
    assert labels[("agent", "reader", "claude_code")] == "kit:reader"
    assert labels[("hook", "SessionStart-0", "claude_code")] == ""
    claude = [row for key, row in rows.items() if key[2] == "claude_code"]
    assert {(r["route"], r["state"]) for r in claude} == {("native", "matched")}
    at = f"{'' if scope == 'project' else '~/'}.claude/skills/kit"
    assert {key[:2]: row["target"] for key, row in rows.items() if key[2] == "claude_code"} == {
        ("skill", "brainstorm"): f"{at}/skills/brainstorm", ("command", "tidy"):
        f"{at}/commands/tidy.md", ("agent", "reader"): f"{at}/agents/reader.md",
        ("hook", "SessionStart-0"): at}  # each resource's own part of the plugin folder
    assert all(r["reason"].startswith("native package, its own manifest") for r in claude)
    assert ("workspace is trusted" in claude[0]["reason"]) == (scope == "project")
    text = " ".join(assert_ok(uze("status", "kit", "--scope", scope)).stdout.split())
    assert "invoke as" in text and "kit:brainstorm" in text and "kit-brainstorm" in text

    assert_ok(uze("uninstall", "kit", "--scope", scope))
    after = snapshot(sandbox)
    assert after["project"] == before["project"]
    assert after["home"] == before["home"]


def _plugin_files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("layout", ["native", "portable"])
def test_an_edited_skill_of_the_plugin_folder_is_the_only_drifted_row_and_the_only_file_kept(
    sandbox: Sandbox, uze: Uze, layout: str
) -> None:
    """adr/0065: drift is per resource, and uninstall removes every unedited file of the plugin
    folder, its manifest included, keeping only the edited one (and a file the user added)."""
    extra = {"plugin.json": json.dumps({"name": "kit", "version": "1.0.0"})} \
        if layout == "portable" else {}
    before = snapshot(sandbox)
    assert_ok(uze("install", _plugin(sandbox.root, **extra), "--harness", "claude_code",
                  "--trust"))
    plugin = sandbox.project / ".claude/skills/kit"
    edited = plugin / "skills/brainstorm/SKILL.md"
    edited.write_text(edited.read_text() + "my note\n")
    (plugin / "commands/mine.md").write_text("my own command\n")

    status = as_json(assert_ok(uze("status", "kit", "--json")))
    states = {key[:2]: row["state"] for key, row in _rows(status["packages"][0]).items()}
    assert states.pop(("skill", "brainstorm")) == "drifted"
    assert states.pop(("command", "tidy")) == "matched"
    assert set(states.values()) == {"matched"}, states

    done = assert_ok(uze("uninstall", "kit"))

    text = " ".join(done.stdout.split())
    assert "kept .claude/skills/kit/skills/brainstorm/SKILL.md: changed since install" in text
    assert "plugin manifest included" in text
    assert _plugin_files(plugin) == {"skills/brainstorm/SKILL.md": edited.read_bytes(),
                                     "commands/mine.md": b"my own command\n"}
    assert edited.read_text().endswith("my note\n")  # never a byte the user wrote changed
    assert not (plugin / ".claude-plugin").exists()  # Claude Code loads no plugin here
    assert snapshot(sandbox)["home"] == before["home"]
    assert as_json(assert_ok(uze("status", "--json")))["packages"] == []


def test_an_edited_plugin_manifest_is_kept_and_uninstall_says_claude_code_still_loads_it(
    sandbox: Sandbox, uze: Uze
) -> None:
    assert_ok(uze("install", _plugin(sandbox.root), "--harness", "claude_code", "--trust"))
    manifest = sandbox.project / ".claude/skills/kit/.claude-plugin/plugin.json"
    manifest.write_text('{"name": "kit", "version": "9"}')

    rows = _rows(as_json(assert_ok(uze("status", "kit", "--json")))["packages"][0])
    assert {row["state"] for row in rows.values()} == {"drifted"}  # it decides how each loads

    done = as_json(assert_ok(uze("uninstall", "kit", "--json")))

    actions = {a["target"]: (a["action"], a["detail"]) for a in done["actions"]}
    assert actions[".claude/skills/kit/.claude-plugin/plugin.json"][0] == "kept"
    assert "Claude Code still loads what is left" in actions[".claude/skills/kit"][1]
    assert _plugin_files(sandbox.project / ".claude/skills/kit") == {
        ".claude-plugin/plugin.json": b'{"name": "kit", "version": "9"}'}


@pytest.mark.parametrize(
    ("extra", "why"),
    [({"plugin.json": json.dumps({"name": "kit", "version": "1.0.0"})}, "a portable manifest"),
     ({"hooks/hooks.json": json.dumps({"hooks": {"SessionStart": [
         {"hooks": [{"type": "command", "command": None}]},
         {"hooks": [{"type": "command", "command": "echo ok"}]}]}})}, "a skipped hook group"),
     ({".mcp.json": json.dumps({"srv": {"command": "${PLUGIN_ROOT}/bin/srv"}})},
      "a root Claude Code does not expand")],
    ids=["portable-manifest", "skipped-part", "plugin-root-spelling"],
)
def test_a_package_uze_cannot_hand_over_whole_gets_a_generated_plugin(
    sandbox: Sandbox, uze: Uze, extra: dict[str, str], why: str
) -> None:
    source = _plugin(sandbox.root, **extra)
    before = snapshot(sandbox)
    document = as_json(assert_ok(uze("install", source, "--harness", "claude_code", "--trust",
                                     "--json")))

    rows = _rows(document)
    plugin = sandbox.project / ".claude/skills/kit"
    manifest = json.loads((plugin / ".claude-plugin/plugin.json").read_text())
    assert manifest == {"name": "kit", "version": "1.0.0"}, why  # uze's, not the package's
    assert (plugin / "commands/tidy.md").read_text() == COMMAND, why
    assert not (plugin / "hooks").exists(), why  # hooks stay in settings.json
    skill = rows[("skill", "brainstorm", "claude_code")]
    assert skill["target"] == ".claude/skills/kit/skills/brainstorm", why
    assert skill["label"] == "kit:brainstorm", why
    assert not skill["reason"].startswith("native package"), why
    assert "workspace is trusted" in skill["reason"], why
    assert_ok(uze("uninstall", "kit"))
    assert snapshot(sandbox)["project"] == before["project"], why


@pytest.mark.parametrize("scope", ["project", "user"])
def test_opencode_which_reads_claude_codes_skill_root_is_offered_the_skill_once_from_its_copy(
    sandbox: Sandbox, uze: Uze, scope: str
) -> None:
    document = as_json(assert_ok(uze("install", _plugin(sandbox.root), "--harness",
                                     "claude_code,opencode,codex", "--scope", scope,
                                     "--trust", "--json")))

    rows = _rows(document)
    opencode = rows[("skill", "brainstorm", "opencode")]
    assert (opencode["route"], opencode["label"]) == ("native", "kit-brainstorm"), opencode
    assert opencode["target"] == (".agents/skills/kit-brainstorm" if scope == "project"
                                  else "~/.agents/skills/kit-brainstorm"), opencode
    assert rows[("skill", "brainstorm", "codex")]["route"] == "native"  # reads other roots
    # Claude Code's plugin copy names no skill: OpenCode, scanning .claude/skills/**, lists
    # none from it (adr/0070; the real binary: tests/conformance/test_exactly_once.py)
    base = sandbox.project if scope == "project" else sandbox.home
    named = [p for p in (base / ".claude/skills").rglob("SKILL.md")
             if "\nname:" in p.read_text(encoding="utf-8")]
    assert named == []
    copy = (base / ".agents/skills/kit-brainstorm/SKILL.md").read_text(encoding="utf-8")
    assert copy.startswith("---\nname: kit-brainstorm\n"), copy
