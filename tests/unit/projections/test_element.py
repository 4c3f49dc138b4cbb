"""Hook groups in an array of every package's: each one's state and removal looked up among
the groups that hold its marker, with the verdicts and bytes of hashing every group."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from uze import memo
from uze.projections import config_array as ca
from uze.projections import element
from uze.projections.entry import value_digest
from uze.transaction import Transaction

STOP = ("hooks", "Stop")


def _group(package: str) -> dict[str, Any]:
    wrapper = f".uze/hooks/{package}/claude_code/Stop-0.py"
    return {"hooks": [{"type": "command", "command": f'"${{CLAUDE_PROJECT_DIR}}"/{wrapper}',
                       "timeout": 35}]}


def _marker(package: str) -> str:
    return f".uze/hooks/{package}/claude_code/Stop-0.py"


def _write(path: Path, groups: list[Any]) -> bytes:
    data = json.dumps({"hooks": {"Stop": groups}}, indent=2).encode()
    path.write_bytes(data)
    return data


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[object]]:
    """Every value `element` hashes, in order."""
    memo.forget()
    seen: list[object] = []

    def counting(value: object) -> str:
        seen.append(value)
        return value_digest(value)

    monkeypatch.setattr(element, "value_digest", counting)
    yield seen
    memo.forget()


def _packages(count: int) -> list[dict[str, Any]]:
    return [_group(f"p{i:03}") for i in range(count)]


def test_a_group_among_two_hundred_is_found_by_hashing_only_the_ones_holding_its_marker(
    tmp_path: Path, hashed: list[object]
) -> None:
    """Issue 32: uninstall and status of one package hash its own group, not every
    package's (the old lookup hashed all 200)."""
    path = tmp_path / "settings.json"
    groups = _packages(200)
    _write(path, groups)
    state = element.inspect(path, "json", STOP, value_digest(groups[120]), _marker("p120"))
    assert state == "matched"
    assert hashed == [groups[120]]


def test_a_new_group_with_its_value_known_is_missing_after_hashing_none(
    tmp_path: Path, hashed: list[object]
) -> None:
    """Install (adopt): the planned group's marker is in one of its strings, so a group of
    that digest would hold it; no group does, so none is hashed (the old lookup: 200)."""
    path = tmp_path / "settings.json"
    _write(path, _packages(200))
    new = _group("p999")
    assert element.inspect(path, "json", STOP, value_digest(new), _marker("p999"),
                           new) == "missing"
    assert hashed == []


def test_an_edited_group_is_drifted_and_only_it_is_hashed(
    tmp_path: Path, hashed: list[object]
) -> None:
    path = tmp_path / "settings.json"
    groups = _packages(50)
    mine = groups[7]
    groups[7] = {**mine, "matcher": "Bash"}  # the user narrowed it
    _write(path, groups)
    state = element.inspect(path, "json", STOP, value_digest(mine), _marker("p007"), mine)
    assert state == "drifted"
    assert hashed == [groups[7]]


def test_without_the_value_a_group_holding_no_marker_is_still_found_by_its_digest(
    tmp_path: Path, hashed: list[object]
) -> None:
    """A marker that a group's repr escapes (a backslash in a Windows-style path) is in no
    repr; the digest still finds the group, as hashing every group did, and without its
    value nothing shows that the group would hold the marker: every group is hashed."""
    path = tmp_path / "settings.json"
    mine = {"hooks": [{"type": "command", "command": "C:\\hooks\\p1.py"}]}
    groups = [*_packages(5), mine]
    _write(path, groups)
    digest = value_digest(mine)
    assert element.inspect(path, "json", STOP, digest, "C:\\hooks\\p1.py") == "matched"
    assert len(hashed) == 6
    memo.forget()
    hashed.clear()
    assert element.inspect(path, "json", STOP, digest, "C:\\hooks\\p1.py", mine) == "matched"
    assert len(hashed) == 6  # the value shows the marker is escaped: all hashed


