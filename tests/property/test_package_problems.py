"""msgspec and the problem walk of `uze.package.problems` refuse exactly the same values
(ADR 0038).

uze reads plugin.json, mcp.json servers and hook groups with msgspec Structs and walks the
Struct over the raw value only when msgspec refuses, to list every problem. If the walk found
nothing where msgspec refuses, a valid-looking package would fail with msgspec's wording; if it
found a problem where msgspec accepts, the reader and the walk would disagree on the rules.
Values are drawn near every rule: each key's type, empty strings, name rules and lengths, the
timeout bounds and total, matchers, the transport keys, unknown keys and aliases under their
Python names. The wording of the walk is the wording the pydantic twins it replaced used
(compared on these strategies before they were removed; the expectations below pin it).
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uze.package.convert import convert
from uze.package.hooks import HookGroup, HookHandler
from uze.package.manifest import Manifest, McpServer, Strict
from uze.package.problems import problems

_DROP = object()
SCALARS = st.sampled_from([None, True, False, 0, 1, 1.0, "", "x", "Ab"])
JSON = st.one_of(
    SCALARS,
    st.lists(SCALARS, max_size=2),
    st.dictionaries(st.sampled_from(["a", "X-Client"]), SCALARS, max_size=2),
)


def _key(valid: st.SearchStrategy[Any], *edges: Any) -> st.SearchStrategy[Any]:
    """A key's value: valid most of the time, else one of its edge cases or any JSON."""
    edge = st.sampled_from(edges) if edges else JSON
    return st.sampled_from([valid] * 6 + [edge, JSON]).flatmap(lambda chosen: chosen)


