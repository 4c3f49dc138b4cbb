"""The plain-frontmatter reader (ADR 0051): what it reads, it reads as PyYAML does; anything
else it leaves to PyYAML, with the same errors and limits."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from uze.package.frontmatter import FrontmatterError, plain_mapping, split_frontmatter
from uze.package.limits import MAX_FRONTMATTER_BYTES
from uze.projections.frontmatter import _split, edit_frontmatter, plain_dump

# Words and characters YAML treats specially, mixed into otherwise plain lines.
_WORDS = ["yes", "No", "TRUE", "off", "ON", "null", "Null", "y", "n", "name", "description"]
_TRICKY = st.sampled_from([
    *_WORDS, "~", "1", "0x1f", "1.5", ".inf", "2024-01-01", ": ", ":", " #", "#", "'", '"',
    "&a", "*a", "!tag", "|", ">", "-", "? ", "[a]", "{b: c}", ",", "%", "@", "`", "\t", "\r",
    "\x0c", "\x85", "\u2028", "é", "\ufeff", "  ", "<<", "=",
])
_TEXT = st.text(st.sampled_from("abcXYZ019_- .,/()'\"!?"), max_size=8)
_VALUE = st.one_of(st.sampled_from(_WORDS), st.builds(
    lambda first, parts: first + "".join(parts), st.sampled_from("aZn"),
    st.lists(st.one_of(_TEXT, _TEXT, _TRICKY), max_size=4)))
_PLAIN_KEY = st.sampled_from([*_WORDS, "a", "b-c", "x_1"])
_KEY = st.one_of(_PLAIN_KEY, _PLAIN_KEY, _PLAIN_KEY, _TRICKY)
_KEY_VALUE = st.builds(lambda k, v: f"{k}: {v}", _KEY, _VALUE)
_CUT = st.builds(lambda k, a, cut, b: f"{k}: {a}{cut}{b}", _KEY, _VALUE,
                 st.sampled_from([": ", " #", ":", "#", "  ", " :", "# "]), _TEXT)
_LINE = st.one_of(_KEY_VALUE, _KEY_VALUE, _CUT, _CUT, _VALUE, _TEXT, _TRICKY,
                  st.builds(lambda k, v: f"{k}:{v}", _KEY, _VALUE))


@settings(max_examples=400, deadline=None)
@given(st.lists(_LINE, max_size=3), st.sampled_from(["\n", "\n", "\n", "\r\n", ""]))
def test_a_plain_block_reads_as_pyyaml_reads_it(lines: list[str], end: str) -> None:
    block = "\n".join(lines) + end if lines else ""
    found = plain_mapping(block)
    if found is None:
        return
    assert found == (yaml.safe_load(block) or {})
    assert all(isinstance(value, str) for value in found.values())


def test_a_skill_header_is_read_without_pyyaml() -> None:
    block = ("name: pdf-tools\ndescription: Fill, merge and split PDF files; use when a task "
             "names a .pdf (forms, pages).\nlicense: Apache-2.0  \n")
    assert plain_mapping(block) == yaml.safe_load(block) == {
        "name": "pdf-tools", "license": "Apache-2.0",
        "description": "Fill, merge and split PDF files; use when a task names a .pdf "
                       "(forms, pages)."}
    assert plain_mapping("") == {}
    assert plain_mapping("name: a\nname: b\n") == yaml.safe_load("name: a\nname: b\n")


def test_what_is_not_plain_goes_to_pyyaml() -> None:
    for block in ("on: x\n", "name: yes\n", "name: a: b\n",
                  "name: a #c\n", "name: a:\n", "name: 'q'\n", "name: a\n  b\n", "tags: [a]\n",
                  "name: é\n", "name: a\r\n", "name: a\n\n", "- a\n", "name: a"):
        assert plain_mapping(block) is None, block


def test_split_frontmatter_keeps_pyyaml_errors_and_limits() -> None:
    assert split_frontmatter("---\nname: x\ndescription: Y z.\n---\nbody\n") == (
        {"name": "x", "description": "Y z."}, "body\n")
    for text, message in (
        ("---\nname: a\n  bad: [\n---\n", "invalid YAML frontmatter at line 3"),
        ("---\n- a\n---\n", "must be a YAML mapping"),
        ("---\nname: " + "a" * MAX_FRONTMATTER_BYTES + "\n---\n", "larger than"),
    ):
        try:
            split_frontmatter(text)
        except FrontmatterError as error:
            assert message in str(error), (text[:40], str(error))
        else:  # pragma: no cover - the assertion below fails
            raise AssertionError(f"no error for {text[:40]!r}")


_WORD_VALUE = st.one_of(
    st.sampled_from(_WORDS), st.text(st.sampled_from("aZ09_.:-# 'é"), min_size=1, max_size=6),
    st.builds(lambda first, rest: first + rest, st.sampled_from("aZn"),
              st.text(st.sampled_from("aZ09_.:-# 'é"), max_size=6)),
    st.builds(lambda first, rest: first + rest, st.sampled_from("aZn"),
              st.text(st.sampled_from("aZ-: "), min_size=190, max_size=210)))


@settings(max_examples=300, deadline=None)
@given(st.one_of(_PLAIN_KEY, _TRICKY), st.one_of(_WORD_VALUE, st.integers(), st.booleans()))
def test_an_edited_key_is_written_as_pyyaml_writes_it(key: str, value: object) -> None:
    """The frontmatter editor writes a one-word text value itself (ADR 0051): byte for byte
    what `yaml.safe_dump` writes, which it calls for every other value."""
    expected = yaml.safe_dump({key: value}, default_flow_style=False, sort_keys=False)
    for eol in (b"\n", b"\r\n"):
        head = b"---" + eol + b"keep-me: b" + eol
        text = edit_frontmatter(head + b"---" + eol + b"body", {key: value})
        assert text == (head + b"".join(
            line.encode() + eol for line in expected.splitlines()) + b"---" + eol + b"body")


def test_a_skill_name_is_written_without_pyyaml() -> None:
    text = edit_frontmatter(b"---\nname: pdf\ndescription: D.\n---\n", {"name": "acme-pdf"})
    assert text == b"---\nname: acme-pdf\ndescription: D.\n---\n"
    assert yaml.safe_load(text.split(b"---")[1]) == {"name": "acme-pdf", "description": "D."}


_SENTENCE = st.builds(lambda first, rest: first + rest, st.sampled_from("aZn"), st.text(
    st.sampled_from("aZ09_.,;()/'+=- :#\"!?[]{}é\t"), max_size=90))


@settings(max_examples=500, deadline=None)
@given(st.dictionaries(st.one_of(_PLAIN_KEY, _TRICKY),
                       st.one_of(_SENTENCE, _SENTENCE, _VALUE, _TRICKY, st.integers(),
                                 st.booleans(), st.lists(_TEXT, max_size=2)), max_size=4))
def test_a_plain_header_is_dumped_as_pyyaml_dumps_it(head: dict[str, object]) -> None:
    """An agent's or command's header of plain texts is written without PyYAML (issue 32
    item 4): byte for byte `yaml.safe_dump`'s output, and anything it cannot write so is left
    to PyYAML (None)."""
    found = plain_dump(head)
    if found is not None:
        assert found == yaml.safe_dump(head, sort_keys=False, allow_unicode=True)


def test_a_usual_agent_header_is_dumped_without_pyyaml() -> None:
    head = {"name": "acme-reviewer", "description": "Reviews a diff for bugs, style and tests; "
                                                   "use it before a merge."}
    assert plain_dump(head) == yaml.safe_dump(head, sort_keys=False, allow_unicode=True)
    assert plain_dump({"description": "x" * 80}) is None  # PyYAML would fold or keep it long
    assert plain_dump({"description": "yes"}) is None and plain_dump({}) is None


# Quoted and literal-block values (ADR 0106): the shapes of published SKILL.md headers that are
# not plain `key: text` (a `|-` block of sentences, a double-quoted description with escaped
# quotes), mixed with what YAML treats specially inside and around them.
_CLEAN = "aZ09 _.,;()/'+=-:#`[]{}&*!|>%@?~é—"
_INNER = st.one_of(st.text(st.sampled_from(_CLEAN + '"\\'), max_size=24),
                   st.text(st.sampled_from(_CLEAN + '"\\\t\r\x85\u2028\xa0\ufeff'), max_size=24))
_QUOTED_VALUE = st.one_of(
    st.builds(lambda text: '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"', _INNER),
    st.builds(lambda text, tail: '"' + text + '"' + tail, _INNER,
              st.sampled_from(["", " ", "  ", " #c", "x", '"', "\t"])))
_BLOCK_LINE = st.one_of(st.builds(lambda text: "a" + text, _INNER), _INNER, st.just(""),
                        st.just(" "), st.sampled_from(["key: v", "- item", "# not a comment"]))
_BLOCK_VALUE = st.builds(
    lambda header, indent, lines, deeper: header + "".join(
        "\n" + " " * (indent + (2 if index in deeper else 0)) + line
        for index, line in enumerate(lines)),
    st.integers(0, 3).flatmap(lambda pick: st.sampled_from(
        ["|+", ">", ">-", "|2", "| #c", "|\t", "|-x"] if pick == 0 else ["|", "|-", "|-  "])),
    st.sampled_from([2, 2, 1, 4, 0]), st.lists(_BLOCK_LINE, min_size=1, max_size=3),
    st.sets(st.integers(1, 2)))
_SHAPED = st.builds(lambda key, value: f"{key}: {value}",
                    st.integers(0, 4).flatmap(lambda pick: _KEY if pick == 0 else st.sampled_from(
                        ["name", "description", "license", "a-b"])),
                    st.one_of(_QUOTED_VALUE, _BLOCK_VALUE, _VALUE))


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.integers(0, 5).flatmap(lambda pick: _LINE if pick == 0 else _SHAPED),
                max_size=3),
       st.sampled_from(["\n", "\n", "\n", "\n", "\r\n", ""]))
def test_a_quoted_or_block_value_reads_as_pyyaml_reads_it(lines: list[str], end: str) -> None:
    block = "\n".join(lines) + end if lines else ""
    found = plain_mapping(block)
    if found is None:
        return
    assert found == (yaml.safe_load(block) or {})


def test_a_published_skills_header_shapes_are_read_without_pyyaml() -> None:
    """A literal block of long lines (dashes, quotes, backticks, `: ` and ` #` inside), and a
    double-quoted description with escaped quotes: what four of anthropics/skills' 17 headers
    hold (fixtures written here in the same shapes)."""
    blocks = [
        "name: api-notes\ndescription: |-\n  Notes for the SDK — ids, params: streaming, `tools`.\n"
        "  TRIGGER — read first; don't skip because it \"looks small\" #1 (a: b).\n"
        "    an indented line keeps its two extra spaces\nlicense: Terms in LICENSE.txt\n",
        'name: sheets\ndescription: "Use this skill when a spreadsheet is involved — for '
        'example \\"the xlsx in my downloads\\": open, fix, chart. Not for C:\\\\docs."\n'
        "license: Proprietary. LICENSE.txt has complete terms\n",
        "name: clip\ndescription: |\n  kept with one final line break\n",
        'name: "quoted-name"  \ndescription: Plain — with a dash and é.\n',
    ]
    for block in blocks:
        found = plain_mapping(block)
        assert found is not None, block
        assert found == yaml.safe_load(block), block
    assert plain_mapping(blocks[0])["description"].endswith(  # type: ignore[index]
        "(a: b).\n  an indented line keeps its two extra spaces")
    assert plain_mapping(blocks[1])["description"].endswith(r"Not for C:\docs.")  # type: ignore[index]
    assert plain_mapping(blocks[2]) == {"name": "clip",
                                        "description": "kept with one final line break\n"}


def test_a_quoted_or_block_value_yaml_reads_otherwise_goes_to_pyyaml() -> None:
    for block in ('name: "a\\nb"\n', 'name: "a" #c\n', 'name: "a\n  b"\n', 'name: "a\tb"\n',
                  "name: 'a'\n", 'name: "a"x\n', "d: |\n  a\n\n  b\n", "d: |\n  a\n b\n",
                  "d: |\n  a\n   \n", "d: |\n", "d: |+\n  a\n", "d: >-\n  a\n", "d: |2\n  a\n",
                  "d: | #c\n  a\n", "d: |\n\ta\n", "d: |\n  a\u2028b\n", "d: |\n  a\r\n",
                  "yes: |\n  a\n", 'on: "a"\n', "name: a\u00a0b\n", "name: \u00e9a\n"):
        assert plain_mapping(block) is None, block


_PIECES = st.sampled_from([b"---", b"--- ", b"name: x", b"", b"\n", b"\r\n", b"\r", b"body",
                           b"-", b"---\r", b"\r\r\n", b"\n\r", b"d: |\n  a"])


@settings(max_examples=1500, deadline=None)
@given(st.lists(_PIECES, max_size=14))
def test_an_edit_splits_the_frontmatter_off_as_splitlines_would(pieces: list[bytes]) -> None:
    """The frontmatter is split off without splitting the body into lines (issue 32): the
    same head and body as `bytes.splitlines` gives, for every mix of LF, CRLF and lone CR."""
    text = b"".join(pieces)
    lines = text.splitlines(keepends=True)
    closing = next((i for i, line in enumerate(lines) if i and line.rstrip(b"\r\n") == b"---"),
                   None)
    if not lines or lines[0].rstrip(b"\r\n") != b"---" or closing is None:
        expected = None
    else:
        expected = (lines[: closing + 1], b"".join(lines[closing + 1:]))
    assert _split(text) == expected
