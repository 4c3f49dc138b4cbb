"""A committed uze.lock or uze.toml is validated as strictly as a source typed on the command
line (ADR 0057), and UZE_GIT_TIMEOUT is a number of seconds (ADR 0058)."""

from __future__ import annotations

import msgspec
import pytest

from uze.errors import UzeError
from uze.paths import Paths
from uze.sources.git import SILENCE, git_timeout
from uze.sources.lockfile import LockedPackage, dump_lock, parse_lock
from uze.sources.manifest import parse_manifest

COMMIT = "a" * 40
TREE = "b" * 64
GOOD = {"source": '"git+https://example.com/acme/flow.git"', "commit": f'"{COMMIT}"'}


def _lock(**fields: str) -> bytes:
    body = {"name": '"flow"', "version": '"1.0.0"', "tree": f'"{TREE}"',
            "harnesses": '["claude_code"]', **GOOD, **fields}
    lines = "".join(f"{key} = {value}\n" for key, value in body.items() if value)
    return f"version = 1\n\n[[package]]\n{lines}".encode()


def test_a_lock_written_as_uze_writes_it_is_read() -> None:
    assert parse_lock(_lock(), "uze.lock")["flow"].commit == COMMIT
    folder = parse_lock(_lock(source='"~/pkgs/flow"', commit=""), "uze.lock")
    assert folder["flow"].source == "~/pkgs/flow"
    switched = parse_lock(_lock(disabled='["*@codex", "review"]'), "uze.lock")["flow"]
    assert switched.disabled == ["*@codex", "review"]
    assert dump_lock([switched]).endswith(b'disabled = ["*@codex", "review"]\n')
    given = parse_lock(_lock(settings='{ label = "desk \\"A\\"", region = "eu" }'),
                       "uze.lock")["flow"]
    assert given.settings == {"label": 'desk "A"', "region": "eu"}
    assert dump_lock([given]).endswith(
        b'settings = { "label" = "desk \\"A\\"", "region" = "eu" }\n')
    assert parse_lock(dump_lock([given]), "uze.lock")["flow"] == given


@pytest.mark.parametrize(("fields", "said"), [
    ({"source": '"git+https://user:tok@example.com/acme/flow.git"'}, "canonical form"),
    ({"source": '"git+https://example.com/acme/flow.git@v1"'}, "canonical form"),
    ({"source": '"git+ext::sh -c evil"'}, "invalid source"),
    ({"source": '"git+http://example.com/acme/flow.git"'}, "plain http"),
    ({"commit": ""}, "pinned by its commit"),
    ({"ref": '"../main"'}, "not a valid git ref"),
    ({"subdirectory": '"a//b"'}, "canonical form"),
    ({"subdirectory": '"../up"'}, "inside the repository"),
    ({"marketplace": '"Team Market"'}, "not a marketplace name"),
    ({"version": '"1.0\\u001b[2J"'}, "not a version"),
    ({"version": '""'}, "not a version"),  # dump_lock would leave it out: unreadable
    ({"version": '".1"'}, "not a version"),
    ({"source": '"plugins/flow"', "commit": ""}, "neither a git+ URL nor a folder"),
    ({"source": '"./plugins/\\u202eflow"', "commit": ""}, "neither a git+ URL nor a folder"),
    ({"source": '"./plugins/flow"'}, "a folder source has no ref, commit or subdirectory"),
    ({"disabled": '["review@Codex"]'}, "is not RESOURCE or RESOURCE@HARNESS"),
    ({"disabled": '["@codex"]'}, "is not RESOURCE or RESOURCE@HARNESS"),
    ({"disabled": '["../x"]', "source": '"./plugins/flow"', "commit": ""},
     "is not RESOURCE or RESOURCE@HARNESS"),
    ({"settings": '{ "x y" = "1" }'}, "settings"),
    ({"settings": '{ label = "a\\u001b[2J" }'}, "settings"),
])
def test_a_lock_entry_is_refused_where_a_typed_source_would_be(
        fields: dict[str, str], said: str) -> None:
    with pytest.raises(UzeError) as refused:
        parse_lock(_lock(**fields), "uze.lock")
    assert refused.value.message.startswith("uze.lock: flow: ") and said in refused.value.message
    assert "tok@" not in refused.value.message  # the credential is not repeated


