"""Marketplace catalogs: Claude Code's `.claude-plugin/marketplace.json` and Codex's
`.agents/plugins/marketplace.json`, read into entries whose sources are uze `Source`s (ADR 0025).

An entry's source is a path relative to the marketplace root (a string, or Codex's
`{"source": "local", "path": ...}`), `{"source": "github", "repo": "owner/repo"}`,
`{"source": "url", "url": ...}` or `{"source": "git-subdir", "url": ..., "path": ...}`, each
with an optional `ref` and `sha` (the sha wins: it is the pin the catalog gives). A relative
path inside a git marketplace is the same repository, at the marketplace's commit, in that
subdirectory. Other kinds (npm, pip) are listed but cannot be installed. A catalog is input
from elsewhere: every field is type-checked, and paths must stay inside the marketplace.

`metadata.pluginRoot` is applied once, as Claude Code applies it (2.1.332; adr/0075): only a
bare name (`formatter`, no `/`) resolves under it; `./plugins/formatter` is relative to the
marketplace root whatever `pluginRoot` says, and a bare name without a usable `pluginRoot` is
listed but cannot be installed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import msgspec

from uze.errors import UsageError, UzeError
from uze.nesting import OverLimit, parse_bounded
from uze.patterns import compile_later
from uze.sources.spec import Source, check_subdirectory, parse_source

CATALOGS: Final = (".claude-plugin/marketplace.json", ".agents/plugins/marketplace.json")
# Fields of a `strict: false` entry that become the plugin's own `.claude-plugin/plugin.json`.
COMPONENTS: Final = ("commands", "agents", "skills", "hooks", "mcpServers", "outputStyles",
                     "lspServers")
_DESCRIBE: Final = ("name", "version", "description", "author", "homepage", "repository",
                    "license", "keywords")
# The component lists an entry may name, strict or not (uze.commands.selection honours them).
LISTS: Final = ("skills", "commands", "agents")
# A GitHub repository: exactly `owner/repo`, never a path (ADR 0057).
_OWNER_REPO: Final = compile_later(r"(?!\.\.?/)[A-Za-z0-9_.-]+/(?!\.\.?\Z)[A-Za-z0-9_.-]+")
# A bare source name, the only kind `metadata.pluginRoot` applies to (Claude Code 2.1.332).
_BARE: Final = compile_later(r"[A-Za-z0-9][-A-Za-z0-9._]*")
_NO_ROOT: Final = "a bare source name, and the marketplace sets no usable metadata.pluginRoot"


class Entry(msgspec.Struct, frozen=True):
    """One plugin a catalog lists; `source` is None for a kind uze cannot fetch (`why`)."""

    name: str
    description: str
    version: str
    keywords: tuple[str, ...]
    source: Source | None
    why: str = ""
    strict: bool = True
    manifest: dict[str, Any] = {}  # the plugin.json a `strict: false` entry stands for
    lists: dict[str, Any] = {}  # its `skills`/`commands`/`agents` fields, as the catalog gives them


class Catalog(msgspec.Struct, frozen=True):
    """A marketplace's name and entries."""

    name: str
    entries: tuple[Entry, ...]

    def entry(self, name: str) -> Entry | None:
        """The entry named `name`, if any."""
        return next((e for e in self.entries if e.name == name), None)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _relative(base: Source, path: str, where: str) -> Source:
    rel = "" if path in ("", ".", "./") else check_subdirectory(path, where)
    if base.kind == "folder":
        return Source("folder", str(Path(base.location) / rel) if rel else base.location)
    sub = "/".join(p for p in (base.subdirectory, rel) if p)
    return Source("git", base.location, base.ref, sub, fetch_url=base.fetch_url)


def plugin_root(metadata: Any) -> str | None:
    """`metadata.pluginRoot` normalised as Claude Code reads it ("" for the marketplace root),
    None when it is missing or not a relative path inside the marketplace."""
    raw = metadata.get("pluginRoot") if isinstance(metadata, dict) else None
    if not isinstance(raw, str) or not raw or raw.startswith("/") or "\\" in raw or ":" in raw:
        return None
    text = raw.removeprefix("./").rstrip("/")
    if text in ("", "."):
        return ""
    if any(part in ("", ".", "..") for part in text.split("/")):
        return None
    return text


