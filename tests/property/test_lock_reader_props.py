"""uze.lock's reader of the form `dump_lock` writes against `tomllib` (ADR 0105): whatever it
takes, it reads as `tomllib` does; what `dump_lock` writes it takes (but settings).

The strings hold quotes, backslashes, control characters, DEL, non-ASCII text and the
characters of a surrogate escape; the edited locks break the form anywhere."""

from __future__ import annotations

import tomllib

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import spliced
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