@pytest.mark.parametrize("source", ["./plugins/flow", "~/pkgs/flow", "../elsewhere/flow",
                                    "git+https://example.com/acme/flow.git@v1",
                                    "git+git@example.com:acme/flow.git", "flow@team",
                                    "acme/flow@v1"])
def test_a_manifest_source_of_every_form_uze_writes_or_a_person_types_is_read(
        source: str) -> None:
    assert parse_manifest(f'[packages]\nflow = "{source}"\n'.encode(), "uze.toml") == \
        {"flow": source}


@pytest.mark.parametrize(("source", "said"), [
    ("git+https://user:tok@example.com/acme/flow.git", "holds a credential"),
    ("https://tok@example.com/acme/flow.git", "holds a credential"),
    ("user:tok@example.com:acme/flow.git", "would be sent as the path"),
    ("ext::sh -c evil", "invalid source"),
    ("./plugins/\\u202eflow", "control characters"),
])
def test_a_manifest_source_that_could_not_be_typed_or_holds_a_credential_is_refused(
        source: str, said: str) -> None:
    with pytest.raises(UzeError) as refused:
        parse_manifest(f'[packages]\nflow = "{source}"\n'.encode(), "uze.toml")
    assert refused.value.message.startswith("uze.toml: packages.flow: ")
    assert said in refused.value.message


@pytest.mark.parametrize(("value", "seconds"), [("", SILENCE), ("2", 2.0), ("0.5", 0.5)])
def test_uze_git_timeout_is_seconds_of_silence(value: str, seconds: float) -> None:
    env = {"UZE_GIT_TIMEOUT": value} if value else {}
    assert git_timeout(Paths.from_env({"HOME": "/h", "UZE_HOME": "/u", **env})) == seconds


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon"])
def test_a_uze_git_timeout_that_is_not_seconds_above_zero_is_named(value: str) -> None:
    with pytest.raises(UzeError, match="UZE_GIT_TIMEOUT"):
        git_timeout(Paths.from_env({"HOME": "/h", "UZE_HOME": "/u", "UZE_GIT_TIMEOUT": value}))


def test_a_pin_is_checked_before_it_is_written_unless_the_lock_reader_built_it() -> None:
    """dump_lock trusts only the very objects parse_lock handed out (msgspec built them from
    what it checked): a pin changed after reading, or built by hand, is checked again."""
    read = parse_lock(_lock(), "uze.lock")["flow"]
    assert parse_lock(dump_lock([read]), "uze.lock") == {"flow": read}
    for bad in (msgspec.structs.replace(read, name="Not A Name"),
                LockedPackage(name="flow", version="1", source="./f", tree="short",
                              harnesses=[])):
        with pytest.raises(msgspec.ValidationError):
            dump_lock([read, bad] if bad.name != read.name else [bad])


def test_a_lock_read_is_written_back_as_dump_lock_writes_it_whatever_its_own_form() -> None:
    """dump_lock writes a pin read from a lock again as it renders it, not as the lock spelt it
    (unsorted lists, empty fields and lists, escapes), and as the lock spelt it when that is
    the same."""
    pin = LockedPackage(name="flow", version="1.0.0", source="git+https://example.com/acme/f.git",
                        commit=COMMIT, tree=TREE, harnesses=["claude_code", "codex"],
                        disabled=["b", "review"])
    rendered = dump_lock([pin])
    assert dump_lock(parse_lock(rendered, "uze.lock").values()) == rendered
    for old, new in (('["claude_code", "codex"]', '["codex", "claude_code"]'),
                     ('["b", "review"]', '["review", "b"]'),
                     ('\ncommit = ', '\nref = ""\ncommit = '),
                     ('\nharnesses = ', '\nskills = []\nharnesses = '),
                     ('"review"', '"revi\\u0065w"')):
        spelt = rendered.replace(old.encode(), new.encode())
        assert spelt != rendered
        assert list(parse_lock(spelt, "uze.lock")) == ["flow"]
        assert dump_lock(parse_lock(spelt, "uze.lock").values()) == rendered
