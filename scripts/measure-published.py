#!/usr/bin/env python3
"""Measure how many published Claude Code plugins uze reads: of the plugin folders that
`claude plugin validate` accepts, how many pass `uze check --harness all` (issue 21).

Usage: python scripts/measure-published.py [--claude PATH] [--out FILE] REPO_DIR...

Each REPO_DIR is a checkout of a public marketplace repository (fetched by you; nothing of it
is copied here). Every folder below it holding `.claude-plugin/plugin.json` is one plugin.
Each command runs with a throw-away HOME and UZE_HOME, so nothing of the user's is read or
written. Prints one line per plugin uze refuses (with the reasons) and the totals; with
--out, writes the same report as Markdown.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def plugin_folders(repo: Path) -> list[Path]:
    """Every folder under `repo` with a `.claude-plugin/plugin.json`, sorted."""
    return sorted(p.parent.parent for p in repo.rglob(".claude-plugin/plugin.json"))


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ, HOME=str(home), UZE_HOME=str(home / "uze"))
    env["PYTHONPATH"] = str(REPO)
    return env


def claude_accepts(claude: str, folder: Path, home: Path) -> bool:
    """Whether `claude plugin validate` passes (warnings allowed)."""
    result = subprocess.run([claude, "plugin", "validate", str(folder)], env=_env(home),
                            capture_output=True, text=True, timeout=120, check=False)
    return result.returncode == 0


def uze_check(folder: Path, home: Path) -> tuple[bool, list[str], int]:
    """(passes, problem lines, warning count) of `uze check --harness all --json`."""
    result = subprocess.run([sys.executable, "-m", "uze", "check", str(folder), "--harness",
                             "all", "--json"], env=_env(home), cwd=home, capture_output=True,
                            text=True, timeout=120, check=False)
    if result.returncode != 0:
        return False, [line for line in result.stderr.splitlines() if line][:6], 0
    return True, [], len(json.loads(result.stdout).get("warnings", []))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="+", type=Path)
    parser.add_argument("--claude", default=str(REPO / ".cache/harnesses/bin/claude"))
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    rows: list[tuple[str, bool, bool, list[str], int]] = []
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        for repo in args.repos:
            for folder in plugin_folders(repo):
                label = f"{repo.name}/{folder.relative_to(repo)}"
                accepted = claude_accepts(args.claude, folder, home)
                ok, problems, warnings = uze_check(folder, home)
                rows.append((label, accepted, ok, problems, warnings))
    report = _report(rows)
    print(report)
    if args.out:
        args.out.write_text(report + "\n", encoding="utf-8")
    return 0


def _report(rows: list[tuple[str, bool, bool, list[str], int]]) -> str:
    accepted = [row for row in rows if row[1]]
    passed = [row for row in accepted if row[2]]
    share = 100 * len(passed) / len(accepted) if accepted else 100.0
    lines = [
        f"plugin folders: {len(rows)}; `claude plugin validate` accepts {len(accepted)}; "
        f"of those `uze check --harness all` passes {len(passed)} ({share:.1f}%); "
        f"{sum(row[4] for row in passed)} warnings among them",
        "",
        "Accepted by claude, refused by uze:",
    ]
    lines += [f"- {row[0]}: {' | '.join(row[3])}" for row in accepted if not row[2]] or ["- none"]
    lines += ["", "Refused by claude (not counted):"]
    lines += [f"- {row[0]} (uze: {'passes' if row[2] else 'refuses'})"
              for row in rows if not row[1]] or ["- none"]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
