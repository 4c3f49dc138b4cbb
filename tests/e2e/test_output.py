"""Output a person reads (issue 30 item 12, adr/0066): install and check print one line per
harness, then only what needs attention, each reason once; the table of every row is behind
`--verbose` (and `uze status NAME`); `--quiet` prints nothing but errors; `--json` is the
same document whatever else is asked; doctor says an identical line once."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import EVERY_KIND, Uze, as_json, assert_ok, snapshot
from tests.helpers import build_tree, run_uze

pytestmark = pytest.mark.e2e

ALL = ("--harness", "all", "--trust")


# A table's header row, as plain text prints it when stdout is not a terminal (issue 32 item 4)
PLAN_TABLE = re.compile(r"^kind +resource +harness +route +action +target +note$", re.M)
MATRIX = re.compile(r"^resource +claude_code +codex +opencode +gemini_cli", re.M)


def _harness_lines(text: str) -> dict[str, str]:
    return {m[1]: m[2] for m in re.finditer(r"^  ([a-z_]+): (\d+ delivered.*)$", text, re.M)}


def test_install_prints_a_line_per_harness_then_each_reason_that_needs_attention_once(
    uze: Uze,
) -> None:
    rows = as_json(assert_ok(uze("install", EVERY_KIND, *ALL, "--dry-run", "--json")))[
        "projections"]
    text = assert_ok(uze("install", EVERY_KIND, *ALL)).stdout

    assert not PLAN_TABLE.search(text) and "[1]" not in text  # no table, no numbered notes
    lines = _harness_lines(text)
    assert list(lines) == ["claude_code", "codex", "opencode", "gemini_cli", "antigravity",
                           "kimi_code", "deepseek_harness"]
    for harness, line in lines.items():
        mine = [r for r in rows if r["harness"] == harness]
        lost = sum(r["route"] == "unsupported" for r in mine)
        assert line.startswith(f"{len(mine) - lost} delivered"), line
        assert line.endswith(f", {lost} not delivered") == bool(lost), line
    flat = " ".join(text.split())
    for route, title in (("degraded", "Degraded (delivered, part of the meaning lost)"),
                         ("unsupported", "Not delivered")):
        reasons = {r["reason"] for r in rows if r["route"] == route}
        assert reasons and title in text
        for reason in reasons:  # each reason once, however many rows it covers
            assert flat.count(" ".join(reason.split())) == 1, reason
    assert "Claude Code loads a project's plugins" not in flat  # a native row's reason
    assert "Every projection, its route and target: `uze status every-kind` or --verbose" in text


def test_verbose_prints_every_row_and_json_is_the_same_document_either_way(uze: Uze) -> None:
    verbose = assert_ok(uze("install", EVERY_KIND, *ALL, "--dry-run")).stdout  # the whole plan
    assert verbose == assert_ok(uze("install", EVERY_KIND, *ALL, "--dry-run", "--verbose")).stdout
    rows = as_json(assert_ok(uze("install", EVERY_KIND, *ALL, "--dry-run", "--json")))
    assert PLAN_TABLE.search(verbose) and "Per harness: " in verbose
    assert "┏" not in verbose and "│" not in verbose  # piped: plain columns, no rich borders
    assert verbose.count("every-kind-review") >= 6  # a row per harness that reads .agents
    assert rows == as_json(assert_ok(uze("install", EVERY_KIND, *ALL, "--dry-run", "--json",
                                         "--verbose")))
    assert rows == as_json(assert_ok(uze("install", EVERY_KIND, *ALL, "--dry-run", "--json",
                                         "--quiet")))


def test_quiet_prints_nothing_but_errors(sandbox: Sandbox, uze: Uze) -> None:
    done = uze("install", EVERY_KIND, *ALL, "--quiet")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert (sandbox.project / ".uze/receipts/every-kind.json").is_file()
    before = snapshot(sandbox)
    failed = uze("install", EVERY_KIND, "--harness", "nope", "--quiet")
    assert failed.returncode == 2 and failed.stdout == ""
    assert failed.stderr.startswith("uze: error: unknown harness 'nope'")
    assert snapshot(sandbox) == before


def test_check_prints_the_summary_and_the_matrix_behind_verbose(uze: Uze) -> None:
    text = assert_ok(uze("check", EVERY_KIND)).stdout
    assert text.startswith("every-kind 1.2.3: valid; routes install would take\n")
    assert not MATRIX.search(text) and len(_harness_lines(text)) == 7
    assert "It would run or allow (install asks before it does):" in text
    assert "Every resource by harness: --verbose" in text
    matrix = assert_ok(uze("check", EVERY_KIND, "--verbose")).stdout
    assert MATRIX.search(matrix) and "skill review" in matrix
    quiet = uze("check", EVERY_KIND, "--quiet")
    assert (quiet.returncode, quiet.stdout) == (0, "")


def test_status_verbose_prints_every_package_as_status_name_does(uze: Uze) -> None:
    assert_ok(uze("install", EVERY_KIND, *ALL, "--quiet"))
    verbose = assert_ok(uze("status", "--verbose")).stdout
    assert verbose == assert_ok(uze("status", "every-kind")).stdout
    assert "invoke as" in verbose


def test_doctor_says_a_line_shared_by_harnesses_once(sandbox: Sandbox, uze: Uze) -> None:
    empty = sandbox.root / "empty-bin"
    empty.mkdir()
    env = {**sandbox.env, "PATH": str(empty)}
    text = assert_ok(uze("doctor", env=env)).stdout
    flat = " ".join(text.split())
    assert flat.count("not on PATH") == 1, text
    assert ("claude_code (`claude`), codex (`codex`), opencode (`opencode`), gemini_cli "
            "(`gemini`)") in flat
    document = as_json(assert_ok(uze("doctor", "--json", env=env)))
    assert [h["installed"] for h in document["harnesses"]] == [False] * 7
    assert json.dumps(document)  # the document is unchanged in shape


# --------------------------------------------------------------------------- many packages

NOTES = {"plugins/notes/plugin.json": '{"name": "notes", "version": "1.0.0"}\n',
         "plugins/notes/skills/tips/SKILL.md":
             "---\nname: tips\ndescription: Tips.\n---\nThe tips.\n"}


def _blocks(text: str) -> dict[str, list[str]]:
    """The per-harness lines under each package's line (`name version: ...` or `name: ...`)."""
    found: dict[str, list[str]] = {}
    name = ""
    for line in text.splitlines():
        head = re.match(r"^([a-z][a-z0-9-]*)(?: [0-9][^ :]*)?: ", line)
        if head:
            name = head[1]
            found[name] = []
        elif name and re.match(r"^  [a-z_]+: \d+ delivered", line):
            found[name].append(line)
    return found