def _objects(required: dict[str, st.SearchStrategy[Any]],
             optional: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """An object of those keys; now and then a required key is missing or an unknown key (or
    a key under its Python name instead of its alias) is added."""
    base = st.fixed_dictionaries({}, optional={**required, **optional})
    whole = st.fixed_dictionaries(required, optional=optional)
    extra = st.dictionaries(st.sampled_from(["unknown", "display_name", "mcp_servers", "name "]),
                            JSON, min_size=1, max_size=1)
    shapes = [whole] * 6 + [base, st.builds(lambda b, n: {**b, **n}, whole, extra)]
    return st.sampled_from(shapes).flatmap(lambda chosen: chosen)


TEXT = st.sampled_from(["x", "./run.sh", "${PLUGIN_ROOT}/s"])
NAME = _key(st.sampled_from(["pkg", "a-b", "a" * 32]), "a" * 33, "a" * 64, "a" * 65, "Ab",
            "a--b", "-a", "", 1)
STRINGS = _key(st.lists(TEXT, max_size=2), [""], [1], ["x", None], "x", {})
STRING_MAP = _key(st.dictionaries(st.sampled_from(["A", "B"]), TEXT, max_size=2),
                  {"A": 1}, {"A": None}, {"A": ""}, [], "x")
COMMAND = _key(TEXT, "", None, 1, ["x"])
BOOL = _key(st.booleans(), 0, 1, "true", None)

MANIFEST = _objects(
    {"name": NAME},
    {"version": _key(TEXT, 2, None, ""), "description": _key(TEXT, None, 1),
     "extensions": _key(st.just({"uze": {}}), {}, None, [], "x", {"uze": 1}),
     "displayName": JSON, "$schema": JSON, "author": JSON, "mcpServers": JSON,
     "outputStyles": JSON, "interface": JSON, "hooks": JSON},
)
SERVER = st.one_of(
    _objects({"name": NAME, "command": COMMAND},
             {"args": STRINGS, "env": STRING_MAP, "cwd": _key(TEXT, None, "", 1),
              "enabled": BOOL, "url": _key(st.just(None), "https://x"),
              "headers": _key(st.just({}), {"A": "b"})}),
    _objects({"name": NAME, "url": COMMAND},
             {"type": _key(st.sampled_from(["http", "sse"]), "ftp", "HTTP", None, 1),
              "headers": STRING_MAP, "enabled": BOOL,
              "command": _key(st.just(None), "x"), "args": _key(st.just([]), ["x"])}),
)
HANDLER = _objects(
    {"type": _key(st.just("command"), "http", "", None), "command": COMMAND},
    {"args": _key(st.lists(TEXT, max_size=2), None, [1]),
     "timeout": _key(st.sampled_from([1, 30, 100, 300]), 0, -1, 301, 1.0, True, "30", None)},
)
GROUP = _objects(
    {"hooks": _key(st.lists(HANDLER, min_size=1, max_size=3), [], {}, "x")},
    {"id": _key(TEXT, 1, ""),
     "matcher": _key(st.sampled_from(["shell", "shell|file.read", "native:Bash"]),
                     "bogus", "native:", "shell|", "", "Shell", None),
     "effect": _key(st.sampled_from(["observe", "allow", "ask", "deny", "transform"]),
                    "block", "", None)},
)


def _read(kind: type[Strict], raw: dict[str, Any]) -> Strict | None:
    """What the reader's fast path makes of `raw`: the Struct, or None when it refuses."""
    if kind.given_problem(raw):
        return None
    try:
        return msgspec.convert(raw, kind)
    except msgspec.ValidationError:
        return None


def _agree(kind: type[Strict], raw: dict[str, Any]) -> None:
    value = _read(kind, raw)
    found = problems(kind, raw, "file.json")
    assert (value is None) == bool(found), (raw, found)


@settings(max_examples=400)
@given(MANIFEST)
def test_manifest_read_and_walk_agree(raw: dict[str, Any]) -> None:
    _agree(Manifest, raw)


@settings(max_examples=400)
@given(SERVER)
def test_mcp_server_read_and_walk_agree(raw: dict[str, Any]) -> None:
    _agree(McpServer, raw)


@settings(max_examples=400)
@given(GROUP)
def test_hook_group_read_and_walk_agree(raw: dict[str, Any]) -> None:
    _agree(HookGroup, raw)


# One valid value per Struct, and for each key the values to try in its place (or None: drop
# it). Every single edit is checked; the strategies above check edits in combination.
_ANY: list[Any] = [None, True, 0, 1.5, "", "x", [], ["x"], {}, {"a": 1}]
_STR: list[Any] = [None, 1, True, "", "x", ["x"], {}]
_STRINGS: list[Any] = [[], ["x"], [""], [1], ["x", None], "x", {}, None]
_STRING_MAP: list[Any] = [{}, {"A": "b"}, {"A": ""}, {"A": 1}, {"A": None}, [], "x", None]
_NAMES: list[Any] = ["a", "a-b", "a" * 32, "a" * 33, "a" * 64, "a" * 65, "Ab", "a--b", "-a", "a_b",
                     "", 1]
EDITS: list[tuple[type[Strict], dict[str, Any], dict[str, list[Any]]]] = [
    (Manifest, {"name": "pkg"}, {
        "name": _NAMES, "version": _STR, "description": _STR,
        "extensions": [{}, {"uze": {}}, {"uze": 1}, [], "x", None, 1],
        **{key: _ANY for key in ("author", "homepage", "repository", "license", "keywords",
                                 "displayName", "$schema", "commands", "agents", "skills",
                                 "hooks", "mcpServers", "outputStyles", "lspServers", "apps",
                                 "interface")},
        **{key: ["x"] for key in ("display_name", "schema_url", "mcp_servers", "unknown")},
    }),
    (McpServer, {"name": "s", "command": "x"}, {
        "name": _NAMES, "command": _STR, "args": _STRINGS, "env": _STRING_MAP, "cwd": _STR,
        "url": _STR, "type": ["http", "sse", "ftp", "HTTP", None, 1],
        "headers": _STRING_MAP, "enabled": [True, False, 0, 1, "true", None], "unknown": [1],
    }),
    (McpServer, {"name": "s", "url": "https://x"}, {
        "url": _STR, "command": _STR, "args": _STRINGS, "env": _STRING_MAP, "cwd": _STR,
        "type": ["http", "sse", "ftp", "HTTP", None, 1], "headers": _STRING_MAP,
    }),
    (HookHandler, {"type": "command", "command": "x"}, {
        "type": ["command", "http", "", None], "command": _STR,
        "args": [None, *_STRINGS], "timeout": [1, 30, 300, 0, -1, 301, 1.0, True, "30", None],
        "unknown": [1],
    }),
    (HookGroup, {"hooks": [{"type": "command", "command": "x"}]}, {
        "hooks": [[], {}, "x", [1], [{"type": "command", "command": "x", "timeout": 300}] * 2,
                  [{"type": "command", "command": "x", "timeout": 150}] * 2],
        "id": _STR,
        "matcher": ["shell", "shell|file.read", "native:Bash", "native:", "bogus", "shell|",
                    "|shell", "Shell", "", None, 1],
        "effect": ["observe", "allow", "ask", "deny", "transform", "block", "", None],
        "unknown": [1],
    }),
]
SINGLE_EDITS = [
    pytest.param(kind, {**base, key: value} if value is not _DROP else
                 {k: v for k, v in base.items() if k != key},
                 id=f"{kind.__name__}-{key}-{value!r}"[:80])
    for kind, base, keys in EDITS
    for key, values in keys.items()
    for value in [*values, _DROP]
]


@pytest.mark.parametrize(("kind", "raw"), SINGLE_EDITS)
def test_every_single_edit_is_judged_alike(kind: type[Strict], raw: dict[str, Any]) -> None:
    _agree(kind, raw)


@pytest.mark.parametrize(("kind", "raw"), [
    (Manifest, {"name": "pkg", "displayName": None}),
    (McpServer, {"name": "s", "command": "x"}),
    (McpServer, {"name": "s", "url": "https://x", "type": "sse", "headers": {}}),
    (HookGroup, {"hooks": [{"type": "command", "command": "x", "timeout": 300}]}),
])
def test_a_valid_value_is_read_without_the_walk(kind: type[Strict],
                                                       raw: dict[str, Any]) -> None:
    issues: list[str] = []
    assert isinstance(convert(raw, kind, "file.json", issues), kind)
    assert issues == []


@pytest.mark.parametrize(("kind", "raw", "expected"), [
    (Manifest, {"name": "Pkg", "version": 2, "extra": 1},
     ["file.json: extra: unknown key", "file.json: name: invalid name 'Pkg': use lowercase "
      "letters, digits and single hyphens, at most 64 characters",
      "file.json: version: must be a string"]),
    (McpServer, {"name": "s", "command": "x", "headers": {}},
     ["file.json: headers only apply to a remote (url) server"]),
    (HookGroup, {"matcher": "bogus", "hooks": [{"type": "command", "command": ""}, 1]},
     ["file.json: hooks[0].command: must not be empty",
      "file.json: hooks[1]: must be a JSON object",
      "file.json: matcher: unknown tool 'bogus': use agent.message, agent.spawn, file.edit, "
      "file.read, file.write, search.files, search.web, shell or native:<tool>"]),
])
def test_a_refused_value_gets_every_problem_in_uze_wording(
    kind: type[Strict], raw: dict[str, Any], expected: list[str]
) -> None:
    issues: list[str] = []
    assert convert(raw, kind, "file.json", issues) is None
    assert sorted(issues) == expected


def test_a_value_only_msgspec_refuses_is_still_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should the walk ever find nothing where msgspec refuses, the value is refused all the
    same, with msgspec's words."""
    monkeypatch.setattr("uze.package.convert.problems", lambda *args, **kwargs: [])
    issues: list[str] = []
    raw = {"name": "s", "command": "x"}

    assert convert(raw, Manifest, "plugin.json", issues) is None
    assert issues == ["plugin.json: Object contains unknown field `command`"]


@pytest.mark.parametrize(("kind", "raw", "expected"), [
    (McpServer, {"name": 1, "command": "x", "type": "ftp", "env": {"A": 1}, "args": ["x", 2]},
     ["file.json: args[1]: must be a string", "file.json: env.A: must be a string",
      "file.json: name: must be a string", "file.json: type: must be 'http' or 'sse'"]),
    (HookGroup, {"effect": "block", "hooks": [{"type": "http", "command": "x", "timeout": 301},
                                             {"command": "x", "timeout": True}]},
     ["file.json: effect: must be 'observe', 'allow', 'ask', 'deny' or 'transform'",
      "file.json: hooks[0].timeout: must be less than or equal to 300",
      "file.json: hooks[0].type: must be 'command', 'prompt' or 'agent'",
      "file.json: hooks[1].timeout: must be a whole number",
      "file.json: hooks[1].type: required key missing"]),
    (HookGroup, {"hooks": [{"type": "command", "command": "x", "timeout": 200}] * 2},
     ["file.json: the handlers' timeouts add up to 400 seconds; a group may take at most 300"]),
    (Manifest, {"name": "pkg", "extensions": [], "description": None, "version": ""},
     ["file.json: extensions: must be a JSON object",
      "file.json: version: invalid version '': use letters, digits and . + _ ~ - (starting "
      "with a letter or digit), at most 64 characters"]),
])
def test_every_kind_of_problem_in_uze_wording(kind: type[Strict], raw: dict[str, Any],
                                              expected: list[str]) -> None:
    assert sorted(problems(kind, raw, "file.json")) == expected
