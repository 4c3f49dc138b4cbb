"""Issue 28 item 5: hostile catalogs, manifests and locks never make uze fail inside.

Generators draw what an attacker commits: a marketplace catalog (`marketplace.json`), a
package's manifests (`plugin.json`, `.claude-plugin/plugin.json`, `gemini-extension.json`,
`.codex-plugin/plugin.json`, `mcp.json`, `hooks.json`), a `uze.toml` and a `uze.lock`, with
values near every rule (paths that climb, absolute, home-relative and overlong, control bytes,
URLs of every scheme, option-like refs, wrong types) and now and then nested past every parser's
stack or holding a number longer than Python converts. The real parsing entry points (the ones
`marketplace add`, `check`, `install` and `status` call) either read the input or refuse it
with a UzeError (a `location: problem` message): never another exception. A few examples go
through the real `uze` in a subprocess, which must exit 0, 1 or 2 without a traceback.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import build_tree, run_uze
from uze.errors import UzeError
from uze.package import read_package
from uze.sources.catalog import parse_catalog
from uze.sources.lockfile import parse_lock
from uze.sources.manifest import parse_manifest, updated_manifest
from uze.sources.spec import Source, parse_source

HOSTILE_TEXT = st.one_of(
    st.sampled_from([
        "", ".", "..", "./", "../x", "../../etc", "/etc/passwd", "~", "~/.ssh", "~root/x",
        "a/../../b", "x/./y", "C:\\x", "\\\\server\\share", "\x00", "a\x00b", "\x1b[2J\x1b]0;t\x07",
        "\u202egnp.exe", "\U000e0069gnore", "owner/repo", "owner/repo/../x", "-oProxyCommand=x",
        "--upload-pack=touch /tmp/x", "git+file:///nonexistent/x.git", "file:///etc",
        "ext::sh -c x", "http://user:tok@127.0.0.1:1/x.git", "ssh://-oProxy@127.0.0.1:1/x",
        "a@127.0.0.1:c",
        "x@market", "@", "#subdirectory=..", "git+https://127.0.0.1:1/x.git@-x#subdirectory=/",
        "a" * 300, "b" * 5000, "${HOME}", "%2e%2e/x", "0" * 40, "ref\n", "name with space",
    ]),
    st.text(max_size=12),
)
SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-2, 2**64), st.floats(allow_nan=True),
                   HOSTILE_TEXT)
JSON = st.recursive(SCALAR, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(HOSTILE_TEXT, inner, max_size=3)),
    max_leaves=8)
NAME = st.one_of(st.sampled_from(["pkg", "a-b", "x" * 64, "x" * 65, "Ab", "a--b"]), HOSTILE_TEXT)
HUGE = "1" * 5000
DEEP = st.sampled_from([65, 1_000, 100_000])  # past the limit, past every parser's stack


def _maybe(value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """`value` most of the time, else any JSON (a wrong type)."""
    return st.one_of(value, value, value, JSON)


def _nest(document: str, levels: int) -> str:
    """`document` (a JSON object's text) with one more key nested `levels` deep."""
    return _add(document, "[" * levels + "]" * levels)


def _add(document: str, value: str) -> str:
    """`document` (a JSON object's text) with one more key holding `value` (JSON text)."""
    return document[:-1].rstrip() + (", " if document.strip() != "{}" else "") + \
        '"added": ' + value + "}"


@st.composite
def _json_text(draw: st.DrawFn, value: st.SearchStrategy[Any]) -> bytes:
    """A drawn document as text: plain, nested past the limit, cut short or not UTF-8."""
    document = json.dumps(draw(value))
    shape = draw(st.sampled_from(["plain", "deep", "huge-number", "cut", "bytes"]))
    if shape == "deep" and document.startswith("{"):
        document = _nest(document, draw(DEEP))
    elif shape == "huge-number" and document.startswith("{"):
        document = _add(document, HUGE)  # past Python's 4300 digits: int() refuses it
    elif shape == "cut":
        document = document[: draw(st.integers(0, len(document)))]
    data = document.encode("utf-8", "surrogatepass")
    return data + b"\xff\xfe" if shape == "bytes" else data


ENTRY_SOURCE = st.one_of(HOSTILE_TEXT, st.fixed_dictionaries(
    {"source": st.one_of(st.sampled_from(["github", "url", "git", "git-subdir", "local", "npm"]),
                         HOSTILE_TEXT)},
    optional={key: _maybe(HOSTILE_TEXT) for key in ("repo", "url", "path", "ref", "sha")}), JSON)
ENTRY = st.fixed_dictionaries({"name": _maybe(NAME), "source": ENTRY_SOURCE}, optional={
    "strict": JSON, "description": _maybe(HOSTILE_TEXT), "version": _maybe(HOSTILE_TEXT),
    "keywords": JSON, "tags": JSON, "skills": JSON, "commands": JSON, "mcpServers": JSON,
    "hooks": JSON, "lspServers": JSON})
CATALOG = st.one_of(st.fixed_dictionaries({"plugins": st.lists(ENTRY, max_size=3)}, optional={
    "name": _maybe(HOSTILE_TEXT),
    "metadata": _maybe(st.fixed_dictionaries({}, optional={"pluginRoot": HOSTILE_TEXT}))}), JSON)
BASES = st.sampled_from([Source("folder", "/nonexistent/market"),
                         Source("git", "https://example.com/m.git", "", "sub")])


@given(_json_text(CATALOG), BASES)
def test_a_hostile_catalog_is_read_or_refused_by_name(raw: bytes, base: Source) -> None:
    try:
        catalog = parse_catalog(raw, "m (.claude-plugin/marketplace.json)", base,
                                "https://github.com")
    except UzeError as error:
        assert "m (.claude-plugin/marketplace.json)" in error.message, error.message
        return
    for entry in catalog.entries:
        assert isinstance(entry.name, str)
        assert entry.source is not None or entry.why


TOML_VALUE = st.one_of(
    HOSTILE_TEXT.map(lambda t: json.dumps(t).replace("\\u0000", "\\u0000")),
    st.sampled_from(["1", "true", "1979-05-27", "[]", "{}", "{a = 1}", "'''x'''", "inf",
                     '"""\nx"""', "[1, 'a']", '"\\uD800"', "", "= =", "[[x]]"]),
    DEEP.map(lambda n: "[" * n + "]" * n),
    DEEP.map(lambda n: "{a = " * n + "1" + "}" * n),
    st.just(HUGE),
)
TOML_KEY = st.one_of(st.sampled_from(["pkg", "a-b", "x" * 65, "packages", "version", "package",
                                      '"a.b"', "'..'", '""']), st.from_regex(r"[A-Za-z0-9_-]{1,8}",
                                                                             fullmatch=True))


@st.composite
def _toml(draw: st.DrawFn, tables: list[str], keys: st.SearchStrategy[str]) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 3))):
        table = draw(st.sampled_from([*tables, "[x]", "[[package]]", "[packages.a]", ""]))
        lines.append(table)
        lines += [f"{draw(keys)} = {draw(TOML_VALUE)}" for _ in range(draw(st.integers(0, 4)))]
    return "\n".join(lines).encode("utf-8", "surrogatepass") + draw(
        st.sampled_from([b"\n", b"", b"\xff"]))


