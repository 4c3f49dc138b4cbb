"""Source strings: what `uze install SOURCE` accepts, parsed into a `Source` and printed back
canonically (ADR 0023).

Accepted, in this order: a leading `./`, `../`, `/` or `~`, or an existing path, is a folder;
`git+<url>[@ref][#subdirectory=path]` (pip's direct-reference form); a plain `ssh://`, `git://`
or `file://` URL, an `https://` URL ending in `.git`, or `user@host:path.git` (scp form);
`plugin@marketplace`; `owner/repo[/path][@ref]` against https://github.com (or `UZE_GITHUB_URL`).
The canonical form of a git source is always `git+<url>[@ref][#subdirectory=path]` with the
credentials taken out of the URL: what the manifest and the lock hold. The URL as given (with
its credentials, if any) stays in memory, in `fetch_url`, for this command only.

Any source may end in a selection (adr/0075, adr/0076): `#plugin=NAME` installs the plugin
NAME of the marketplace at that source's root, `skill=NAME` (repeatable) only those skills of
the package, joined by `&` (`git+<url>#subdirectory=m&plugin=docs&skill=pdf`,
`./market#plugin=docs`, `docs@market#skill=pdf`); the options `--plugin` and `--skill` say the
same.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final, Literal
from urllib.parse import urlsplit, urlunsplit

import msgspec

from uze.errors import UsageError, redacted
from uze.patterns import compile_later

Kind = Literal["folder", "git", "marketplace"]
GITHUB: Final = "https://github.com"
SCHEMES: Final = ("https", "http", "ssh", "git", "file")
LOOPBACK: Final = ("127.0.0.1", "localhost", "::1", "[::1]")
# The cwd of a source parsed for its shape only (a committed file's): no folder is there.
NOWHERE: Final = Path("/nonexistent")
_REF: Final = compile_later(r"[A-Za-z0-9._+-][A-Za-z0-9._/+-]*")
_SEGMENT: Final = compile_later(r"[A-Za-z0-9._+-]+")
_NAME: Final = compile_later(r"[a-z0-9]+(-[a-z0-9]+)*")
_OWNER_REPO: Final = compile_later(r"[A-Za-z0-9_.-]+")
_SCP: Final = compile_later(r"(?:(?P<user>[^@/:\s]+)@)?(?P<host>[A-Za-z0-9.-]+):(?P<path>[^/\s].*)")
_BAD_URL_CHARS: Final = compile_later(r"[\s\x00-\x1f\x7f#?]")
# `user:password@host:path`: git reads it as host `user` and sends the rest, password included,
# as the path; it is refused, never stored or passed on.
_SCP_PASSWORD: Final = compile_later(r"(?:git\+)?[^\s/:@]+:[^\s/@]*@[A-Za-z0-9.-]+:")
# A selection's values: a plugin as catalogs name them, a skill as packages name them.
_SELECTED: Final = compile_later(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_SELECTION: Final = compile_later(r"(?:plugin|skill)=[^&#]*(?:&(?:plugin|skill)=[^&#]*)*")


class Source(msgspec.Struct, frozen=True):
    """A parsed source. `location` is a folder path, a credential-free git URL, or a plugin name
    (kind `marketplace`, with `marketplace` naming the catalog). `fetch_url` is the URL as the
    user gave it (credentials included) and is never written anywhere."""

    kind: Kind
    location: str
    ref: str = ""
    subdirectory: str = ""
    marketplace: str = ""
    fetch_url: str = ""
    plugin: str = ""  # the marketplace plugin at this source's root, "" for the source itself
    skills: tuple[str, ...] = ()  # only these skills of the package, () for all

    @property
    def url(self) -> str:
        """The URL git is given: as the user wrote it (credentials stay in memory)."""
        return self.fetch_url or self.location

    def canonical(self) -> str:
        """The canonical string: parse(canonical()) gives this source back (without credentials)."""
        return format_source(self)

    def with_pin(self, ref: str) -> Source:
        """The same source asking for `ref`."""
        return msgspec.structs.replace(self, ref=ref)


def selection(plugin: str, skills: tuple[str, ...] | list[str], *, subdirectory: str = ""
              ) -> str:
    """The `#...` fragment that says a subdirectory, a plugin and skills ("" for none)."""
    parts = [f"subdirectory={subdirectory}"] if subdirectory else []
    parts += [f"plugin={plugin}"] if plugin else []
    parts += [f"skill={skill}" for skill in skills]
    return "#" + "&".join(parts) if parts else ""


def format_source(source: Source) -> str:
    """Print a source canonically (see the module docstring)."""
    chosen = selection(source.plugin, source.skills)
    if source.kind == "folder":
        text = source.location
        return (text if text.startswith(("/", "./", "../", "~")) else f"./{text}") + chosen
    if source.kind == "marketplace":
        return f"{source.location}@{source.marketplace}{chosen}"
    text = "git+" + source.location + (f"@{source.ref}" if source.ref else "")
    return text + selection(source.plugin, source.skills, subdirectory=source.subdirectory)


def _bad(text: str, why: str) -> UsageError:
    """A usage error naming `text` with any credential in it taken out."""
    return UsageError(
        f"invalid source {redacted(text)!r}: {why}",
        hint="give a folder (./pkg), git+<url>[@ref][#subdirectory=path], owner/repo[@ref], "
             "or plugin@marketplace",
    )


def check_ref(ref: str, text: str) -> str:
    """`ref` if git could name a branch, tag or commit with it; else a UsageError."""
    if not _REF.fullmatch(ref) or ".." in ref or ref.endswith((".", "/", ".lock")) or "//" in ref:
        raise _bad(text, f"{ref!r} is not a valid git ref")
    return ref


def check_subdirectory(path: str, text: str) -> str:
    """`path` normalised (no `./`, no trailing `/`) if it is a safe relative folder path."""
    parts = [p for p in path.strip("/").split("/") if p not in ("", ".")]
    unsafe = any(p == ".." or not _SEGMENT.fullmatch(p) for p in parts)
    if path.startswith("/") or not parts or unsafe:
        raise _bad(text, f"subdirectory {path!r} must be a relative path inside the repository")
    return "/".join(parts)


def _strip_credentials(url: str, text: str) -> str:
    """The URL without a password, and without any user name over http(s) (a token)."""
    if _SCP.fullmatch(url) and "://" not in url:
        return url
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise _bad(text, f"the {scheme or 'missing'} scheme is not allowed "
                         "(use https, ssh, git or file)")
    if scheme != "file" and not parts.hostname:
        raise _bad(text, "the URL names no host")
    if scheme == "http" and parts.hostname not in LOOPBACK:
        raise _bad(text, "plain http is allowed only to loopback; use https")
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    netloc = host + (f":{parts.port}" if parts.port else "")
    if scheme == "ssh" and parts.username:
        netloc = f"{parts.username}@{netloc}"
    return urlunsplit((scheme, netloc, parts.path, "", ""))


def _split_url_ref(url: str) -> tuple[str, str]:
    """`<url>@<ref>` -> (url, ref): the ref is an `@` after the host part."""
    scp = _SCP.fullmatch(url) if "://" not in url else None
    head, tail = (url[: scp.start("path")], scp["path"]) if scp else _after_host(url)
    if "@" in tail:
        tail, ref = tail.rsplit("@", 1)
        return head + tail, ref
    return url, ""


def _after_host(url: str) -> tuple[str, str]:
    scheme, _, rest = url.partition("://")
    slash = rest.find("/")
    cut = len(url) if slash < 0 else len(scheme) + 3 + slash
    return url[:cut], url[cut:]


def _git(text: str, url: str, ref: str, subdirectory: str) -> Source:
    if not url or _BAD_URL_CHARS.search(url):
        raise _bad(text, "the URL is empty or holds spaces, control characters, '#' or '?'")
    location = _strip_credentials(url, text)
    ref = check_ref(ref, text) if ref else ""
    sub = check_subdirectory(subdirectory, text) if subdirectory else ""
    return Source("git", location, ref, sub, fetch_url="" if location == url else url)


class _Chosen(msgspec.Struct, frozen=True):
    """What a fragment and the options choose: a subdirectory, a plugin, skills."""

    subdirectory: str = ""
    plugin: str = ""
    skills: tuple[str, ...] = ()


def _fragment(text: str, fragment: str, *, git: bool) -> _Chosen:
    """Read `key=value&...` (subdirectory only for a git source; plugin once; skill repeated)."""
    found: dict[str, list[str]] = {}
    for part in fragment.split("&"):
        key, eq, value = part.partition("=")
        if key not in (("subdirectory",) if git else ()) + ("plugin", "skill") or not eq \
                or not value:
            known = "subdirectory=<path>, plugin=<name> and skill=<name>" if git else \
                "plugin=<name> and skill=<name>"
            raise _bad(text, f"the fragment {part!r} is not understood (only {known})")
        if key != "subdirectory" and not _SELECTED.fullmatch(value):
            raise _bad(text, f"{value!r} is not a {key} name")
        found.setdefault(key, []).append(value)
    for key in ("subdirectory", "plugin"):
        if len(found.get(key, ())) > 1:
            raise _bad(text, f"say the {key} once")
    return _Chosen(found.get("subdirectory", [""])[0], found.get("plugin", [""])[0],
                   tuple(dict.fromkeys(found.get("skill", []))))


def _chosen(text: str, given: _Chosen, options: _Chosen) -> _Chosen:
    """The fragment's choice and the options', each said once."""
    for key in ("subdirectory", "plugin", "skills"):
        if getattr(given, key) and getattr(options, key):
            raise _bad(text, f"say the {key.rstrip('s')} once (in the source or as an option)")
    return _Chosen(given.subdirectory or options.subdirectory, given.plugin or options.plugin,
                   given.skills or options.skills)


def _direct_reference(text: str, ref: str, options: _Chosen) -> Source:
    body, _, fragment = text[4:].partition("#")
    url, at_ref = _split_url_ref(body)
    given = _fragment(text, fragment, git=True) if fragment else _Chosen()
    if ref and at_ref:
        raise _bad(text, "say the ref and the subdirectory once (in the source or as options)")
    chosen = _chosen(text, given, options)
    return _choose(_git(text, url, at_ref or ref, chosen.subdirectory), chosen)


def _choose(source: Source, chosen: _Chosen) -> Source:
    return msgspec.structs.replace(source, plugin=chosen.plugin, skills=chosen.skills)


def _is_plain_git_url(text: str) -> bool:
    if text.startswith(("ssh://", "git://", "file://")):
        return True
    if text.startswith(("https://", "http://")):
        return text.rstrip("/").endswith(".git")
    return "://" not in text and bool(_SCP.fullmatch(text)) and text.endswith(".git")


def _shorthand(text: str, ref: str, subdirectory: str, github: str) -> Source | None:
    body, _, at_ref = text.partition("@")
    parts = body.split("/")
    if len(parts) < 2 or not all(_OWNER_REPO.fullmatch(p) for p in parts[:2]) \
            or parts[0] in (".", "..") or parts[1] in (".", ".."):
        return None
    if (at_ref and ref) or (len(parts) > 2 and subdirectory):
        raise _bad(text, "say the ref and the subdirectory once (in the source or as options)")
    repo = parts[1] if parts[1].endswith(".git") else f"{parts[1]}.git"
    url = f"{github.rstrip('/')}/{parts[0]}/{repo}"
    return _git(text, url, at_ref or ref, "/".join(parts[2:]) or subdirectory)


def _exists(path: Path) -> bool:
    """Whether `path` exists; a name the system cannot look up (too long) does not."""
    try:
        return path.exists()
    except OSError:
        return False


def _split_selection(text: str, cwd: Path) -> tuple[str, str]:
    """(source, selection fragment) of a source that is not `git+`: a trailing `#plugin=...`
    or `#skill=...` (a folder of that very name stays a folder)."""
    body, hash_, fragment = text.rpartition("#")
    if not hash_ or not _SELECTION.fullmatch(fragment) or _exists(cwd / text):
        return text, ""
    return body, fragment


def parse_source(
    text: str, *, cwd: Path, ref: str = "", subdirectory: str = "", github: str = "",
    plugin: str = "", skills: tuple[str, ...] = (),
) -> Source:
    """Parse a SOURCE argument (see the module docstring). Raises UsageError, naming what is
    wrong, for anything else; `ref`, `subdirectory`, `plugin` and `skills` are the `--ref`,
    `--subdirectory`, `--plugin` and `--skill` options."""
    if not text or "\0" in text:
        raise _bad(text, "it is empty")
    for name in (*([plugin] if plugin else []), *skills):
        if not _SELECTED.fullmatch(name):
            raise _bad(text, f"{name!r} is not a plugin or skill name")
    options = _Chosen(subdirectory, plugin, tuple(dict.fromkeys(skills)))
    if text.startswith("git+"):
        return _direct_reference(text, ref, options)
    body, fragment = _split_selection(text, cwd)
    chosen = _chosen(text, _fragment(text, fragment, git=False) if fragment else _Chosen(),
                     options)
    return _choose(_unselected(body, text, cwd, ref, chosen.subdirectory, github), chosen)


def _unselected(text: str, given: str, cwd: Path, ref: str, subdirectory: str, github: str
                ) -> Source:
    """`parse_source` of a source that is not `git+`, its selection taken off (`given`: the
    text as typed, for messages)."""
    if text.startswith(("./", "../", "/", "~")) or text in (".", "..") or _exists(cwd / text):
        if ref or subdirectory:
            raise _bad(given, "--ref and --subdirectory apply to git sources, not folders")
        return Source("folder", text)
    if "://" not in text and _SCP_PASSWORD.match(text):
        raise _bad(given, "a password in user:password@host:path would be sent as the path; "
                          "use ssh://user@host/path with an SSH key, or https with git's "
                          "credential helper")
    if _is_plain_git_url(text):
        return _git(given, text, ref, subdirectory)
    name, at, market = text.partition("@")
    if at and _NAME.fullmatch(name) and _NAME.fullmatch(market):
        if ref or subdirectory:
            raise _bad(given, "--ref and --subdirectory do not apply to a marketplace plugin")
        return Source("marketplace", name, marketplace=market)
    found = _shorthand(text, ref, subdirectory, github or GITHUB)
    if found is None:
        raise _bad(given, "no such folder, and not a git URL, owner/repo or plugin@marketplace")
    return found
