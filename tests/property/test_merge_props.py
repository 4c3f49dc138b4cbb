"""Issue 30 item 7 (adr/0063): a merge's conflict in uze.toml or uze.lock, as the real
`git merge-file` writes it, resolves package by package: both sides' entries where they change
different packages, no other pin moved; a package both sides changed is an error naming it and
both pins."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.gitserve import IDENTITY
from uze.errors import UzeError
from uze.paths import Paths
from uze.sources.lockfile import LockedPackage, dump_lock, parse_lock
from uze.sources.manifest import parse_manifest, render_manifest, updated_manifest
from uze.sources.markers import Sides, has_markers, split_sides
from uze.sources.merge import resolve_lock, resolve_manifest, sides_of
from uze.sources.stages import index_sides

NAMES = [f"pkg-{c}" for c in "abcdefghijkl"]


def _pin(name: str, n: int) -> LockedPackage:
    return LockedPackage(name=name, version=f"1.{n}.0", source="git+https://example.com/r.git",
                         subdirectory=f"plugins/{name}", commit=(f"{n:x}" * 40)[:40],
                         tree=(f"{n:x}" * 64)[:64],
                         harnesses=["claude_code", "codex"])


def merge_file(ours: bytes, base: bytes, theirs: bytes, tmp: Path, *, style: str) -> bytes:
    """What `git merge-file` makes of three versions (conflict markers labelled HEAD, base,
    feature)."""
    tmp.mkdir(parents=True, exist_ok=True)
    paths = []
    for label, data in (("ours", ours), ("base", base), ("theirs", theirs)):
        (tmp / label).write_bytes(data)
        paths.append(str(tmp / label))
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    done = subprocess.run(
        ["git", "merge-file", "-p", *([f"--{style}"] if style != "merge" else []),
         "-L", "HEAD", "-L", "base", "-L", "feature", *paths],
        capture_output=True, env=env, check=False, timeout=30)
    assert done.returncode >= 0, done.stderr
    return done.stdout


@st.composite
def histories(draw: st.DrawFn, *, removals: bool) -> tuple[dict[str, int], dict[str, int],
                                                           dict[str, int]]:
    """(base, ours, theirs) as name -> pin number: each side adds, changes (and, with
    `removals`, removes) packages the other side leaves alone."""
    base_names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=6))
    base = {name: i for i, name in enumerate(base_names)}
    mine = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=4))
    others = [n for n in NAMES if n not in mine]
    yours = draw(st.lists(st.sampled_from(others), unique=True, max_size=4)) if others else []
    sides = []
    for offset, touched in ((100, mine), (200, yours)):
        side = dict(base)
        for name in touched:
            if removals and name in side and draw(st.booleans()):
                del side[name]
            else:
                side[name] = offset + NAMES.index(name)
        sides.append(side)
    return base, sides[0], sides[1]


def _expected(base: dict[str, int], ours: dict[str, int], theirs: dict[str, int]) -> dict[str, int]:
    names = base.keys() | ours.keys() | theirs.keys()
    out = {}
    for name in names:
        pick = ours.get(name) if ours.get(name) != base.get(name) else theirs.get(name)
        if pick is not None:
            out[name] = pick
    return out


def _lock(pins: dict[str, int]) -> bytes:
    return dump_lock(_pin(name, n) for name, n in pins.items())


def _manifest(pins: dict[str, int]) -> bytes:
    return render_manifest({name: f"git+https://example.com/r.git@v{n}" for name, n in
                            pins.items()})


@pytest.mark.parametrize("style", ["merge", "diff3", "zdiff3"])
@given(history=histories(removals=False))
def test_a_lock_merge_of_different_packages_resolves_to_both_sides_moving_no_other_pin(
        tmp_path_factory: pytest.TempPathFactory, style: str,
        history: tuple[dict[str, int], dict[str, int], dict[str, int]]) -> None:
    base, ours, theirs = history
    merged = merge_file(_lock(ours), _lock(base), _lock(theirs),
                        tmp_path_factory.mktemp("merge"), style=style)
    want = {name: _pin(name, n) for name, n in _expected(base, ours, theirs).items()}
    if not has_markers(merged):  # git merged it cleanly: nothing for uze to do
        assert parse_lock(merged, "uze.lock") == want
        return
    try:
        pins, clean, _taken = resolve_lock(merged, "uze.lock")
    except UzeError as exc:  # without the base, a package both sides hold differently
        assert style != "diff3", exc.message
        assert "both sides of the merge changed" in exc.message
        return
    assert pins == want
    assert clean == dump_lock(want.values())


def _sides_read_back(merged: bytes) -> bool:
    """Whether each side put together from `merged` parses at all (git's own auto-merged lines
    outside the hunks can leave a package twice in one)."""
    sides = split_sides(merged, "uze.lock")
    try:
        parse_lock(sides.ours, "ours")
        parse_lock(sides.theirs, "theirs")
    except UzeError:
        return False
    return True


@given(history=histories(removals=True))
def test_with_the_merge_base_a_removal_on_one_side_stays_removed(
        tmp_path_factory: pytest.TempPathFactory,
        history: tuple[dict[str, int], dict[str, int], dict[str, int]]) -> None:
    base, ours, theirs = history
    want = _expected(base, ours, theirs)
    tmp = tmp_path_factory.mktemp("merge")
    merged = merge_file(_lock(ours), _lock(base), _lock(theirs), tmp, style="diff3")
    if has_markers(merged) and not _sides_read_back(merged):
        # git merged lines of both branches outside its hunks into one side's entries: uze
        # refuses by name instead of guessing whose lines they are
        with pytest.raises(UzeError, match="interleaved the two sides' entries"):
            resolve_lock(merged, "uze.lock")
        return
    pins = resolve_lock(merged, "uze.lock")[0] if has_markers(merged) \
        else parse_lock(merged, "uze.lock")
    assert pins == {name: _pin(name, n) for name, n in want.items()}
    merged = merge_file(_manifest(ours), _manifest(base), _manifest(theirs), tmp, style="diff3")
    declared = resolve_manifest(merged, "uze.toml")[0] if has_markers(merged) \
        else parse_manifest(merged, "uze.toml")
    assert declared == {name: f"git+https://example.com/r.git@v{n}" for name, n in want.items()}


def _git(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    return subprocess.run(["git", *IDENTITY, *args], cwd=cwd, env=env, capture_output=True,
                          check=False, timeout=60)


def git_merge(files: tuple[dict[str, bytes], dict[str, bytes], dict[str, bytes]], tmp: Path,
              style: str) -> Path:
    """A real repository where `main` (ours) merged `feature` (theirs), both from `base`, with
    `merge.conflictStyle` `style`; its work tree, the conflicts left as git leaves them."""
    base, ours, theirs = files
    _git("init", "-q", str(tmp), cwd=tmp.parent)
    for branch, content in (("main", base), ("feature", theirs), ("main", ours)):
        if branch == "feature":
            _git("checkout", "-q", "-b", "feature", cwd=tmp)
        elif content is ours:
            _git("checkout", "-q", "main", cwd=tmp)
        for name, data in content.items():
            (tmp / name).write_bytes(data)
        _git("add", "-A", cwd=tmp)
        _git("commit", "-q", "--allow-empty", "-m", branch, cwd=tmp)
    merged = _git("-c", f"merge.conflictStyle={style}", "merge", "-q", "feature", cwd=tmp)
    assert merged.returncode in (0, 1), merged.stderr
    return tmp


@given(history=histories(removals=True), style=st.sampled_from(["merge", "diff3", "zdiff3"]))
def test_with_gits_index_every_merge_of_different_packages_resolves_in_every_style(
        tmp_path_factory: pytest.TempPathFactory,
        history: tuple[dict[str, int], dict[str, int], dict[str, int]], style: str) -> None:
    """The markers alone cannot always say whose lines are whose (git's default style writes no
    base, and merges lines outside its hunks on its own); git's stages can (adr/0073): every
    merge of changes to different packages resolves to both sides' changes, nothing refused."""
    want = _expected(*history)
    files = tuple({"uze.lock": _lock(pins), "uze.toml": _manifest(pins)} for pins in history)
    work = git_merge(files, tmp_path_factory.mktemp("repo"), style)  # type: ignore[arg-type]
    paths = Paths(home=work, uze_home=work / ".uze-home", env=dict(os.environ))
    for name, read, resolve in (("uze.lock", parse_lock, resolve_lock),
                                ("uze.toml", parse_manifest, resolve_manifest)):
        raw = (work / name).read_bytes()
        if not has_markers(raw):  # git merged it cleanly: nothing for uze to do
            found = read(raw, name)
        else:
            index = index_sides(paths, work / name)
            assert index is not None
            found = resolve(raw, name, index)[0]
        assert found == ({n: _pin(n, i) for n, i in want.items()} if name == "uze.lock" else
                         {n: f"git+https://example.com/r.git@v{i}" for n, i in want.items()})