@given(_toml(["[packages]"], TOML_KEY))
def test_a_hostile_uze_toml_is_read_or_refused_by_name(raw: bytes) -> None:
    try:
        declared = parse_manifest(raw, "uze.toml")
    except UzeError as error:
        assert error.message.startswith("uze.toml: "), error.message
        return
    for source in declared.values():
        with contextlib.suppress(UzeError):
            parse_source(source, cwd=Path("/nonexistent/project"), github="https://github.com")
    assert parse_manifest(updated_manifest(raw, "added", "./added", "uze.toml"),
                          "uze.toml")["added"] == "./added"


LOCK_KEY = st.sampled_from(["name", "version", "source", "ref", "subdirectory", "commit", "tree",
                            "marketplace", "harnesses", "reproducible", "extra"])


@given(_toml(["version = 1", "[[package]]"], LOCK_KEY))
def test_a_hostile_uze_lock_is_read_or_refused_by_name(raw: bytes) -> None:
    try:
        locked = parse_lock(raw, "uze.lock")
    except UzeError as error:
        assert error.message.startswith(("uze.lock: ", "uze.lock was written")), error.message
        return
    for pkg in locked.values():
        with contextlib.suppress(UzeError):
            parse_source(pkg.declared(), cwd=Path("/nonexistent/project"),
                         github="https://github.com")