def test_many_questions_about_one_array_hash_it_once(
    tmp_path: Path, hashed: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Status: every package's group looked up in the same parse; after a few lookups by
    marker, one pass over every group answers the rest, and the text is not searched for
    their markers again (a search of a 190 KB text per group would cost more than a
    lookup)."""
    searched: list[str] = []
    nowhere = element._nowhere
    monkeypatch.setattr(element, "_nowhere",
                        lambda data, fmt, marker: searched.append(marker) or nowhere(
                            data, fmt, marker))
    path = tmp_path / "settings.json"
    groups = _packages(40)
    _write(path, groups)
    states = [element.inspect(path, "json", STOP, value_digest(group), _marker(f"p{i:03}"))
              for i, group in enumerate(groups)]
    assert states == ["matched"] * 40
    assert len(hashed) == element._FEW + 40
    assert len(searched) == element._FEW


def _remove(path: Path, digest: str, marker: str, made: bool = False) -> bytes:
    """The file's bytes after uninstall's removal of the group, committed (b"" if deleted);
    `made`: uze created the file."""
    with Transaction(path.parent / "journal") as tx:
        element.remove(tx, path, "json", STOP, digest, marker, ca.ElementInfo("element"), made)
    return path.read_bytes() if path.exists() else b""


def _without(data: bytes, index: int) -> bytes:
    return ca.remove_element(data, "json", STOP, index, ca.ElementInfo("element"))


def test_removal_takes_the_last_group_of_the_digest_hashing_from_the_end(
    tmp_path: Path, hashed: list[object]
) -> None:
    """A hand-copied group (the same value twice, keys in another order): the last one goes,
    as before; only the groups from the end up to it holding the marker are hashed."""
    path = tmp_path / "settings.json"
    groups = _packages(30)
    mine = groups[3]
    copy = {"hooks": [dict(reversed(list(mine["hooks"][0].items())))]}
    groups.insert(20, copy)
    data = _write(path, groups)
    assert _remove(path, value_digest(mine), _marker("p003")) == _without(data, 20)
    assert hashed == [copy]


def test_removal_falls_back_to_every_digest_when_the_marker_spans_keys(
    tmp_path: Path, hashed: list[object]
) -> None:
    """A marker found only across two keys of one group's repr: a copy of the group with
    its keys in another order has the same digest but not the marker; the last group of the
    digest is that copy, as hashing every group from the end finds."""
    path = tmp_path / "settings.json"
    mine = {"b": 1, "a": "x"}
    copy = {"a": "x", "b": 1}
    data = _write(path, [{"c": 2}, mine, copy, {"d": 3}])
    marker = "1, 'a'"
    assert marker in repr(mine) and marker not in repr(copy)
    assert _remove(path, value_digest(mine), marker) == _without(data, 2)
    assert element.inspect(path, "json", STOP, value_digest(mine), marker) == "matched"


def test_removal_of_a_group_that_is_gone_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    data = _write(path, _packages(5))
    gone = _group("p777")
    assert _remove(path, value_digest(gone), _marker("p777")) == data


@pytest.mark.parametrize("marker", ["", "a\0b"])
def test_a_marker_the_reprs_cannot_be_searched_for_hashes_every_group(
    tmp_path: Path, hashed: list[object], marker: str
) -> None:
    """An empty marker, or one with a NUL: every group hashed, and the verdicts as before
    (an empty marker is in every repr: a group not matched is `drifted`)."""
    path = tmp_path / "settings.json"
    groups = _packages(4)
    _write(path, groups)
    assert element.inspect(path, "json", STOP, value_digest(groups[2]), marker) == "matched"
    other = value_digest({"x": 1})
    assert element.inspect(path, "json", STOP, other, marker) == (
        "drifted" if marker == "" else "missing")
    assert len(hashed) == 4


def test_pick_removes_the_element_it_finds_and_nothing_when_it_finds_none() -> None:
    data = b'{"a": [1, 2, 3]}'
    info = ca.ElementInfo("element")
    assert ca.remove_element(data, "json", ("a",), ca.Pick(lambda items: 1), info) == (
        b'{"a": [1, 3]}')
    assert ca.remove_element(data, "json", ("a",), ca.Pick(lambda items: None), info) == data
    assert ca.remove_element(data, "json", ("a",), ca.Pick(lambda items: 3), info) == data


def test_a_file_uze_made_is_parsed_again_only_when_its_array_is_left_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Uninstall from a settings file uze created: while the array keeps other packages'
    groups the new text cannot be hollow, so it is not parsed to ask; the last group out
    leaves only shells, and the file goes."""
    asked: list[bytes] = []
    hollow = element.is_hollow
    monkeypatch.setattr(element, "is_hollow",
                        lambda data, fmt: asked.append(data) or hollow(data, fmt))
    path = tmp_path / "settings.json"
    groups = _packages(3)
    data = _write(path, groups)
    assert _remove(path, value_digest(groups[1]), _marker("p001"), made=True) == (
        _without(data, 1))
    assert asked == []
    _write(path, [groups[2]])
    assert _remove(path, value_digest(groups[2]), _marker("p002"), made=True) == b""
    assert len(asked) == 1


@pytest.mark.parametrize("where", range(20))
def test_a_group_is_found_wherever_it_stands_among_groups_holding_its_marker(
    tmp_path: Path, where: int
) -> None:
    """Ours at every place of an array of 20, after and before groups whose reprs hold its
    marker too (other handlers running the same wrapper): found, with its value known, and
    removed byte for byte, as hashing every group found and removed it."""
    path = tmp_path / "settings.json"
    mine = _group("p5")
    groups: list[Any] = [{**mine, "matcher": f"m{i}"} for i in range(19)]
    groups.insert(where, mine)
    data = _write(path, groups)
    memo.forget()
    assert element.inspect(path, "json", STOP, value_digest(mine), _marker("p5"),
                           mine) == "matched"
    assert _remove(path, value_digest(mine), _marker("p5")) == _without(data, where)


def test_a_new_group_s_marker_absent_from_the_json_text_is_missing_with_no_repr_made(
    tmp_path: Path, hashed: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Install (adopt) of a new package: its wrapper's path is nowhere in the settings text,
    so no group can hold it: `missing`, with no group's repr made and none hashed."""
    made: list[str] = []
    monkeypatch.setattr(element._Seen, "from_end", lambda *a: made.append("from_end"))
    monkeypatch.setattr(element._Seen, "joined", lambda *a: made.append("joined"))
    path = tmp_path / "settings.json"
    _write(path, _packages(200))
    new = _group("p999")
    assert element.inspect(path, "json", STOP, value_digest(new), _marker("p999"),
                           new) == "missing"
    assert made == [] and hashed == []


def _escaped(path: Path, groups: list[Any], how: str) -> None:
    text = json.dumps({"hooks": {"Stop": groups}}, ensure_ascii=how == "ascii")
    path.write_text(text.replace("/", "\\/") if how == "slashes" else text, encoding="utf-8")


@pytest.mark.parametrize(("command", "marker", "how"), [
    ("/w/é/p1.py", "/w/é/p1.py", "ascii"),  # é written \u00e9
    ("_w/p1.py", "_w/p1.py", "slashes"),  # / written \/
    ("\x7f/abc", "x7f/abc", "as is"),  # the repr escapes DEL as \x7f; the text holds it raw
])
def test_a_marker_the_json_text_spells_otherwise_is_still_found(
    tmp_path: Path, command: str, marker: str, how: str
) -> None:
    """Where the text writes the marker's characters as escapes (or the repr does), the
    text cannot tell the marker is absent: the group is found (`matched`), and an edit of it
    is `drifted`, as hashing every group and searching every repr said."""
    mine = {"hooks": [{"type": "command", "command": command}]}
    assert marker in repr(mine)
    path = tmp_path / "settings.json"
    for groups, state in (([*_packages(3), mine], "matched"),
                          ([*_packages(3), {**mine, "matcher": "Bash"}], "drifted")):
        _escaped(path, groups, how)
        memo.forget()
        assert element.inspect(path, "json", STOP, value_digest(mine), marker, mine) == state


@pytest.mark.parametrize(("text", "marker"), [
    ('{"hooks": {"Stop": [{"timeout": 1e2}]}}', "100.0"),  # repr(1e2)
    ('{"hooks": {"Stop": [{"on": true}]}}', "True"),
])
def test_a_marker_in_the_repr_of_a_number_or_a_literal_is_drifted(
    tmp_path: Path, text: str, marker: str
) -> None:
    """A marker the repr of a number or of true spells, not the text: `drifted`, as the
    search of every repr said (the text tells nothing about such a marker)."""
    path = tmp_path / "settings.json"
    path.write_text(text)
    mine = {"hooks": []}
    assert element.inspect(path, "json", STOP, value_digest(mine), marker, mine) == "drifted"