def _declared(sandbox: Sandbox) -> dict[str, list[str]]:
    """every-kind and notes declared in the project's uze.toml (nothing locked); the lines per
    harness a single install of each prints, installed in a project of its own."""
    shutil.copytree(EVERY_KIND, sandbox.project / "plugins/every-kind")
    build_tree(sandbox.project, NOTES)
    (sandbox.project / "uze.toml").write_text(
        '[packages]\nevery-kind = "./plugins/every-kind"\nnotes = "./plugins/notes"\n')
    alone = sandbox.root / "alone"
    (alone / ".uze").mkdir(parents=True)
    single = {}
    for name in ("every-kind", "notes"):
        text = assert_ok(run_uze("install", sandbox.project / "plugins" / name, *ALL,
                                 "--project", alone, cwd=alone)).stdout
        single[name] = [line for line in text.splitlines() if _harness_lines(line)]
    return single


def test_a_converge_prints_each_packages_lines_per_harness_as_a_single_install_does(
    sandbox: Sandbox, uze: Uze,
) -> None:
    single = _declared(sandbox)
    assert len(single["every-kind"]) == 7 and len(single["notes"]) == 7

    first = assert_ok(uze("install", *ALL)).stdout
    assert "every-kind 1.2.3: installed (./plugins/every-kind)" in first
    assert _blocks(first) == single
    again = assert_ok(uze("install")).stdout  # from the receipts: nothing written
    assert "notes 1.0.0: already installed (./plugins/notes)" in again
    assert _blocks(again) == single
    assert not PLAN_TABLE.search(again)
    document = as_json(assert_ok(uze("install", "--json")))
    rows = {p["name"]: p["projections"] for p in document["packages"]}
    assert {r["harness"] for r in rows["notes"]} == set(_harness_lines("\n".join(single["notes"])))
    flat = " ".join(again.split())
    reasons = {r["reason"] for r in rows["every-kind"] if r["route"] in ("degraded", "unsupported")}
    assert reasons and "Degraded (delivered, part of the meaning lost), by reason:" in again
    for reason in reasons:  # each reason once, its rows named with their package
        assert flat.count(" ".join(reason.split())) == 1, reason
    assert "codex: skill helper (every-kind)" in flat
    assert "Claude Code loads a project's plugins" not in flat  # a native row's reason
    assert "Every projection, its route and target: `uze status NAME` or --verbose" in again

    verbose = assert_ok(uze("install", "--verbose")).stdout
    assert len(PLAN_TABLE.findall(verbose)) == 2
    assert "unchanged" in verbose and "Degraded" not in verbose
    quiet = uze("install", "--quiet")
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")


def test_update_prints_the_lines_per_harness_of_each_package_it_moves(
    sandbox: Sandbox, uze: Uze,
) -> None:
    single = _declared(sandbox)
    assert_ok(uze("install", *ALL, "--quiet"))
    skill = sandbox.project / "plugins/notes/skills/tips/SKILL.md"
    skill.write_text(skill.read_text() + "More tips.\n")

    moved = assert_ok(uze("update")).stdout
    assert re.search(r"^every-kind 1\.2\.3: up to date \([0-9a-f]{12}\)$", moved, re.M)
    assert re.search(r"^notes: 1\.0\.0 -> 1\.0\.0 \([0-9a-f]{12} -> [0-9a-f]{12}\)$", moved, re.M)
    assert _blocks(moved) == {"every-kind": [], "notes": single["notes"]}
    assert "Every projection, its route and target: `uze status NAME` or --verbose" in moved
    assert (sandbox.project / ".claude/skills/notes/skills/tips/SKILL.md").read_text().endswith(
        "More tips.\n")

    skill.write_text(skill.read_text() + "Even more.\n")
    verbose = assert_ok(uze("update", "--verbose")).stdout
    assert len(PLAN_TABLE.findall(verbose)) == 1 and "replace" in verbose and "tips" in verbose
    skill.write_text(skill.read_text() + "And more.\n")
    before = (sandbox.project / "uze.lock").read_text()
    quiet = uze("update", "--quiet")
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")
    assert (sandbox.project / "uze.lock").read_text() != before  # it did move the pin
