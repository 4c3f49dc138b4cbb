"""The `skills` CLI's `computedHash` of a skill folder, as its project lock (`skills-lock.json`)
records it, so `uze install --from skills-lock.json` can check what it fetched (adr/0093).

The CLI hashes with SHA-256, over every regular file below the folder (folders named `.git` or
`node_modules` skipped, links skipped), sorted by their `/`-separated relative paths as
JavaScript's `String.prototype.localeCompare` orders them, the path then the bytes of each.
`localeCompare` is ICU's root collation: `_sort_key` gives its order for ASCII (punctuation,
then digits, then letters, case folded, a lower-case letter before its upper case when all
else is equal); a letter with accents sorts with its base letter first; any other character
after every ASCII one, by code point (there ICU may differ, and a lock written for such names
would read as changed: refused, never passed). `check_fetched` compares a lock's entries with
the skills of a fetched package. Reads only.
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import msgspec

from uze.errors import UzeError
from uze.package import read_package

SKIPPED: Final = frozenset({".git", "node_modules"})
# ICU root collation of printable ASCII, smallest first (seen with node 20's localeCompare);
# a letter's upper case shares its lower case's place (told apart at the last level).
_ORDER: Final = (" _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789"
                 "abcdefghijklmnopqrstuvwxyz")
_RANK: Final = {c: i for i, c in enumerate(_ORDER)}


def _char_key(char: str) -> tuple[int, int, int]:
    """(primary, secondary, tertiary) weights of one character."""
    lower = char.lower()
    if lower in _RANK and len(lower) == 1:
        return _RANK[lower], 0, int(char != lower)
    base = unicodedata.normalize("NFD", char)
    if base and base[0].lower() in _RANK:
        return _RANK[base[0].lower()], ord(char), int(base[0] != base[0].lower())
    return len(_ORDER) + ord(char), 0, 0


def sort_key(path: str) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """`path`'s place in `localeCompare`'s order: all primary weights, then all secondary,
    then all tertiary, each compared in turn."""
    keys = [_char_key(char) for char in path]
    return (tuple(k[0] for k in keys), tuple(k[1] for k in keys), tuple(k[2] for k in keys))


def _files(folder: Path, at: str = "") -> list[tuple[str, Path]]:
    found: list[tuple[str, Path]] = []
    with os.scandir(folder) as entries:
        for entry in entries:
            rel = f"{at}{entry.name}"
            if entry.is_dir(follow_symlinks=False):
                if entry.name not in SKIPPED:
                    found += _files(Path(entry.path), f"{rel}/")
            elif entry.is_file(follow_symlinks=False):
                found.append((rel, Path(entry.path)))
    return found


def folder_hash(folder: Path) -> str:
    """The `computedHash` the skills CLI records for the skill folder `folder` (hex).
    Raises OSError when a file cannot be read."""
    digest = hashlib.sha256()
    for rel, path in sorted(_files(folder), key=lambda item: sort_key(item[0])):
        digest.update(rel.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


HASH_FORM: Final = "the skills CLI's SHA-256 of the skill folder, 64 hexadecimal digits"
_HEX: Final = re.compile(r"[0-9a-f]{64}")


def is_hash(value: object) -> bool:
    """Whether `value` is a `computedHash` as the skills CLI writes it, or "" (none)."""
    return value == "" or (isinstance(value, str) and _HEX.fullmatch(value) is not None)


class Locked(msgspec.Struct, frozen=True):
    """One entry of a skills-lock.json: where it is (`skills-lock.json: skills.NAME`), the
    skill it names and the `computedHash` it records ("": none, nothing to check)."""

    where: str
    skill: str
    computed: str


def check_fetched(folder: Path, locked: Sequence[Locked], fetched_from: str) -> None:
    """Raise UzeError naming the first entry of `locked` whose hash is not that of its skill's
    folder in the package fetched into `folder` (from `fetched_from`, as the lock names it)."""
    skills = {skill.name: skill.folder for skill in read_package(folder).skills}
    for entry in locked:
        if not entry.computed or entry.skill not in skills:
            continue  # no hash; or not in the package: the selection refuses it by name
        try:
            found = folder_hash(folder / skills[entry.skill])
        except OSError as exc:
            raise UzeError(f"{entry.where}: cannot read the skill fetched from {fetched_from} "
                           f"({exc.strerror})", hint=HINT) from None
        if found != entry.computed:
            raise UzeError(f"{entry.where}: computedHash {entry.computed} is not the hash of "
                           f"the skill fetched from {fetched_from} ({found})", hint=HINT)


HINT: Final = ("the skill at that source is not what the lock recorded (a moved tag or branch, "
               "or an edited lock): check the source, or write the lock again with the skills "
               "CLI; nothing was written")
