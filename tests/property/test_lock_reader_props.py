"""uze.lock's reader of the form `dump_lock` writes against `tomllib` (ADR 0105): whatever it
takes, it reads as `tomllib` does; what `dump_lock` writes it takes (but settings).

The strings hold quotes, backslashes, control characters, DEL, non-ASCII text and the
characters of a surrogate escape; the edited locks break the form anywhere."""

from __future__ import annotations

import tempfile
import tomllib
from pathlib import Path

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import spliced
from uze.errors import UzeError
from uze.projections import parse_cache
from uze.sources import lockfile
from uze.sources.lockfile import LockedPackage, LockFile, dump_lock

_text = st.lists(st.sampled_from(["a", "Z", "0", ".", "/", " ", "é", "\u2028", "\x00", "\U0001f600",
                                  '"', "\\", "\x7f", "\t", "\n", "\\ud800", "\\u", "#", "]"]),
                 max_size=8).map("".join)
_names = st.from_regex(r"[a-z][a-z0-9]{0,5}(-[a-z0-9]{1,3})?", fullmatch=True)
_packages = st.builds(
    LockedPackage, name=_names, version=_text, source=_text, ref=_text, subdirectory=_text,
    commit=st.sampled_from(["", "a" * 40]), tree=st.just("b" * 64), marketplace=_text,
    plugin=_text, skills=st.lists(_text, max_size=2), harnesses=st.lists(_text, max_size=3),
    reproducible=st.booleans(), disabled=st.lists(_text, max_size=2),
    settings=st.dictionaries(_text, _text, max_size=1),
)


def _tomllib(text: str) -> LockFile | None:
    try:
        return msgspec.convert(tomllib.loads(text), LockFile)
    except (tomllib.TOMLDecodeError, msgspec.ValidationError):
        return None


@given(st.lists(_packages, max_size=4, unique_by=lambda p: p.name))
def test_what_dump_lock_writes_reads_as_tomllib_reads_it(packages: list[LockedPackage]) -> None:
    text = dump_lock(packages).decode()
    found = lockfile._generated(text)
    expected = _tomllib(text)
    if expected is not None and not any(p.settings for p in packages):
        assert found is not None
    if found is not None:
        assert found == expected


_edits = st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 3),
                            st.sampled_from(['"', "\\", "\\u", "d800", "\t", "\n", " ", "#", "[",
                                             "]", "=", ",", "x", "\x7f", "é", "false", "\r"])),
                  min_size=1, max_size=3)


@given(st.lists(_packages, min_size=1, max_size=3, unique_by=lambda p: p.name), _edits)
def test_an_edited_lock_is_taken_only_as_tomllib_reads_it(
        packages: list[LockedPackage], edits: list[tuple[int, int, str]]) -> None:
    text = spliced(dump_lock(packages).decode(), edits)
    found = lockfile._generated(text)
    if found is not None:
        assert found == _tomllib(text)


def test_a_lock_of_many_packages_is_read_without_tomllib() -> None:
    pins = [LockedPackage(name=f"p{i}", version="1.0.0", source=f"./packages/p{i}",
                          tree=f"{i:064x}", harnesses=["claude_code", "codex"],
                          reproducible=bool(i % 2), skills=["a", "b"] if i % 3 else [])
            for i in range(50)]
    text = dump_lock(pins).decode()
    assert lockfile._generated(text) == LockFile(lockfile.LOCK_VERSION,
                                                 sorted(pins, key=lambda p: p.name))
    assert lockfile._generated(text.replace('"p7"', '"p7"  # mine')) is None
    assert lockfile._generated(text.replace('version = "1.0.0"', "version = '1.0.0'", 1)) is None
    # lines in another order than dump_lock's: tomllib reads it, to the same pins
    reordered = text.replace('name = "p1"\nversion = "1.0.0"', 'version = "1.0.0"\nname = "p1"')
    assert lockfile._generated(reordered) is None
    assert _tomllib(reordered) == lockfile._generated(text)


def test_a_string_without_its_closing_quote_is_left_to_tomllib_at_once() -> None:
    """The line pattern is possessive: with `(?:[^"]+|...)*` this line backtracked
    exponentially (hostile input is input); now the reader gives up and tomllib refuses it."""
    pin = LockedPackage(name="p", version="1.0.0", source="./p", tree="0" * 64, harnesses=[])
    text = dump_lock([pin]).decode().replace('"1.0.0"', '"1.0.0' + "a" * 200)
    assert lockfile._generated(text) is None
    assert _tomllib(text) is None


@given(st.text() | _text)
def test_a_string_with_nothing_to_escape_is_quoted_as_json_dumps_quotes_it(value: str) -> None:
    """dump_lock's fast quoting (`_quoted`) writes what `_string` (json.dumps) writes."""
    if lockfile._PLAIN.fullmatch(value):
        assert lockfile._quoted(value) == lockfile._string(value)
    else:
        assert any(c in value for c in '"\\\x7f') or any(ord(c) < 0x20 for c in value)


