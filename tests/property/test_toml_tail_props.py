"""`toml_tail` against `tomllib`: the document after an appended or cut entry, computed from the
parse before, is the parse of the new text whenever it is given (ADR 0105).

Documents are built from statements that make the append or the cut mean something else, or
fail: `mcp_servers` as an inline table, as dotted keys, as an array of tables, headers inside
multi-line strings and arrays, `[mcp_servers]` alone, no final newline, CRLF, comments.
"""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from uze.projections import config_toml, toml_tail

_STATEMENTS = [
    '[mcp_servers.a]\ncommand = "x"\nargs = ["--stdio"]\n',
    '[mcp_servers.b]\ncommand = "y"\n\n[mcp_servers.b.env]\nK = "v"\n',
    "mcp_servers = { a = { command = \"x\" } }\n",
    "mcp_servers.c = 1\n",
    "mcp_servers.d = { e = 1 }\n",
    "[mcp_servers]\n",
    "[mcp_servers]\nf.command = \"z\"\n",
    "[[mcp_servers]]\nname = \"z\"\n",
    "[mcp_servers.new.sub]\nk = 1\n",
    'x = """\n[mcp_servers.q]\n"""\n',
    "y = '''\n[mcp_servers.q]\n'''\n",
    'z = [\n["mcp_servers"],\n]\n',
    "model = \"o3\" # [mcp_servers.a]\n",
    "[other]\nk = 1\n",
    "[other.mcp_servers.a]\nk = 2\n",
    "# [mcp_servers.a]\n",
    "\n",
    "top = 1",
    "# a comment at the end",
    "[inline]\nt = { mcp_servers = { a = 1 } }\n",
    '["mcp_servers".g]\nk = 3\n',
    "[ mcp_servers.h ]\nk = 4\n",
    "new = { a = 1 }\n",
]
_statements = st.lists(st.sampled_from(_STATEMENTS), max_size=6)
_scalars = st.booleans() | st.integers(-5, 5) | st.text("ab\"'\\\n[]#.", max_size=6)
_values = st.dictionaries(st.sampled_from(["command", "args", "env", "k", "sub"]),
                          _scalars | st.lists(_scalars, max_size=2)
                          | st.dictionaries(st.sampled_from(["A", "B"]), _scalars, max_size=2),
                          max_size=3)
_key_paths = st.sampled_from([("mcp_servers", "new"), ("mcp_servers", "new", "deep"),
                              ("new",), ("other", "new"), ("mcp_servers", "a", "x")])


def _document(statements: list[str], crlf: bool) -> tuple[str, dict[str, Any]]:
    text = "".join(statements)
    text = text.replace("\n", "\r\n") if crlf else text
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        assume(False)
        raise


def _first_new(plain: dict[str, Any], key_path: tuple[str, ...]) -> int:
    node: Any = plain
    for index, key in enumerate(key_path):
        if not isinstance(node, dict):
            assume(False)
        if key not in node:
            return index
        node = node[key]
    assume(False)
    return 0


