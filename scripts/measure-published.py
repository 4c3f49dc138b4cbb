#!/usr/bin/env python3
"""Measure how many published plugins uze reads and installs: of the plugin folders their own
format's validator accepts, how many pass `uze check --harness all` and then install with
`uze install --harness all --trust` (issue 21's measure for Claude Code plugins, issue 31's for
Gemini CLI extensions and Codex plugins too).

Usage: python scripts/measure-published.py [--claude PATH] [--gemini PATH] [--out FILE] REPO_DIR...

Each REPO_DIR is a checkout of a public repository (fetched by you; nothing of it is copied
here). Every folder below it holding `.claude-plugin/plugin.json` (a Claude Code plugin, checked
with `claude plugin validate`), else `.codex-plugin/plugin.json` (a Codex plugin: codex 0.171.0
has no validator; its manifest must be a JSON object with a string `name`, which Codex's loader
requires), else `gemini-extension.json` (a Gemini CLI extension, `gemini extensions validate`)
is one plugin.
Each plugin is checked and installed with its own throw-away HOME, UZE_HOME and project, so
nothing of the user's is read or written and no plugin sees another's files; after the
install, `uze uninstall` must give the project back byte for byte (reported, not counted).
Prints one line per plugin uze refuses or fails to install (with the reasons) and the totals;
with --out, writes the same report as Markdown.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


MANIFESTS = {"claude": ".claude-plugin/plugin.json", "codex": ".codex-plugin/plugin.json",
             "gemini": "gemini-extension.json"}


def plugin_folders(repo: Path) -> list[tuple[Path, str]]:
    """Every folder under `repo` holding one of MANIFESTS, with its format; sorted."""
    found: dict[Path, str] = {}
    for fmt, manifest in reversed(MANIFESTS.items()):  # the first format named wins
        depth = manifest.count("/") + 1
        for path in repo.rglob(manifest.rsplit("/", 1)[-1]):
            folder = path.parents[depth - 1]
            if path == folder / manifest and "node_modules" not in path.parts:
                found[folder] = fmt
    return sorted(found.items())


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ, HOME=str(home), UZE_HOME=str(home / "uze"))
    env["PYTHONPATH"] = str(REPO)
    return env


def accepts(fmt: str, binaries: dict[str, str], folder: Path, home: Path) -> bool:
    """Whether the format's own validator passes (warnings allowed)."""
    if fmt == "codex":
        try:
            manifest = json.loads((folder / MANIFESTS["codex"]).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        return isinstance(manifest, dict) and isinstance(manifest.get("name"), str)
    command = {"claude": ["plugin", "validate"], "gemini": ["extensions", "validate"]}[fmt]
    result = subprocess.run([binaries[fmt], *command, str(folder)], env=_env(home),
                            capture_output=True, text=True, timeout=120, check=False)
    return result.returncode == 0


def uze_check(folder: Path, home: Path) -> tuple[bool, list[str], int]:
    """(passes, problem lines, warning count) of `uze check --harness all --json`; the lines
    of a refusal are the first six and every "nothing to deliver" line."""
    result = subprocess.run([sys.executable, "-m", "uze", "check", str(folder), "--harness",
                             "all", "--json"], env=_env(home), cwd=home, capture_output=True,
                            text=True, timeout=120, check=False)
    if result.returncode != 0:
        lines = [line for line in result.stderr.splitlines() if line]
        return False, lines[:6] + [line for line in lines[6:] if NOTHING in line], 0
    return True, [], len(json.loads(result.stdout).get("warnings", []))


NOTHING = "nothing to deliver"


def apps_only(fmt: str, folder: Path, problems: list[str]) -> bool:
    """Whether uze refused a Codex plugin as "nothing to deliver" and its manifest names
    `apps`: ChatGPT app connectors, which no harness installs from files (adr/0077). These
    are counted apart: the acceptance share is over the plugins that carry a file to deliver."""
    if fmt != "codex" or not any(NOTHING in line for line in problems):
        return False
    manifest = json.loads((folder / MANIFESTS["codex"]).read_text(encoding="utf-8"))
    return manifest.get("apps") not in (None, "", [], {})


class Installed:
    """What `uze install` then `uze uninstall` did with one plugin in a fresh project."""

    def __init__(self, ok: bool, problems: list[str], leftover: list[str]) -> None:
        self.ok = ok
        self.problems = problems
        self.leftover = leftover


def _tree(root: Path) -> dict[str, str]:
    """Relative path -> digest of every file and link under `root` (folders are implied)."""
    found: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        if path.is_symlink():
            found[key] = "link:" + str(path.readlink())
        elif path.is_file():
            found[key] = hashlib.sha256(path.read_bytes()).hexdigest()
        elif not any(path.iterdir()):
            found[key] = "empty folder"
    return found


def uze_install(folder: Path, scratch: Path) -> Installed:
    """Install `folder` for every harness into a fresh project, then uninstall it and compare."""
    home, project = scratch / "home", scratch / "project"
    home.mkdir()
    project.mkdir()
    before = _tree(project), _tree(home)
    result = subprocess.run([sys.executable, "-m", "uze", "install", str(folder), "--harness",
                             "all", "--trust", "--json", "--project", str(project)],
                            env=_env(home), cwd=project, capture_output=True, text=True,
                            timeout=300, check=False)
    if result.returncode != 0:
        return Installed(False, [line for line in result.stderr.splitlines() if line][:6], [])
    name = json.loads(result.stdout)["package"]["name"]
    removed = subprocess.run([sys.executable, "-m", "uze", "uninstall", name, "--project",
                              str(project)], env=_env(home), cwd=project, capture_output=True,
                             text=True, timeout=300, check=False)
    if removed.returncode != 0:
        return Installed(True, [], ["uninstall: " + " | ".join(removed.stderr.splitlines()[:4])])
    after = _tree(project), _tree(home)
    leftover = sorted(
        f"{label}/{key}"
        for label, old, new in (("project", before[0], after[0]), ("home", before[1], after[1]))
        for key in set(old) ^ set(new) | {k for k in set(old) & set(new) if old[k] != new[k]}
        if not (label == "home" and key.split("/")[0] == "uze")  # UZE_HOME: store, consent
    )
    return Installed(True, [], leftover)


Row = tuple[str, bool, bool, list[str], int, "Installed | None", str, bool]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="+", type=Path)
    parser.add_argument("--claude", default=str(REPO / ".cache/harnesses/bin/claude"))
    parser.add_argument("--gemini", default=str(REPO / ".cache/harnesses/bin/gemini"))
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    binaries = {"claude": args.claude, "gemini": args.gemini}
    rows: list[Row] = []
    for repo in (path.resolve() for path in args.repos):
        for folder, fmt in plugin_folders(repo):
            label = f"{repo.name}/{folder.relative_to(repo)}".rstrip("/.")
            with tempfile.TemporaryDirectory() as tmp:
                home = Path(tmp)
                accepted = accepts(fmt, binaries, folder, home)
                ok, problems, warnings = uze_check(folder, home)
            installed = None
            if accepted and ok:
                with tempfile.TemporaryDirectory() as tmp:
                    installed = uze_install(folder, Path(tmp))
            rows.append((label, accepted, ok, problems, warnings, installed, fmt,
                         accepted and apps_only(fmt, folder, problems)))
            print(f"{label} ({fmt}): {'accepted' if accepted else 'refused'}, check "
                  f"{'passes' if ok else 'refuses'}, install "
                  f"{'-' if installed is None else 'ok' if installed.ok else 'fails'}",
                  file=sys.stderr)
    report = "\n\n".join(f"### {fmt}\n\n" + _report([r for r in rows if r[6] == fmt])
                           for fmt in MANIFESTS if any(r[6] == fmt for r in rows))
    print(report)
    if args.out:
        args.out.write_text(report + "\n", encoding="utf-8")
    return 0


