"""A plugin's own `<package>:<name>` references through the real `uze` command (adr/0049): every
harness's delivered text names each resource by that harness's label (read back from `status
--json`), Claude Code's plugin copy stays byte for byte, status finds every file as written and
uninstall leaves the disk as it was."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import THE_SEVEN, Uze, as_json, assert_ok, snapshot
from tests.helpers import build_tree
from uze.plan.skill_roots import unlisted_elsewhere

pytestmark = pytest.mark.e2e

# Each `{x}` is a reference: the package's text spells it as Claude Code lists it.
PLAN = ("Use {brainstorm} first, then {/sync} and the {lead} agent; not other:plan, "
        "kit:nope nor skills/kit:plan.\n```dot\n\"Use {brainstorm}\" -> \"{sync}\";\n```\n")
NOTES = "REQUIRED SUB-SKILL: {brainstorm}\n"
SYNC = "Then run `{plan}`.\n"
LEAD = "Follow {plan} (and {brainstorm}).\n"
FLOW = "Review with {review}; other:review stays.\n"
CLAUDE = {"brainstorm": "kit:brainstorm", "/sync": "/kit:git:sync", "sync": "kit:git:sync",
          "lead": "kit:team:lead", "plan": "kit:plan", "review": "flow:review"}
# (kind, resource) of each reference; `/sync` is typed after a slash.
NAMES = {"brainstorm": ("skill", "brainstorm"), "/sync": ("command", "sync"),
         "sync": ("command", "sync"), "lead": ("agent", "lead"), "plan": ("skill", "plan"),
         "review": ("skill", "review")}


def _packages(root: Path) -> tuple[Path, Path]:
    kit = build_tree(root / "kit", {
        ".claude-plugin/plugin.json": json.dumps({"name": "kit", "version": "1.0.0"}),
        "skills/plan/SKILL.md": "---\nname: plan\ndescription: Plans.\n---\n"
                                + PLAN.format_map(CLAUDE),
        "skills/plan/notes.md": NOTES.format_map(CLAUDE),
        "skills/plan/run.sh": "echo kit:brainstorm\n",
        "skills/brainstorm/SKILL.md": "---\nname: brainstorm\ndescription: Ideas.\n---\nAsk.\n",
        "commands/git/sync.md": "---\ndescription: Sync\n---\n" + SYNC.format_map(CLAUDE),
        "agents/team/planner.md": "---\nname: lead\ndescription: Leads.\n---\n"
                                  + LEAD.format_map(CLAUDE),
    })
    flow = build_tree(root / "flow", {
        "plugin.json": json.dumps({"name": "flow", "version": "1.0.0"}),
        "AGENTS.md": FLOW.format_map(CLAUDE),
        "skills/review/SKILL.md": "---\nname: review\ndescription: Reviews.\n---\nReview.\n",
    })
    return kit, flow


Row = Mapping[str, str]


def _labels(rows: list[Row], target: str, harness: str) -> dict[str, str]:
    """Each reference as the harnesses reading `target` list it (theirs first), else as written."""
    sharing = [r for r in rows if r["target"] == target]
    sharing.sort(key=lambda r: r["harness"] != harness)
    out = dict(CLAUDE)
    for key, (kind, resource) in NAMES.items():
        found = [r["label"] for r in sharing + rows
                 if (r["kind"], r["resource"]) == (kind, resource) and r["label"]
                 and r["harness"] in {s["harness"] for s in sharing}]
        if found:
            out[key] = f"/{found[0]}" if key.startswith("/") else found[0]
    return out


def _body(data: bytes) -> bytes:
    """A Markdown file's text after its frontmatter; a Codex TOML agent's instructions; a
    Gemini CLI TOML command's prompt."""
    text = data.decode()
    if text.startswith("---\n"):
        return text.split("---\n", 2)[2].encode()
    if text.startswith("description = "):
        return str(tomllib.loads(text)["prompt"]).encode()
    return text.split('developer_instructions = """', 1)[1].rsplit('"""', 1)[0].encode()


def test_every_harness_reads_the_plugins_references_under_its_own_labels(
    sandbox: Sandbox, uze: Uze
) -> None:
    kit, flow = _packages(sandbox.root)
    before = snapshot(sandbox)
    for source in (kit, flow):
        assert_ok(uze("install", source, *THE_SEVEN, "--trust"))

    status = as_json(assert_ok(uze("status", "--json")))
    rows: list[Row] = [dict(r, package=p["name"]) for p in status["packages"]
                       for r in p["projections"]]
    assert {r["state"] for r in rows} <= {"matched", "undelivered"}
    checked: set[tuple[str, str, str]] = set()
    for row in rows:
        if row["state"] != "matched":
            continue
        path = sandbox.project / row["target"].split("#")[0]
        labels = _labels(rows, row["target"], row["harness"])
        key = (row["kind"], row["resource"], row["harness"])
        if row["target"].startswith(".claude/skills/kit/"):  # Claude Code: its own plugin
            path = sandbox.project / ".claude/skills/kit"  # verbatim; the row names its part
            written = {p.relative_to(path).as_posix(): p.read_bytes()
                       for p in path.rglob("*") if p.is_file()}
            # but for each SKILL.md's frontmatter `name` (adr/0070)
            assert written == unlisted_elsewhere({p.relative_to(kit).as_posix(): p.read_bytes()
                                                  for p in kit.rglob("*") if p.is_file()})
            assert row["route"] == "native" and "rewritten" not in row["reason"]
        elif key[:2] == ("skill", "plan"):
            assert _body((path / "SKILL.md").read_bytes()) == PLAN.format_map(labels).encode()
            assert (path / "notes.md").read_bytes() == NOTES.format_map(labels).encode()
            assert (path / "run.sh").read_bytes() == b"echo kit:brainstorm\n"
            assert row["route"] != "native"
            assert f"kit:brainstorm as {labels['brainstorm']}" in row["reason"]
        elif key[:2] == ("skill", "brainstorm"):
            assert _body((path / "SKILL.md").read_bytes()) == b"Ask.\n"
            assert "rewritten" not in row["reason"]
        elif key[:2] == ("command", "sync"):
            data = (path / "SKILL.md" if path.is_dir() else path).read_bytes()
            assert _body(data) == SYNC.format_map(labels).encode()
        elif key[:2] == ("agent", "lead"):
            assert _body(path.read_bytes()) == LEAD.format_map(labels).encode()
        elif row["kind"] == "instructions":
            wanted = FLOW.format_map(labels)
            assert wanted in path.read_text(encoding="utf-8")
            assert ("rewritten" in row["reason"]) == (labels["review"] != "flow:review")
        else:
            continue
        checked.add(key)
    harnesses = {r["harness"] for r in rows}
    assert len(harnesses) == 7
    for harness in harnesses:  # every harness got text of each kind it delivers, checked
        assert ("skill", "plan", harness) in checked
        assert ("instructions", "AGENTS.md", harness) in checked
    assert len({k for k in checked if k[0] == "agent"}) >= 4
    assert len({k for k in checked if k[0] == "command"}) == 7

    for name in ("kit", "flow"):
        assert_ok(uze("uninstall", name))
    after = snapshot(sandbox)
    assert (after["project"], after["home"]) == (before["project"], before["home"])
