"""Sources that choose (adr/0075, adr/0076): `#plugin=` and `#skill=` selections read back as
written, and a catalog's `metadata.pluginRoot` applies to bare names only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from uze.errors import UsageError, UzeError
from uze.sources.catalog import parse_catalog, plugin_root
from uze.sources.spec import Source, parse_source

HERE = Path("/nonexistent")


@pytest.mark.parametrize(("text", "options", "canonical"), [
    ("owner/repo", {"plugin": "docs"}, "git+https://github.com/owner/repo.git#plugin=docs"),
    ("owner/repo#plugin=docs&skill=pdf", {},
     "git+https://github.com/owner/repo.git#plugin=docs&skill=pdf"),
    ("git+https://x.org/a.git@v1#subdirectory=m&plugin=d&skill=a&skill=b", {},
     "git+https://x.org/a.git@v1#subdirectory=m&plugin=d&skill=a&skill=b"),
    ("./kit#skill=a", {}, "./kit#skill=a"),
    ("./kit", {"skills": ("a", "b", "a")}, "./kit#skill=a&skill=b"),
    ("docs@market#skill=pdf", {}, "docs@market#skill=pdf"),
    ("file:///srv/m.git#plugin=a", {}, "git+file:///srv/m.git#plugin=a"),
])
def test_a_selection_is_part_of_the_source_and_reads_back(
        text: str, options: dict[str, object], canonical: str) -> None:
    source = parse_source(text, cwd=HERE, **options)  # type: ignore[arg-type]
    assert source.canonical() == canonical
    assert parse_source(canonical, cwd=HERE) == source


@pytest.mark.parametrize(("text", "options", "message"), [
    ("owner/repo#plugin=a&plugin=b", {}, "say the plugin once"),
    ("owner/repo#plugin=a", {"plugin": "b"}, "say the plugin once"),
    ("git+https://x.org/a.git#plugin=../x", {}, "'../x' is not a plugin name"),
    ("git+https://x.org/a.git#color=red", {}, "the fragment 'color=red' is not understood"),
    ("owner/repo", {"skills": ("a b",)}, "'a b' is not a plugin or skill name"),
])
def test_a_bad_selection_is_a_usage_error_naming_it(
        text: str, options: dict[str, object], message: str) -> None:
    with pytest.raises(UsageError, match="invalid source") as raised:
        parse_source(text, cwd=HERE, **options)  # type: ignore[arg-type]
    assert message in raised.value.message


@pytest.mark.parametrize(("metadata", "root"), [
    ({"pluginRoot": "./plugins"}, "plugins"), ({"pluginRoot": "plugins/"}, "plugins"),
    ({"pluginRoot": "."}, ""), ({"pluginRoot": "./"}, ""), ({}, None),
    ({"pluginRoot": "/abs"}, None), ({"pluginRoot": "../up"}, None),
    ({"pluginRoot": "a/./b"}, None), ({"pluginRoot": "c:x"}, None), ({"pluginRoot": 3}, None),
    (None, None),
])
def test_plugin_root_is_read_as_claude_code_reads_it(metadata: object, root: str | None) -> None:
    assert plugin_root(metadata) == root


def _entries(catalog: dict[str, object]) -> dict[str, tuple[Source | None, str]]:
    parsed = parse_catalog(json.dumps(catalog).encode(), "m", Source("folder", "/m"),
                           "https://github.com")
    return {e.name: (e.source, e.why) for e in parsed.entries}


def test_plugin_root_applies_once_to_bare_names_only() -> None:
    found = _entries({"metadata": {"pluginRoot": "./plugins"}, "plugins": [
        {"name": "a", "source": "a"}, {"name": "b", "source": "./plugins/b"},
        {"name": "c", "source": "./c"}, {"name": "d", "source": "plugins/d"}]})
    assert {n: s.location for n, (s, _w) in found.items() if s} == {
        "a": "/m/plugins/a", "b": "/m/plugins/b", "c": "/m/c", "d": "/m/plugins/d"}
    bare = _entries({"plugins": [{"name": "a", "source": "a"}]})
    assert bare["a"] == (None, "a bare source name, and the marketplace sets no usable "
                               "metadata.pluginRoot")


def test_entry_lists_are_kept_as_given_for_the_selection() -> None:
    parsed = parse_catalog(json.dumps({"plugins": [
        {"name": "a", "source": "./", "skills": ["./skills/x"], "commands": "./c"},
        {"name": "b", "source": "./b"}]}).encode(), "m", Source("folder", "/m"), "")
    assert parsed.entries[0].lists == {"skills": ["./skills/x"], "commands": "./c"}
    assert parsed.entries[1].lists == {}
    with pytest.raises(UzeError, match="source"):
        parse_catalog(b'{"plugins": [{"name": "a", "source": "../out"}]}', "m",
                      Source("folder", "/m"), "")


def test_a_lock_keeps_the_plugin_and_skills_and_refuses_ones_that_would_not_read_back() -> None:
    from uze.sources.lockfile import LockedPackage, dump_lock, parse_lock

    pin = LockedPackage(name="docs", version="1.0.0", source="git+https://x.org/m.git",
                        commit="a" * 40, tree="b" * 64, plugin="docs", skills=["pdf", "xlsx"],
                        harnesses=["codex"])
    raw = dump_lock([pin])
    assert b'plugin = "docs"\nskills = ["pdf", "xlsx"]\n' in raw
    assert parse_lock(raw, "uze.lock")["docs"] == pin
    assert pin.declared() == "git+https://x.org/m.git#plugin=docs&skill=pdf&skill=xlsx"
    hostile = raw.replace(b'"xlsx"', b'"x&skill=y"')
    with pytest.raises(UzeError, match="plugin and skills must be names"):
        parse_lock(hostile, "uze.lock")
