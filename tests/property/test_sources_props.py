"""Issue 22: source strings parse and print back canonically, without credentials; the lock's
bytes do not depend on the order packages were declared or pinned in."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from uze.errors import UsageError
from uze.sources.lockfile import LockedPackage, dump_lock, parse_lock
from uze.sources.manifest import parse_manifest, render_manifest, updated_manifest
from uze.sources.spec import Source, parse_source

ROOT = Path("/nonexistent-root-for-source-tests")
segment = st.from_regex(r"[a-z0-9][a-z0-9_-]{0,8}", fullmatch=True)
ref = st.one_of(st.just(""), st.from_regex(r"[a-z0-9][a-z0-9._-]{0,8}[a-z0-9]", fullmatch=True)
                .filter(lambda r: ".." not in r and not r.endswith(".lock")),
                st.from_regex(r"[0-9a-f]{40}", fullmatch=True))
subdir = st.one_of(st.just(""), st.lists(segment, min_size=1, max_size=3).map("/".join))
host = st.sampled_from(["github.com", "git.example.org", "127.0.0.1:8080", "[::1]:9418"])
secret = st.from_regex(r"[A-Za-z0-9]{6,12}", fullmatch=True)


@st.composite
def urls(draw: st.DrawFn) -> tuple[str, str]:
    """(URL with credentials, URL without) for every scheme uze accepts."""
    path = "/".join(draw(st.lists(segment, min_size=1, max_size=3))) + ".git"
    scheme = draw(st.sampled_from(["https", "ssh", "git", "file", "scp", "http"]))
    token = draw(secret)
    if scheme == "file":
        return f"file:///{path}", f"file:///{path}"
    if scheme == "scp":
        return f"git@example.com:{path}", f"git@example.com:{path}"
    if scheme == "http":
        return f"http://u:{token}@127.0.0.1:8000/{path}", f"http://127.0.0.1:8000/{path}"
    if scheme == "ssh":
        where = draw(host)
        return f"ssh://git:{token}@{where}/{path}", f"ssh://git@{where}/{path}"
    where = draw(host)
    return f"{scheme}://{token}@{where}/{path}", f"{scheme}://{where}/{path}"


@given(urls(), ref, subdir)
def test_a_git_source_prints_canonically_and_parses_back_without_credentials(
        url: tuple[str, str], at: str, sub: str) -> None:
    given_url, _clean = url
    text = f"git+{given_url}" + (f"@{at}" if at else "") + (f"#subdirectory={sub}" if sub else "")
    source = parse_source(text, cwd=ROOT)
    canonical = source.canonical()
    assert (source.ref, source.subdirectory) == (at, sub)
    again = parse_source(canonical, cwd=ROOT)
    assert again.canonical() == canonical
    assert again == Source("git", source.location, at, sub)
    assert source.url == given_url  # git gets what the user gave, for this command only
    for part in given_url.replace("@", ":").split(":"):
        if part.startswith("//") or not part.isalnum() or len(part) < 6 or part == "git":
            continue
        if part not in _clean and part not in at and part not in sub:  # not also said elsewhere
            assert part not in canonical


@given(segment, segment, subdir, ref)
def test_the_shorthand_is_the_same_source_as_its_canonical_form(
        owner: str, repo: str, sub: str, at: str) -> None:
    text = f"{owner}/{repo}" + (f"/{sub}" if sub else "") + (f"@{at}" if at else "")
    source = parse_source(text, cwd=ROOT, github="http://127.0.0.1:9")
    assert source.location == f"http://127.0.0.1:9/{owner}/{repo}.git"
    assert parse_source(source.canonical(), cwd=ROOT) == source


@pytest.mark.parametrize("text", [
    "git+https://example.com/a.git#egg=x", "git+ftp://example.com/a.git", "http://example.com/a.git",
    "git+https://example.com/a.git@..bad",
    "git+https://example.com/a.git#subdirectory=../up",
    "git+https://exa mple.com/a.git", "nothing-here", "", "git+https://example.com/a.git@v1@v2x/..",
])
def test_bad_sources_are_usage_errors_naming_the_source(text: str) -> None:
    with pytest.raises(UsageError, match="invalid source"):
        parse_source(text, cwd=ROOT)


def test_a_leading_dot_slash_or_an_existing_path_is_always_a_folder(tmp_path: Path) -> None:
    (tmp_path / "acme" / "flow").mkdir(parents=True)
    assert parse_source("acme/flow", cwd=tmp_path).kind == "folder"
    assert parse_source("./flow@main", cwd=tmp_path).kind == "folder"
    assert parse_source("acme/other", cwd=tmp_path).kind == "git"
    assert parse_source("flow@market", cwd=tmp_path).kind == "marketplace"


def _pin(name: str, n: int) -> LockedPackage:
    return LockedPackage(name=name, version=f"1.{n}.0", source="git+https://example.com/r.git",
                         ref="v1" if n % 2 else "", subdirectory="p" if n % 3 else "",
                         commit=f"{n:040x}", tree=f"{n:064x}", harnesses=["claude_code", "codex"],
                         reproducible=bool(n % 4))


names = st.lists(st.from_regex(r"[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,4})?", fullmatch=True),
                 min_size=0, max_size=8, unique=True)


@given(names, st.randoms())
def test_the_lock_is_byte_identical_whatever_the_order_and_reads_back(
        found: list[str], shuffle: random.Random) -> None:
    pins = [_pin(name, i) for i, name in enumerate(found)]
    data = dump_lock(pins)
    shuffled = list(pins)
    shuffle.shuffle(shuffled)
    assert dump_lock(shuffled) == data
    assert parse_lock(data, "uze.lock") == {p.name: p for p in pins}


@given(names, st.randoms())
def test_the_manifest_uze_writes_does_not_depend_on_install_order(
        found: list[str], shuffle: random.Random) -> None:
    order = list(found)
    shuffle.shuffle(order)
    raw: bytes | None = None
    for name in order:
        raw = updated_manifest(raw, name, f"./plugins/{name}", "uze.toml")
    expected = render_manifest({n: f"./plugins/{n}" for n in found})
    assert (raw if found else render_manifest({})) == expected
    assert parse_manifest(expected, "uze.toml") == {n: f"./plugins/{n}" for n in found}


def test_a_manifest_the_user_wrote_keeps_its_comments_and_order() -> None:
    raw = b'# our plugins\n[packages]\nzeta = "./z"  # the z one\nalpha = "./a"\n'
    added = updated_manifest(raw, "mid", "./m", "uze.toml")
    assert added.startswith(raw)
    assert b'mid = "./m"' in added
    assert updated_manifest(added, "mid", None, "uze.toml") == raw


@pytest.mark.parametrize("raw, problem", [
    (b'[packages]\nflow = "./f"\n[extra]\n', "extra: unknown key"),
    (b'[packages]\nFlow = "./f"\n', "packages.Flow: invalid package name"),
    (b'[packages]\nflow = 3\n', "packages.flow: the source must be a non-empty string"),
    (b'packages = [', "not valid TOML"),
])
def test_an_invalid_manifest_is_an_error_with_its_location(raw: bytes, problem: str) -> None:
    from uze.errors import UzeError

    with pytest.raises(UzeError, match=problem.replace(".", r"\.")):
        parse_manifest(raw, "uze.toml")
