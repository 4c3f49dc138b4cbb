#!/usr/bin/env python3
"""Measure how the plugins of published marketplaces install as `owner/repo --plugin NAME`
(issue 31 item 4): of each marketplace's plugins whose folder is inside the repository, how
many install with `uze install git+file://REPO#plugin=NAME --harness all --trust`, with each
skill exactly once in every harness, and uninstall to the bytes the project and HOME held;
with --claude, whether the skills and commands uze delivers to Claude Code are those real
Claude Code lists for the same plugin installed from the same marketplace (its meaning).

Usage: python scripts/measure-marketplaces.py [--claude PATH] [--out FILE] GIT_DIR...

Each GIT_DIR is a git repository (bare or not) of a public marketplace, fetched by you; uze
reads it over file://, nothing of it is copied here. Plugins whose source is elsewhere (github,
url, git-subdir) need the network and are counted apart. Every install gets its own throw-away
HOME, UZE_HOME and project. The Claude Code oracle: one HOME per marketplace, the marketplace
added from a checkout (`claude plugin marketplace add DIR`), each plugin installed (`claude
plugin install NAME@MARKET`), then `claude -p /context`'s init event lists `NAME:skill`.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
CATALOGS = (".claude-plugin/marketplace.json", ".agents/plugins/marketplace.json")


def _env(home: Path) -> dict[str, str]:
    return dict(os.environ, HOME=str(home), UZE_HOME=str(home / "uze"), PYTHONPATH=str(REPO),
                CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")


def _run(args: list[str], cwd: Path, env: dict[str, str], timeout: int = 600
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


def _uze(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return _run([sys.executable, "-m", "uze", *args], cwd, env)


def catalog(git_dir: Path) -> tuple[str, dict[str, Any]]:
    """(catalog path, catalog) at HEAD, Claude Code's first."""
    for rel in CATALOGS:
        shown = subprocess.run(["git", f"--git-dir={_git_dir(git_dir)}", "show", f"HEAD:{rel}"],
                               capture_output=True, text=True, check=False)
        if shown.returncode == 0:
            return rel, json.loads(shown.stdout)
    raise SystemExit(f"{git_dir}: no marketplace at its root")


def _git_dir(path: Path) -> Path:
    return path / ".git" if (path / ".git").exists() else path


def _local(entry: dict[str, Any]) -> bool:
    source = entry.get("source")
    return isinstance(source, str) or (isinstance(source, dict)
                                       and source.get("source") == "local")


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_bytes().hex() if p.is_file() else "d"
            for p in sorted(root.rglob("*")) if not p.is_symlink()}


def install(url: str, name: str, scratch: Path) -> dict[str, Any]:
    """Install plugin `name` alone; its skill rows per harness, and whether uninstall restored
    the project and HOME."""
    home, project = scratch / "home", scratch / "project"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    env = _env(home)
    before = (_tree(project), {k: v for k, v in _tree(home).items() if not k.startswith("uze")})
    done = _uze("install", f"{url}#plugin={name}", "--harness", "all", "--trust", cwd=project,
                env=env)
    if done.returncode != 0:
        return {"ok": False, "why": (done.stderr.strip().splitlines() or ["?"])[0]}
    status = json.loads(_uze("status", name, "--json", cwd=project, env=env).stdout)
    rows: dict[str, list[str]] = collections.defaultdict(list)
    invoked: set[str] = set()  # what Claude Code offers of it: skills and commands
    for row in status["packages"][0]["projections"]:
        if row["kind"] == "skill":
            rows[row["harness"]].append(row["label"])
        if row["kind"] in ("skill", "command") and row["harness"] == "claude_code":
            invoked.add(row["label"].split(":", 1)[-1])
    _uze("uninstall", name, cwd=project, env=env)
    after = (_tree(project), {k: v for k, v in _tree(home).items() if not k.startswith("uze")})
    return {"ok": True, "rows": dict(rows), "claude": invoked, "restored": before == after}


