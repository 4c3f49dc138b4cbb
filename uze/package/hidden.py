"""Text that hides instructions from the person reviewing a package (issue 28 item 8).

A skill, command, agent or instruction file is read by a model, which sees characters a person
reviewing the file does not: Unicode tag characters (U+E0000-E007F, invisible, and each one an
ASCII letter to a model: a whole sentence can hide in an empty-looking line), bidi embeddings,
overrides and isolates (U+202A/B/D/E, U+2066-2068, which reorder what a reader sees), runs of
zero-width characters (a message encoded in invisible bits), and HTML comments in Markdown
(invisible once rendered). Each is a warning naming the file and line, with what it hides
quoted (every renderer shows warnings inert, `uze.inert`: escaped): `check` lists it, `check
--strict` refuses the package, and install shows it with the consent question. A flag emoji's
tag sequence (U+1F3F4, tags, U+E007F: the flag of Scotland) is not flagged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Final

from uze.package.model import Agent, Command, Instructions, Skill
from uze.package.tree import PackageFile

PREFIX: Final = "hides text from a reader: "
_TAGS: Final = re.compile("[\U000e0000-\U000e007f]+")
_FLAG_TAGS: Final = re.compile("\U0001f3f4[\U000e0020-\U000e007e]{1,6}\U000e007f")
_BIDI: Final = re.compile("[\u202a\u202b\u202d\u202e\u2066-\u2068]")  # each opens a run
_ZERO_WIDTH: Final = re.compile("[\u200b\u200c\u200d\u2060\u180e\ufeff]{4,}")  # one alone is common
_COMMENT: Final = re.compile(r"<!--(.*?)(?:-->|\Z)", re.DOTALL)
_MARKDOWN: Final = (".md", ".mdx", ".markdown", ".mdc")
_SHOWN: Final = 80  # characters of hidden text quoted in a warning


def _cut(text: str) -> str:
    return text if len(text) <= _SHOWN else f"{text[:_SHOWN]}…"


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _decoded_tags(run: str) -> str:
    """What a tag run spells: each tag character stands for the ASCII character 0xE0000 below."""
    return "".join(chr(ord(c) - 0xE0000) for c in run if 0xE0020 <= ord(c) <= 0xE007E)


_ANY: Final = re.compile("[\u180e\u200b-\u200d\u202a\u202b\u202d\u202e\u2060\u2066-\u2068\ufeff"
                         "\U000e0000-\U000e007f]")  # any character of the four above


def _findings(text: str, markdown: bool) -> Iterable[tuple[int, str]]:
    """(offset, what) for each hiding place in `text`. Text without any hiding character
    (most package files are ASCII, where `isascii` is free; else one search for any of them)
    is not searched four times; text without `<!--` holds no comment."""
    if markdown and "<!--" in text:
        for match in _COMMENT.finditer(text):
            comment = _cut(" ".join(match.group(1).split()))
            yield match.start(), f"an HTML comment (not shown once rendered): {comment!r}"
    if text.isascii() or not _ANY.search(text):
        return
    flags = [m.span() for m in _FLAG_TAGS.finditer(text)]
    for match in _TAGS.finditer(text):
        if any(start < match.start() < end for start, end in flags):
            continue
        spelled = _cut(_decoded_tags(match.group()))
        yield match.start(), f"Unicode tag characters (invisible; they spell {spelled!r})"
    for match in _BIDI.finditer(text):
        code = f"U+{ord(match.group()):04X}"
        yield match.start(), f"a bidi control {code} (reorders what you read)"
    for match in _ZERO_WIDTH.finditer(text):
        yield match.start(), f"a run of {len(match.group())} zero-width characters"


# The UTF-8 forms of the characters `_ANY` finds: E1 A0 8E (U+180E), E2 80 8B-8D and AA-AE,
# E2 81 A0 and A6-A8 (U+200B-U+2068), EF BB BF (U+FEFF), F3 A0 80-81 xx (the tags). Bytes
# holding none of them (nor an E1 or F3 at all) decode to text holding none of them. `in`
# looks for one byte as memchr does, and `_E2`'s literal first byte lets the regex skip from
# E2 to E2 alike: 1.3 MB of the real skills' non-ASCII text in 0.6 ms, where `_ANY` on the
# decoded text took 4.2 ms (their em dashes and quotes, E2 80 9x, are not hiding characters).
_E2: Final = re.compile(rb"\xe2(?:\x80[\x8b-\x8d\xaa\xab\xad\xae]|\x81[\xa0\xa6-\xa8])")


def _may_hide(data: bytes, markdown: bool) -> bool:
    """Whether `_findings` may find anything in the text `data` decodes to (never False when
    it would): a comment opens in Markdown, or a byte of a hiding character's form is there."""
    if markdown and b"<!--" in data:
        return True
    if data.isascii():
        return False
    return (b"\xe1" in data or b"\xf3" in data or (b"\xef" in data and b"\xef\xbb\xbf" in data)
            or _E2.search(data) is not None)


def hidden_text(files: Mapping[str, PackageFile], paths: Iterable[str]) -> list[str]:
    """One `path:line: hides text from a reader: what` warning per hiding place in the files
    at `paths` (package paths; a file that is not UTF-8 text is skipped: the reader names it
    where that matters). Sorted by path, then line. A file whose bytes cannot hold a hiding
    place (`_may_hide`) is not decoded."""
    found: list[str] = []
    for path in sorted(set(paths)):
        item = files.get(path)
        if item is None or not _may_hide(item.data, path.lower().endswith(_MARKDOWN)):
            continue
        try:
            text = item.data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        found += [f"{path}:{_line(text, offset)}: {PREFIX}{what}"
                  for offset, what in sorted(_findings(text, path.lower().endswith(_MARKDOWN)))]
    return found


def read_by_models(skills: Iterable[Skill], agents: Iterable[Agent], commands: Iterable[Command],
                   instructions: Instructions | None) -> list[str]:
    """The package paths a harness puts in front of a model: every file of each skill, each
    agent and command file, and the instruction files (with the files they import)."""
    paths = [path for skill in skills for path in skill.files]
    paths += [agent.relpath for agent in agents] + [command.relpath for command in commands]
    if instructions is not None:
        paths += [*instructions.files, *instructions.imports]
    return paths


def hidden_warnings(warnings: Iterable[str]) -> list[str]:
    """The warnings of `hidden_text` among a package's warnings."""
    return [warning for warning in warnings if f": {PREFIX}" in warning]


def hidden_in(location: str, values: Mapping[str, str]) -> list[str]:
    """One `location: key: hides text from a reader: what` warning per hiding place in each
    decoded value: text a model reads that its file may only spell as an escape (a JSON
    `\\u202e`), such as a tool's description and input schema in tools.json."""
    return [f"{location}: {key}: {PREFIX}{what}" for key, text in values.items()
            for _offset, what in sorted(_findings(text, markdown=False))]