def _ordered(value: Any) -> Any:
    """`value` with every table's key order made visible to `==`."""
    if isinstance(value, dict):
        return [(key, _ordered(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [_ordered(item) for item in value]
    return value


def _parse(text: str) -> Any:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def _append(text: str, plain: dict[str, Any], key_path: tuple[str, ...], value: Any
            ) -> tuple[str, str, int, Any]:
    first_new = _first_new(plain, key_path)
    eol = config_toml.detect_eol(text)
    chunk = config_toml._as_tables(key_path, value, eol)
    assert chunk is not None
    joined = text + config_toml._separator(text, eol) + chunk
    found = toml_tail.appended(text, plain, joined, chunk, key_path, first_new, _parse)
    return joined, chunk, first_new, found


@given(_statements, st.booleans(), _key_paths, _values)
def test_an_appended_entry_reads_as_tomllib_reads_the_whole_text(
    statements: list[str], crlf: bool, key_path: tuple[str, ...], value: Any
) -> None:
    text, plain = _document(statements, crlf)
    joined, _chunk, _first, found = _append(text, plain, key_path, value)
    if found is not None:
        assert _ordered(found) == _ordered(tomllib.loads(joined))


@given(_statements, st.booleans(), _key_paths, _values, st.integers(0, 2))
def test_an_entry_cut_from_the_end_reads_as_tomllib_reads_what_is_left(
    statements: list[str], crlf: bool, key_path: tuple[str, ...], value: Any, extra: int
) -> None:
    text, plain = _document(statements, crlf)
    joined, chunk, _first, _found = _append(text, plain, key_path, value)
    whole = _parse(joined)
    assume(whole is not None)
    at = len(joined) - len(chunk)
    start = at
    while start > 0 and joined[start - 1] in "\r\n" and start > at - extra:
        start -= 1
    found = toml_tail.cut_from_end(joined, whole, start, at, chunk, key_path)
    if found is not None:
        assert _ordered(found) == _ordered(tomllib.loads(joined[:start]))


@pytest.mark.parametrize("crlf", [False, True])
@pytest.mark.parametrize("ending", ["", "\n", "\n\n", "# c"])
def test_codex_server_tables_are_appended_and_cut_without_a_parse(crlf: bool, ending: str) -> None:
    """The shape of Codex's config.toml after many installs: the fast paths are taken."""
    servers = "".join(f'[mcp_servers.p{i}]\ncommand = "./s.sh"\nargs = ["--stdio"]\n\n'
                      for i in range(5))
    text = servers.rstrip("\n") + ending
    text = text.replace("\n", "\r\n") if crlf else text
    plain = tomllib.loads(text)
    value = {"command": "./t.sh", "args": ["--stdio"], "env": {"K": "v"}}
    joined, chunk, _first, found = _append(text, plain, ("mcp_servers", "new"), value)
    assert found is not None
    assert _ordered(found) == _ordered(tomllib.loads(joined))
    lead = config_toml._separator(text, config_toml.detect_eol(text))
    at = len(joined) - len(chunk)
    cut = toml_tail.cut_from_end(joined, found, at - len(lead), at, chunk, ("mcp_servers", "new"))
    assert cut is not None and _ordered(cut) == _ordered(plain)


@pytest.mark.parametrize("before", [
    'mcp_servers = { a = { command = "x" } }\n',  # an inline table: no header may go under it
    'x = """\n[mcp_servers.a]\n"""\nmcp_servers = { a = 1 }\n',  # a header only inside a string
    "mcp_servers.c = 1\n",  # dotted keys: valid, but no header proves it; parsed instead
])
def test_an_append_under_a_table_without_a_header_is_parsed(before: str) -> None:
    plain = tomllib.loads(before)
    *_, found = _append(before, plain, ("mcp_servers", "new"), {"command": "y"})
    assert found is None


def test_add_and_remove_in_codex_config_take_the_fast_paths() -> None:
    """Through `config_entry`: a server added to and cut from a config of many servers is
    never parsed whole by tomllib (the memo is filled by toml_tail), and gives back the bytes."""
    from uze.projections import config_entry

    text = "".join(f'[mcp_servers.q{i}]\ncommand = "./s.sh"\n\n' for i in range(40))
    data = text.encode()
    config_entry.read_entry(data, "toml", ("mcp_servers", "q0"))  # the command's one parse
    calls: list[str] = []
    real = config_toml._load

    def counting(text: str) -> dict[str, Any]:
        calls.append(text)
        return real(text)

    config_toml._load = counting  # type: ignore[assignment]
    try:
        new, info = config_entry.add_entry(data, "toml", ("mcp_servers", "new"), {"command": "z"})
        assert config_entry.remove_entry(new, "toml", ("mcp_servers", "new"), info) == data
    finally:
        config_toml._load = real  # type: ignore[assignment]
    assert tomllib.loads(new.decode())["mcp_servers"]["new"] == {"command": "z"}
    assert [len(parsed) for parsed in calls if len(parsed) > 200] == []
