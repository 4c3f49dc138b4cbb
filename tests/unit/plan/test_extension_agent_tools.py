"""A Gemini CLI extension's agent names its tools in Gemini CLI's words (`read_file`,
`run_shell_command`): the planner reads them as such, through the Gemini harness's own table
(`uze.harnesses.gemini_cli.CLAUDE_TOOL_NAMES`), so every harness keeps the restriction; a name
with no counterpart is named in a degraded reason, never dropped in silence. Pure planning on a
package read from a real folder."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.helpers import build_tree
from uze.harnesses import Location
from uze.package import read_package
from uze.paths import Paths
from uze.plan.model import PlannedFile, PlannedProjection, PlannedTree
from uze.plan.planner import plan_install

HARNESSES = ("claude_code", "gemini_cli", "opencode", "kimi_code", "codex")


def _extension(tmp_path: Path, tools: str) -> Path:
    return build_tree(tmp_path / "ext", {
        "gemini-extension.json": json.dumps({"name": "gem-agents", "version": "1.0.0"}),
        "agents/reviewer.md": f"---\nname: reviewer\ndescription: Reviews code.\nkind: local\n"
                              f"{tools}---\nReview the diff.\n",
    })


def _plan(tmp_path: Path, root: Path) -> tuple[dict[str, PlannedProjection], dict[str, object]]:
    """The agent's row per harness and the frontmatter each harness's file gets."""
    paths = Paths(home=tmp_path / "home", uze_home=tmp_path / "uze", env={})
    loc = Location("project", tmp_path / "project", paths)
    plan = plan_install(read_package(root), "0" * 64, loc, HARNESSES)
    rows = {p.harness: p for p in plan.projections if p.kind == "agent"}
    heads: dict[str, object] = {}
    for artifact in plan.artifacts:
        if isinstance(artifact, PlannedFile) and "agents" in artifact.target:
            data = artifact.data
        elif isinstance(artifact, PlannedTree) and "agents/reviewer.md" in artifact.files:
            data = artifact.files["agents/reviewer.md"]
        else:
            continue
        text = data.decode()
        for harness in artifact.harnesses:
            heads[harness] = yaml.safe_load(text.split("---\n")[1]) if text.startswith("---") \
                else text
    return rows, heads


def test_gemini_tool_names_keep_the_restriction_on_every_harness(tmp_path: Path) -> None:
    root = _extension(tmp_path, "tools:\n  - read_file\n  - run_shell_command\n")

    rows, heads = _plan(tmp_path, root)

    assert heads["claude_code"]["tools"] == ["Read", "Bash"]  # type: ignore[index]
    assert heads["gemini_cli"]["tools"] == ["read_file", "run_shell_command"]  # type: ignore[index]
    assert heads["gemini_cli"]["kind"] == "local"  # type: ignore[index]
    assert heads["opencode"]["tools"] == {  # type: ignore[index]
        "*": False, "read": True, "bash": True}
    assert heads["kimi_code"]["tools"] == ["Read", "Bash"]  # type: ignore[index]
    assert rows["claude_code"].route == "adapted", rows["claude_code"].reason
    assert "from gemini_cli's names: Read, Bash" in rows["claude_code"].reason
    assert rows["gemini_cli"].route == "native", rows["gemini_cli"].reason
    assert rows["codex"].route == "degraded"
    assert "tool allowlist not enforced (tools: Read, Bash)" in rows["codex"].reason


def test_a_gemini_tool_name_with_no_counterpart_is_named_and_degrades(tmp_path: Path) -> None:
    root = _extension(tmp_path, "tools: [read_file, save_memory]\n")

    rows, heads = _plan(tmp_path, root)

    assert heads["claude_code"]["tools"] == ["Read"]  # type: ignore[index]
    assert heads["gemini_cli"]["tools"] == ["read_file", "save_memory"]  # type: ignore[index]
    for harness in ("claude_code", "opencode", "kimi_code"):
        assert rows[harness].route == "degraded", rows[harness]
        assert "save_memory" in rows[harness].reason, rows[harness].reason
    assert rows["gemini_cli"].route == "native", rows["gemini_cli"].reason


def test_a_portable_agents_tools_are_still_claude_names(tmp_path: Path) -> None:
    root = build_tree(tmp_path / "pkg", {
        "plugin.json": json.dumps({"name": "pkg"}),
        "agents/reviewer.md": "---\nname: reviewer\ndescription: d\ntools: Read, Bash\n---\nx\n",
    })

    rows, heads = _plan(tmp_path, root)

    assert heads["gemini_cli"]["tools"] == ["read_file", "read_many_files",  # type: ignore[index]
                                            "run_shell_command"]
    assert heads["claude_code"]["tools"] == "Read, Bash"  # type: ignore[index]
    assert rows["claude_code"].route == "native"