def _report(rows: list[Row]) -> str:
    apps = [row for row in rows if row[7]]
    accepted = [row for row in rows if row[1] and not row[7]]
    passed = [row for row in accepted if row[2]]
    installed = [row for row in passed if row[5] is not None and row[5].ok]
    share = 100 * len(passed) / len(accepted) if accepted else 100.0
    both = 100 * len(installed) / len(accepted) if accepted else 100.0
    counted = (f"{len(accepted) + len(apps)}, of which {len(apps)} are app connectors only "
               f"(counted apart, see below); of the other {len(accepted)}" if apps
               else f"{len(accepted)}; of those")
    lines = [
        f"plugin folders: {len(rows)}; its validator accepts {counted} "
        f"`uze check --harness all` passes {len(passed)} ({share:.1f}%); "
        f"{sum(row[4] for row in passed)} warnings among them; "
        f"`uze check` passes and `uze install --harness all --trust` succeeds for "
        f"{len(installed)} ({both:.1f}%)",
        "",
        f"Accepted by the validator, app connectors only (refused: nothing to deliver; not "
        f"counted above, adr/0077): {len(apps)}"
        + (f"; over all {len(accepted) + len(apps)} accepted, installs "
           f"{len(installed)} ({100 * len(installed) / (len(accepted) + len(apps)):.1f}%)"
           if apps else ""),
        "",
        "Accepted by the validator, refused by `uze check`:",
    ]
    lines += [f"- {row[0]}: {' | '.join(row[3])}" for row in accepted if not row[2]] or ["- none"]
    lines += ["", "Accepted by the validator and `uze check`, failed `uze install`:"]
    lines += [f"- {row[0]}: {' | '.join(row[5].problems)}" for row in passed
              if row[5] is not None and not row[5].ok] or ["- none"]
    lines += ["", "Installed, but `uze uninstall` did not give the project and HOME back "
              "byte for byte (not counted above):"]
    lines += [f"- {row[0]}: {', '.join(row[5].leftover[:8])}" for row in installed
              if row[5] is not None and row[5].leftover] or ["- none"]
    lines += ["", "Refused by the validator (not counted):"]
    lines += [f"- {row[0]} (uze: {'passes' if row[2] else 'refuses'})"
              for row in rows if not row[1]] or ["- none"]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