def _entry_source(raw: Any, base: Source, github: str, where: str, root: str | None
                  ) -> tuple[Source | None, str]:
    """The Source of one entry's `source` field, or (None, why it cannot be installed); `root`
    is the catalog's `plugin_root`."""
    if isinstance(raw, str):
        if _BARE.fullmatch(raw) and ".." not in raw:
            if root is None:
                return None, _NO_ROOT
            return _relative(base, f"{root}/{raw}" if root else raw, where), ""
        return _relative(base, raw, where), ""
    if not isinstance(raw, dict) or not isinstance(raw.get("source"), str):
        raise UsageError(f"{where}: source must be a path or an object with a `source` kind",
                         hint="check the marketplace")
    kind, pin = raw["source"], _text(raw.get("sha")) or _text(raw.get("ref"))
    if kind == "local":
        return _relative(base, _text(raw.get("path")), where), ""
    if kind == "github":
        repo = _text(raw.get("repo"))
        if not _OWNER_REPO.fullmatch(repo):
            raise UsageError(f"{where}.repo: {repo!r} is not owner/repo",
                             hint="check the marketplace")
        return parse_source(f"{repo}{'@' + pin if pin else ''}", cwd=Path("/nonexistent"),
                            github=github), ""
    if kind in ("url", "git", "git-subdir"):
        url = _text(raw.get("url"))
        if _OWNER_REPO.fullmatch(url):  # owner/repo shorthand
            url = f"{github.rstrip('/')}/{url}.git"
        sub = _text(raw.get("path")) if kind == "git-subdir" else ""
        return parse_source(f"git+{url}", cwd=Path("/nonexistent"), ref=pin, subdirectory=sub), ""
    return None, f"a {kind} source (uze installs folders and git repositories)"


def _entry(raw: Any, base: Source, github: str, where: str, root: str | None) -> Entry:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        raise UsageError(f"{where}: each plugin needs a name", hint="check the marketplace")
    try:
        source, why = _entry_source(raw.get("source"), base, github, f"{where}.source", root)
    except UsageError as exc:  # parse_source's message names the value, not the entry
        if where in exc.message:
            raise
        raise UsageError(f"{where}.source: {exc.message}", hint=exc.hint) from None
    strict = raw.get("strict", True) is not False
    manifest = {} if strict else {k: raw[k] for k in (*_DESCRIBE, *COMPONENTS) if k in raw}
    listed = raw.get("keywords") or raw.get("tags") or []
    keywords = tuple(k for k in listed if isinstance(k, str)) if isinstance(listed, list) else ()
    lists = {k: raw[k] for k in LISTS if k in raw}
    return Entry(raw["name"], _text(raw.get("description")), _text(raw.get("version")), keywords,
                 source, why, strict, manifest, lists)


def parse_catalog(raw: bytes, where: str, base: Source, github: str) -> Catalog:
    """Read a catalog's bytes. `base` is the marketplace root's source (relative entries are
    inside it). Raises UzeError naming `where` and the field for anything malformed."""
    try:
        data = parse_bounded(json.loads, raw)
    except OverLimit as exc:
        raise UzeError(f"{where}: {exc}", hint="check the marketplace") from None
    except ValueError as exc:
        raise UzeError(f"{where}: not JSON ({exc})", hint="check the marketplace") from None
    if not isinstance(data, dict) or not isinstance(data.get("plugins"), list):
        raise UzeError(f"{where}: a marketplace is an object with a `plugins` list",
                       hint="check the marketplace")
    root = plugin_root(data.get("metadata"))
    try:
        entries = tuple(_entry(item, base, github, f"{where}: plugins[{i}]", root)
                        for i, item in enumerate(data["plugins"]))
    except UsageError as exc:
        raise UzeError(exc.message, hint="check the marketplace; uze reads only what it can "
                       "verify") from None
    return Catalog(_text(data.get("name")), entries)


def find_catalog(folder: Path) -> tuple[str, bytes]:
    """(relative path, bytes) of the catalog in a marketplace folder (Claude Code's first)."""
    for rel in CATALOGS:
        path = folder / rel
        if path.is_file() and not path.is_symlink():
            return rel, path.read_bytes()
    raise UzeError(f"no marketplace here: neither {CATALOGS[0]} nor {CATALOGS[1]}",
                   hint="check the source: a marketplace holds one of those files")