def _render(pin: LockedPackage) -> str:
    """dump_lock's block for `pin`, rendered (a pin parse_lock never handed out)."""
    return dump_lock([pin]).decode().removeprefix(lockfile.HEADER + "version = 1\n")


_twists = st.sampled_from([
    ("", ""), ('harnesses = ["', 'harnesses = ["zz", "'), ('disabled = ["', 'disabled = ["zz", "'),
    ("\ntree = ", '\nref = ""\ntree = '), ("\nharnesses = ", "\nskills = []\nharnesses = "),
    ("\nharnesses = ", '\nskills = ["a", "a"]\nharnesses = '), ("a", "\\u0061"), ("/", "\\/"),
    ("\n[[package]]\n", "\n[[package]]\n"), ("\nversion = ", '\nversion = ""\nversion = '),
])


@given(st.lists(_packages, min_size=1, max_size=3, unique_by=lambda p: p.name), _twists,
       st.integers(0, 3))
def test_a_block_kept_for_dump_lock_is_what_dump_lock_writes_for_its_pin(
        packages: list[LockedPackage], twist: tuple[str, str], nth: int) -> None:
    """`_written` vouches only for blocks that dump_lock would write again byte for byte:
    lists left unsorted, empty fields and lists, escapes and the rest are rendered again."""
    text = dump_lock(packages).decode()
    old, new = twist
    at = -1
    for _ in range(nth + 1):
        at = text.find(old, at + 1)
    if old and at >= 0:
        text = text[:at] + new + text[at + len(old):]
    lock = lockfile._generated(text)
    if lock is None:
        return
    written = lockfile._written(text, lock)
    for pin in lock.package:
        if pin.name in written:
            assert written[pin.name] == _render(pin)


_filler = [LockedPackage(name=f"zz{i}", version="1.0.0", source=f"./packages/zz{i}",
                         tree=f"{i:064x}", harnesses=["codex", "claude_code"])
           for i in range(80)]  # past parse_cache.SMALLEST, unsorted harnesses


def _outcome(raw: bytes) -> object:
    lockfile._parse_lock.cache_clear()
    try:
        return lockfile._parse_lock(raw, "uze.lock")
    except UzeError as refused:
        return refused.message


@given(st.lists(_packages, max_size=3, unique_by=lambda p: p.name), st.booleans(),
       st.integers(0, 2))
def test_a_kept_lock_parse_is_what_parse_lock_makes_of_the_text(
        packages: list[LockedPackage], read_first: bool, changed: int) -> None:
    """`keep` keeps, for a lock `dump_lock` made, exactly what `parse_lock` makes of its text
    (pins, and the blocks `_written` vouches for), whether its pins were handed out by
    `parse_lock` (trusted: checked then) or built; and it keeps every lock `parse_lock` takes
    that has no setting."""
    pins = packages + _filler
    if read_first:  # as an install does: the pins read, one of them changed or added
        first = dump_lock(pins[changed:])
        read = lockfile.parse_lock(first, "uze.lock") if isinstance(_outcome(first), tuple) \
            else {p.name: p for p in pins[changed:]}
        pins = [*pins[:changed], *read.values()]
    data = dump_lock(pins)
    with tempfile.TemporaryDirectory() as folder:
        parse_cache.use(None)
        slow = _outcome(data)
        parse_cache.use(Path(folder))
        try:
            lockfile.keep(data)
            kept = list(Path(folder, "parses").glob("lock-*"))
            assert bool(kept) == (isinstance(slow, tuple) and not any(p.settings for p in pins))
            assert _outcome(data) == slow
        finally:
            parse_cache.use(None)


def test_a_kept_lock_parse_is_found_only_by_its_text(tmp_path: Path) -> None:
    """An edited lock (one byte) finds no kept parse: it is read again, and refused."""
    parse_cache.use(tmp_path)
    try:
        data = dump_lock(_filler)
        lockfile.keep(data)
        assert len(list((tmp_path / "parses").glob("lock-*"))) == 1
        lockfile._parse_lock.cache_clear()
        assert lockfile.parse_lock(data, "uze.lock") == {
            p.name: msgspec.structs.replace(p, harnesses=sorted(p.harnesses)) for p in _filler}
        bad = data.replace(b'version = "1.0.0"', b'version = "1.0.0 beta"', 1)
        lockfile._parse_lock.cache_clear()
        with pytest.raises(UzeError, match=r"zz0: version '1\.0\.0 beta' is not a version"):
            lockfile.parse_lock(bad, "uze.lock")
    finally:
        parse_cache.use(None)