@given(history=histories(removals=False))
def test_a_manifest_merge_of_added_packages_is_uzes_own_rendering_of_both(
        tmp_path_factory: pytest.TempPathFactory,
        history: tuple[dict[str, int], dict[str, int], dict[str, int]]) -> None:
    base, ours, theirs = history
    want = _expected(base, ours, theirs)
    merged = merge_file(_manifest(ours), _manifest(base), _manifest(theirs),
                        tmp_path_factory.mktemp("merge"), style="diff3")
    if has_markers(merged):
        declared, clean, _taken = resolve_manifest(merged, "uze.toml")
        assert clean == _manifest(want)
        assert declared == parse_manifest(clean, "uze.toml")


@pytest.mark.parametrize("style", ["merge", "diff3", "zdiff3"])
def test_both_sides_moving_one_pin_is_an_error_naming_the_package_and_both_pins(
        tmp_path: Path, style: str) -> None:
    base = {"pkg-a": 1, "pkg-b": 2}
    merged = merge_file(_lock({**base, "pkg-b": 3}), _lock(base), _lock({**base, "pkg-b": 4}),
                        tmp_path, style=style)
    with pytest.raises(UzeError) as caught:
        resolve_lock(merged, "uze.lock")
    assert caught.value.message == ("uze.lock: both sides of the merge changed pkg-b; nothing "
                                    "was written")
    (line,) = caught.value.details
    assert line.startswith("pkg-b: HEAD pins git+https://example.com/r.git#subdirectory="
                           "plugins/pkg-b at 333333333333 (version 1.3.0, tree 333333333333)")
    assert line.endswith(", feature pins git+https://example.com/r.git#subdirectory=plugins/pkg-b"
                         " at 444444444444 (version 1.4.0, tree 444444444444)")