def claude_listing(git_dir: Path, market: str, names: list[str], claude: str, scratch: Path
                   ) -> dict[str, set[str]]:
    """What real Claude Code lists of each plugin: {plugin: {skill, ...}}."""
    checkout = scratch / "checkout"
    subprocess.run(["git", "clone", "-q", str(git_dir), str(checkout)], check=True)
    # the official names are reserved for marketplaces added from github.com/anthropics: the
    # checkout's catalog is renamed (its plugins are not touched)
    catalog_file = checkout / ".claude-plugin" / "marketplace.json"
    data = json.loads(catalog_file.read_text(encoding="utf-8"))
    market = data["name"] = f"measured-{market}"
    catalog_file.write_text(json.dumps(data), encoding="utf-8")
    home, cwd = scratch / "claude-home", scratch / "claude-project"
    home.mkdir()
    cwd.mkdir()
    env = _env(home)
    added = _run([claude, "plugin", "marketplace", "add", str(checkout)], cwd, env)
    if added.returncode != 0:
        raise SystemExit(f"claude plugin marketplace add: {added.stdout}{added.stderr}")
    for name in names:
        _run([claude, "plugin", "install", f"{name}@{market}"], cwd, env)
    events = _run([claude, "-p", "/context", "--output-format", "stream-json", "--verbose"],
                  cwd, env).stdout
    listed: dict[str, set[str]] = collections.defaultdict(set)
    for line in events.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("subtype") == "init":  # a command is a skill there too: both counted
            for skill in [*(event.get("skills") or []), *(event.get("slash_commands") or [])]:
                plugin, colon, rest = skill.partition(":")
                if colon:
                    listed[plugin].add(rest)
    return listed


def measure(git_dir: Path, claude: str | None) -> list[str]:
    """One Markdown block for the marketplace at `git_dir`."""
    rel, data = catalog(git_dir)
    url = f"git+file://{git_dir.resolve()}"
    entries = data.get("plugins") or []
    local = [e["name"] for e in entries if isinstance(e, dict) and _local(e)]
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="uze-measure-", ignore_cleanup_errors=True) as scratch:
        for index, name in enumerate(local):
            results[name] = install(url, name, Path(scratch) / str(index))
        oracle = claude_listing(git_dir, data.get("name", ""), local, claude, Path(scratch)) \
            if claude and rel.startswith(".claude") else None
    lines, ok, once, restored, same = [], 0, 0, 0, 0
    for name in local:
        found = results[name]
        if not found["ok"]:
            lines.append(f"- {name}: refused: {found['why']}")
            continue
        ok += 1
        rows = found["rows"]
        sets = {h: collections.Counter(labels) for h, labels in rows.items()}
        exactly = all(n == 1 for c in sets.values() for n in c.values()) and \
            len({len(c) for c in sets.values()}) <= 1
        once += exactly
        restored += found["restored"]
        if not exactly:
            lines.append(f"- {name}: a skill not exactly once per harness: {rows}")
        if not found["restored"]:
            lines.append(f"- {name}: uninstall did not restore the project and HOME")
        if oracle is not None:
            theirs = oracle.get(name, set())
            mine = found["claude"]
            same += theirs == mine
            if theirs != mine:
                lines.append(f"- {name}: Claude Code lists {sorted(theirs)}, uze delivered "
                             f"{sorted(mine)}")
    head = (f"{git_dir.parent.name if git_dir.name in ('repo', '.git') else git_dir.name} "
            f"({rel}): {len(entries)} plugins, {len(local)} inside the repository; install "
            f"{ok}; each skill exactly once in every harness {once}; uninstall byte for byte "
            f"{restored}" + (f"; same skills and commands as Claude Code lists {same}"
                             if oracle is not None else ""))
    return [head, *lines]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claude", help="the claude binary (the meaning's oracle)")
    parser.add_argument("--out", type=Path)
    parser.add_argument("repos", nargs="+", type=Path)
    args = parser.parse_args()
    report = []
    for repo in args.repos:
        block = measure(repo, args.claude)
        print("\n".join(block), flush=True)
        report += [*block, ""]
    if args.out:
        args.out.write_text("\n".join(report), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
