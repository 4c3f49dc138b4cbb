"""A Claude-native plugin's manifest, however shaped, runs nothing on Claude Code unseen (ADR 0055).

Hostile manifests are drawn with the keys Claude Code starts things from (`mcpServers`,
`lspServers`, `monitors`, `experimental`, `workflows`, `dependencies`, made-up keys) holding
records, lists, paths and odd JSON, with `command` strings planted at any depth. For each, the
plan for Claude Code either refuses the package, or does not deliver the manifest (Claude Code
gets uze's generated one), or lists every planted command among the plan's executions: what
`uze check` prints and install asks about. Nothing raises but PackageInvalid.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import event, given
from hypothesis import strategies as st

from tests.helpers import build_tree
from uze.errors import PackageInvalid
from uze.harnesses import Location
from uze.package import read_package
from uze.paths import Paths
from uze.plan.model import PlannedTree
from uze.plan.planner import plan_install

MARK = "uze-planted-"
MONITORS = "monitors/monitors.json"
KEYS = ["mcpServers", "lspServers", "monitors", "experimental", "workflows", "dependencies",
        "channels", "futureKey", "settings"]
COMMANDS = st.integers(0, 999).map(lambda n: f"{MARK}{n}")
LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from(
    ["", "./x.json", "${CLAUDE_PLUGIN_ROOT}/bin/x", "gopls", "q\"uote"]))


def _node(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    names = st.sampled_from(["a", "b", "command", "args", "monitors", "name", "env", "url"])
    runnable = st.fixed_dictionaries({"command": COMMANDS}, optional={
        "args": st.lists(LEAVES.map(str), max_size=2), "name": st.sampled_from(["m", "n"]),
        "env": st.dictionaries(st.sampled_from(["K"]), st.just("v"))})
    return st.one_of(st.lists(children, max_size=3), st.dictionaries(names, children, max_size=3),
                     runnable, st.dictionaries(st.sampled_from(["s1", "s2"]), runnable,
                                               min_size=1, max_size=2))


VALUES = st.recursive(LEAVES | COMMANDS, _node, max_leaves=8)
MANIFESTS = st.dictionaries(st.sampled_from(KEYS), VALUES, min_size=1, max_size=3)


def _planted(value: Any) -> set[str]:
    """Every planted command anywhere in `value`."""
    if isinstance(value, str):
        return {value} if value.startswith(MARK) else set()
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) \
        else ()
    return set().union(set(), *map(_planted, items))


def _commands(entries: Any) -> set[str]:
    """The planted `command` of each entry (a mapping) of `entries`: what Claude Code starts."""
    bodies = entries.values() if isinstance(entries, dict) else entries \
        if isinstance(entries, list) else ()
    return {body["command"] for body in bodies if isinstance(body, dict)
            and isinstance(body.get("command"), str) and body["command"].startswith(MARK)}


def _servers(value: Any) -> set[str]:
    found: set[str] = set()
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, dict):
            inner = item.get("mcpServers")
            found |= _commands(inner if isinstance(inner, dict) else item)
    return found


def _expected(manifest: dict[str, Any], files: dict[str, Any]) -> set[str]:
    """What Claude Code's plugin schema starts: each server's and monitor's command, inline
    or in the default files; and everything under a key it may act on that uze does not read
    (listed as written)."""
    experimental = manifest.get("experimental")
    extra = experimental if isinstance(experimental, dict) else {}
    monitors = extra.get("monitors", manifest.get("monitors", files.get(MONITORS)))
    found = _servers(manifest.get("mcpServers")) | _servers(manifest.get("lspServers"))
    found |= _servers(files.get(".lsp.json")) | (_commands(monitors) if isinstance(
        monitors, list) else set())
    found |= set().union(set(), *(_planted(v) for k, v in manifest.items() if k in (
        "dependencies", "channels", "futureKey", "settings")))
    found |= set().union(set(), *(_planted(v) for k, v in extra.items()
                                  if k not in ("monitors", "workflows", "themes")))
    if not isinstance(experimental, dict):
        found |= _planted(experimental)
    return found


@given(MANIFESTS, st.dictionaries(st.sampled_from([".lsp.json", "x.json", MONITORS]), VALUES,
                                  max_size=2))
def test_every_command_a_whole_plugin_declares_is_listed_or_the_manifest_is_not_delivered(
        extra: dict[str, Any], files: dict[str, Any]) -> None:
    manifest = {"name": "sly", "version": "1.0.0", **extra}
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        pkg = build_tree(root / "pkg", {
            ".claude-plugin/plugin.json": json.dumps(manifest),
            "skills/notes/SKILL.md": "---\nname: notes\ndescription: n\n---\nn\n",
            **{rel: json.dumps(value) for rel, value in files.items()}})
        try:
            package = read_package(pkg)
        except PackageInvalid:
            event("refused")
            return  # refused: nothing is delivered
        env = {"HOME": str(root / "home"), "UZE_HOME": str(root / "uze")}
        loc = Location("project", root / "project", Paths.from_env(env))
        plan = plan_install(package, "0" * 64, loc, ("claude_code",))
    folder = next(a for a in plan.artifacts if isinstance(a, PlannedTree))
    delivered = folder.files.get(".claude-plugin/plugin.json")
    if delivered != package.files[".claude-plugin/plugin.json"].data:
        event("manifest not delivered")
        return  # Claude Code gets uze's generated manifest, not this one
    event("delivered whole")
    shown = "\n".join(e.describe() for e in plan.executions)
    missing = {c for c in _expected(extra, files) if c not in shown}
    assert not missing, (missing, shown)
