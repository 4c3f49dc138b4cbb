"""The first `uze status` after another package's install (ADR 0107): the packages already
there are not taken apart again. Their folders and files are neither inspected, listed nor
read; only their records in the shared files the install rewrote are looked up, each once,
in one parse of each file. Counted, never timed."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import EVERY_KIND, copy_package
from uze.artifacts import parts, registry
from uze.commands.install import install
from uze.commands.status import StatusResult, status
from uze.paths import Paths
from uze.projections import config_entry, statcache
from uze.state.receipts import Artifact, load_receipt

SHARED = frozenset({"entry", "element", "region"})  # the kinds that live in a shared file


class Counted:
    """Every artifact status inspects, every file it reads and folder it lists, and every
    parse of a shared file."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.inspected: list[Artifact] = []
        self.read: list[str] = []
        self.listed: list[str] = []
        self.parsed = 0
        inspect, read, listed = registry.inspect_record, statcache.read_file, \
            statcache.list_folder
        parse = config_entry._parse

        def counted_inspect(ctx: object, record: Artifact) -> object:
            self.inspected.append(record)
            return inspect(ctx, record)  # type: ignore[arg-type]

        def counted_read(path: str) -> bytes:
            self.read.append(path)
            return read(path)

        def counted_list(path: str) -> list[str]:
            self.listed.append(path)
            return listed(path)

        def counted_parse(text: str, fmt: str) -> object:
            self.parsed += 1
            return parse(text, fmt)

        monkeypatch.setattr(registry, "inspect_record", counted_inspect)
        monkeypatch.setattr(statcache, "read_file", counted_read)
        monkeypatch.setattr(statcache, "list_folder", counted_list)
        monkeypatch.setattr(config_entry, "_parse", counted_parse)


def _install(paths: Paths, root: Path, project: Path, name: str) -> None:
    source = copy_package(EVERY_KIND, root / "sources" / name, name)
    install(paths, source, project=project, harness="claude_code,codex", trust=True, cwd=project)
    time.sleep(0.25)  # past the racy window (ADR 0011): what was just written is remembered


def _all_matched(found: StatusResult) -> None:
    # install() alone declares nothing in uze.toml (the command line does): "undeclared"
    assert {d.problem for d in found.differences} == {"undeclared"}
    assert {s for p in found.packages for s in p.states} == {"matched"}


def test_after_another_install_the_others_are_not_inspected_again(
        sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = sandbox.project
    paths = Paths(home=sandbox.home, uze_home=sandbox.uze_home, env={})
    for name in ("alpha", "beta", "gamma"):
        _install(paths, tmp_path, project, name)
    _all_matched(status(paths, cwd=project))  # learns every package

    with monkeypatch.context() as patch:
        counted = Counted(patch)
        _all_matched(status(paths, cwd=project))
    assert (counted.inspected, counted.read, counted.listed, counted.parsed) == ([], [], [], 0)

    _install(paths, tmp_path, project, "delta")
    receipts = {name: load_receipt(project / ".uze" / "receipts" / f"{name}.json")
                for name in ("alpha", "beta", "gamma", "delta")}
    with monkeypatch.context() as patch:
        counted = Counted(patch)
        found = status(paths, cwd=project)
    _all_matched(found)
    assert len(found.packages) == 4

    def count(name: str) -> Counter[str]:  # inspections of the package's own records, by kind
        mine = receipts[name].artifacts
        return Counter(r.type for r in counted.inspected if any(r == a for a in mine))

    for name in ("alpha", "beta", "gamma"):
        shared = [a for a in receipts[name].artifacts if a.type in SHARED]
        assert shared and len(shared) < len(receipts[name].artifacts)
        # only its records in the rewritten shared files, each once; no folder, no file
        assert count(name) == Counter(a.type for a in shared), name
        assert not [p for p in (*counted.read, *counted.listed) if f"/{name}" in p], name
    # the new package: every artifact, its plugin folder part by part (`parts.states`)
    whole = [a for a in receipts["delta"].artifacts if not parts.is_parted(a)]
    assert len(whole) < len(receipts["delta"].artifacts)
    assert count("delta") == Counter(a.type for a in whole)
    assert [p for p in counted.read if "/.claude/skills/delta/" in p]
    assert len(counted.inspected) == sum(
        sum(count(name).values()) for name in receipts)  # nothing else
    shared_files = {a.target for r in receipts.values() for a in r.artifacts
                    if a.type in ("entry", "element")}
    assert counted.parsed <= len(shared_files)  # each rewritten settings file parsed once

    with monkeypatch.context() as patch:  # and at those files' new stats: trusted again
        counted = Counted(patch)
        _all_matched(status(paths, cwd=project))
    assert (counted.inspected, counted.read, counted.listed, counted.parsed) == ([], [], [], 0)