def test_a_manifest_the_user_wrote_keeps_the_first_sides_comments() -> None:
    raw = (b'# our plugins\n[packages]\nalpha = "./a"  # the first\n<<<<<<< HEAD\n'
           b'beta = "./b"\n=======\ngamma = "./g"\n>>>>>>> feature\n')
    declared, clean, taken = resolve_manifest(raw, "uze.toml")
    assert taken == ["beta from HEAD", "gamma from feature"]
    assert declared == {"alpha": "./a", "beta": "./b", "gamma": "./g"}
    assert clean == updated_manifest(b'# our plugins\n[packages]\nalpha = "./a"  # the first\n'
                                     b'beta = "./b"\n', "gamma", "./g", "uze.toml")
    assert clean.startswith(b'# our plugins\n[packages]\nalpha = "./a"  # the first\n')


@pytest.mark.parametrize("raw, problem", [
    (b"a\n<<<<<<< HEAD\nb\n=======\nc\n", "uze.lock: a conflict hunk is not closed"),
    (b"a\n=======\nc\n>>>>>>> x\n", "uze.lock:2: conflict marker out of order"),
    (b"<<<<<<< HEAD\n<<<<<<< HEAD\n", "uze.lock:2: conflict marker out of order"),
    (b"<<<<<<< HEAD\n=======\n||||||| base\n>>>>>>> x\n",
     "uze.lock:3: conflict marker out of order"),
])
def test_markers_out_of_order_are_an_error_naming_the_line(raw: bytes, problem: str) -> None:
    with pytest.raises(UzeError, match=problem):
        split_sides(raw, "uze.lock")


def test_a_reader_that_does_not_resolve_names_the_markers_and_uze_install() -> None:
    raw = b'[packages]\n<<<<<<< HEAD\na = "./a"\n=======\nb = "./b"\n>>>>>>> x\n'
    for parse in (parse_manifest, parse_lock):
        with pytest.raises(UzeError, match="has git conflict markers") as caught:
            parse(raw, "uze.toml")
        assert caught.value.hint is not None and "uze install" in caught.value.hint


def test_crlf_lines_and_long_markers_split_like_git_writes_them() -> None:
    raw = b'x\r\n<<<<<<<< HEAD\r\na\r\n|||||||| base\r\n======== \r\nb\r\n>>>>>>>> t\r\ny\r\n'
    sides = split_sides(raw, "f")
    assert (sides.ours, sides.theirs, sides.base) == (b"x\r\na\r\ny\r\n", b"x\r\nb\r\ny\r\n",
                                                      b"x\r\ny\r\n")
    assert not has_markers(b'a = "<<<<<<< not a marker"\n')


def test_a_file_edited_since_the_merge_is_read_from_its_markers_not_from_gits_stages() -> None:
    """The index holds what the branches committed; a line in the working file that neither
    committed is somebody's edit since the merge, and the index would silently drop it."""
    ours, theirs = _lock({"pkg-a": 1}), _lock({"pkg-a": 1, "pkg-b": 2})
    index = Sides(ours, theirs, _lock({"pkg-a": 1}), "", "")
    raw = _lock({"pkg-a": 1}) + b"<<<<<<< HEAD\n=======\n[[package]]" + \
        _lock({"pkg-b": 2}).split(b"[[package]]", 1)[1] + b">>>>>>> feature\n"
    assert sides_of(raw, "uze.lock", index)[1]  # only committed lines: git's stages
    edited = raw.replace(b'version = "1.2.0"', b'version = "9.9.9"')
    assert edited != raw
    sides, whole = sides_of(edited, "uze.lock", index)
    assert not whole and sides.theirs_label == "feature"
    taken = sides_of(raw, "uze.lock", index)[0]
    assert (taken.ours, taken.theirs, taken.ours_label) == (ours, theirs, "HEAD")