MANIFESTS = ("plugin.json", ".claude-plugin/plugin.json", "gemini-extension.json",
             ".codex-plugin/plugin.json", "mcp.json", ".mcp.json", "hooks.json", "hooks/hooks.json")
MANIFEST = st.one_of(st.fixed_dictionaries({}, optional={
    "name": _maybe(NAME), "version": _maybe(HOSTILE_TEXT), "description": _maybe(HOSTILE_TEXT),
    "skills": JSON, "commands": JSON, "agents": JSON, "hooks": JSON, "mcpServers": JSON,
    "lspServers": JSON, "contextFileName": JSON, "settings": JSON, "userConfig": JSON}), JSON)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(MANIFESTS), _json_text(MANIFEST), min_size=1, max_size=3))
def test_a_package_with_hostile_manifests_is_read_or_refused_by_location(
        files: dict[str, bytes]) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = build_tree(Path(scratch) / "pkg", {
            "skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\nB\n", **files})
        try:
            package = read_package(root)
        except UzeError as error:
            assert error.message, error
            return
    assert package.name


# The command line, a few examples each: the real uze reads what was drawn and answers with
# exit 0, 1 or 2, never a traceback (exit 3 is the internal-error path).
_CLI = settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _offline() -> dict[str, str]:
    """The sandbox's environment, with GitHub shorthand (`owner/repo`) on a folder that does
    not exist: no example reaches the network."""
    return {**os.environ, "UZE_GITHUB_URL": "file:///nonexistent/github"}


def _assert_answers(result: Any) -> None:
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, \
        result.stderr
    assert result.returncode in (0, 1, 2), result.stderr


@_CLI
@given(_json_text(CATALOG))
def test_uze_marketplace_add_answers_a_hostile_catalog(raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        market = build_tree(Path(scratch) / "market", {".claude-plugin/marketplace.json": raw})
        _assert_answers(run_uze("marketplace", "add", market, cwd=Path(scratch), env=_offline()))
        _assert_answers(run_uze("search", "a", cwd=Path(scratch), env=_offline()))


@_CLI
@given(_toml(["[packages]"], TOML_KEY), _toml(["version = 1", "[[package]]"], LOCK_KEY))
def test_uze_install_and_status_answer_a_hostile_manifest_and_lock(
        manifest: bytes, lock: bytes) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        project = build_tree(Path(scratch) / "project", {
            ".git/HEAD": "ref: refs/heads/main\n", "uze.toml": manifest, "uze.lock": lock})
        _assert_answers(run_uze("install", "--harness", "codex", cwd=project, env=_offline()))
        _assert_answers(run_uze("status", cwd=project, env=_offline()))


@_CLI
@given(st.dictionaries(st.sampled_from(MANIFESTS), _json_text(MANIFEST), min_size=1, max_size=3))
def test_uze_check_answers_a_package_with_hostile_manifests(files: dict[str, bytes]) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = build_tree(Path(scratch) / "pkg", files)
        _assert_answers(run_uze("check", root, "--harness", "all", cwd=Path(scratch),
                                env=_offline()))
