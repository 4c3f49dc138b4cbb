"""`uze install --from FILE`: a peer's manifest turned into uze.toml declarations, then
installed and pinned exactly as `uze install` with no SOURCE converges (adr/0093).

Read: apm's `apm.yml` (`dependencies.apm` and `devDependencies.apm`: `owner/repo[/path][#ref]`,
`host/owner/repo[#ref]`, a git URL[#ref], or `{git, path, ref}`; each becomes one declaration;
local paths, bundles, marketplace refs and `mcp` servers are reported). A Claude Code settings
file (`enabledPlugins` {"plugin@market": true} and
`extraKnownMarketplaces` {NAME: {"source": {"source": "github"|"git"|"directory", ...}}}): each
marketplace is registered (as `uze marketplace add`), each enabled plugin declared as
`plugin@market`. And the `skills` CLI's project lock, `skills-lock.json` (`{"version": 1, "skills":
{NAME: {"source", "sourceType", "ref"?, "computedHash"}}}`; each `computedHash` is checked
against the skill fetched, uze.sources.skills_lock). Its skills from one repository at
one ref become one declaration, `owner/repo[@ref]#skill=A&skill=B`, named as the package that
source holds (read from the source itself, so the name uze.toml gives is the one converge
verifies). An entry uze cannot express (a local folder, an npm package, an unknown type) is
reported with the reason and left out; a declaration uze.toml already holds under that name from
another source is reported and kept as the user wrote it.

Bad input (not JSON, an unknown format, a malformed entry) is refused with its location and a
hint before anything is read from a source or written. When converging fails (consent, an
integrity check), uze.toml is put back as it was, so nothing the import declared stays behind.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import msgspec

from uze.commands import declare, marketplace
from uze.commands.acquire import Options, materialised, parse
from uze.commands.converge import ConvergeResult, converge, converge_json, tree_of
from uze.errors import UsageError, UzeError
from uze.nesting import OverLimit, parse_bounded
from uze.paths import Paths
from uze.sources.manifest import read_manifest, render_manifest, updated_manifest
from uze.sources.skills_lock import HASH_FORM, Locked, check_fetched, is_hash
from uze.state.context import ScopeContext, load_created, locked, open_scope, save_created
from uze.transaction import Transaction

_MAX_BYTES = 1 << 20
_GIT_TYPES = ("github", "gitlab", "git")


class Untranslated(msgspec.Struct, frozen=True):
    """One entry of the peer's file that uze did not declare, and why."""

    entry: str
    reason: str


class ImportResult(msgspec.Struct, frozen=True):
    """What `--from` read, declared, and what converging then did."""

    file: str
    format: str
    declared: tuple[tuple[str, str], ...]  # (name, source) written to uze.toml
    untranslated: tuple[Untranslated, ...]
    converged: ConvergeResult | None  # None: a dry run, nothing installed


class _Group(msgspec.Struct, frozen=True):
    entries: tuple[str, ...]
    source: str  # as uze parses it, selection included
    locked: tuple[Locked, ...] = ()  # a skills-lock.json's hashes, checked once fetched
    fetched_from: str = ""  # the source as the peer's file names it


def _shown(text: str) -> str:
    """A name or value of the peer's file as it may be printed: control characters escaped,
    long text cut."""
    return repr(text[:80])[1:-1]


def _refuse(where: str, problem: str) -> UzeError:
    return UzeError(f"{where}: {problem}",
                    hint="--from reads a skills CLI skills-lock.json ({\"version\": 1, "
                         "\"skills\": {...}}) or Claude Code settings (enabledPlugins, "
                         "extraKnownMarketplaces); check the file, or install its sources one by "
                         "one with `uze install SOURCE`")


def _yaml(text: str, shown: str) -> Any:
    """apm.yml's mapping; refused with the line when it is not YAML."""
    import yaml  # only --from of a YAML file needs PyYAML (ADR 0051: start-up)

    from uze.package.bounded_yaml import load_yaml  # the same: PyYAML loads on use
    from uze.package.limits import LimitExceeded

    try:
        return load_yaml(text)
    except LimitExceeded as exc:
        raise _refuse(shown, str(exc)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise _refuse(shown, f"{where}not valid YAML") from None


def _read(path: Path, shown: str) -> Any:
    try:
        raw = path.read_bytes()[: _MAX_BYTES + 1]
    except FileNotFoundError:
        raise UsageError(f"--from {shown}: no such file",
                         hint="give the path of a skills-lock.json") from None
    except OSError as exc:
        raise UzeError(f"cannot read {shown}: {exc.strerror}", hint=f"check {shown}") from None
    if len(raw) > _MAX_BYTES:
        raise _refuse(shown, f"larger than {_MAX_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
        if path.suffix in (".yml", ".yaml"):
            return _yaml(text, shown)
        return parse_bounded(json.loads, text)
    except UnicodeDecodeError as exc:
        raise _refuse(shown, f"not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise _refuse(shown, f"line {exc.lineno}, column {exc.colno}: not valid JSON "
                             f"({exc.msg})") from None
    except OverLimit as exc:
        raise _refuse(shown, str(exc)) from None


def _format(data: Any, shown: str) -> str:
    """Which peer wrote `data`: "apm.yml", "claude-settings" or "skills-lock.json" (else
    refused)."""
    if isinstance(data, dict) and ("dependencies" in data or "devDependencies" in data):
        return "apm.yml"
    if isinstance(data, dict) and ("enabledPlugins" in data or "extraKnownMarketplaces" in data):
        return "claude-settings"
    if isinstance(data, dict) and isinstance(data.get("skills"), dict) \
            and isinstance(data.get("version"), int):
        return "skills-lock.json"
    raise _refuse(shown, "unknown format: not a skills-lock.json (a number `version` and a "
                         "`skills` object), Claude Code settings (`enabledPlugins`, "
                         "`extraKnownMarketplaces`) or an apm.yml (`dependencies`)")


def _market_source(spec: Any, where: str) -> str | None:
    """The uze source text of a Claude marketplace source object (None: a kind uze cannot
    register)."""
    if not isinstance(spec, dict) or not isinstance(spec.get("source"), str) \
            or not all(isinstance(v, str) for v in spec.values()):
        raise _refuse(where, "a marketplace's `source` is an object of strings with `source` "
                             "naming its kind")
    kind, ref = spec["source"], spec.get("ref", "")
    at = f"@{ref}" if ref else ""
    if kind == "github" and spec.get("repo"):
        return f"{spec['repo']}{at}"
    if kind == "git" and spec.get("url"):
        return f"git+{spec['url']}{at}"
    if kind == "directory" and spec.get("path"):
        return str(spec["path"])
    return None


def _claude(data: dict[str, Any], shown: str
            ) -> tuple[list[_Group], dict[str, str], list[Untranslated]]:
    """The enabled plugins of Claude Code settings, the marketplaces to register (name ->
    source text) and the entries left out."""
    plugins, markets = data.get("enabledPlugins", {}), data.get("extraKnownMarketplaces", {})
    if not isinstance(plugins, dict) or not isinstance(markets, dict):
        raise _refuse(shown, "enabledPlugins and extraKnownMarketplaces are objects")
    left: list[Untranslated] = []
    register: dict[str, str] = {}
    for name, entry in markets.items():
        where = f"{shown}: extraKnownMarketplaces.{_shown(name)}"
        if not isinstance(entry, dict):
            raise _refuse(where, "an entry is an object with a `source` object")
        text = _market_source(entry.get("source"), f"{where}.source")
        if text is None:
            kind = _shown(str(entry["source"].get("source")))
            left.append(Untranslated(f"marketplace {name}", f"source kind '{kind}': uze "
                                     "registers github, git and directory marketplaces"))
            continue
        register[name] = text
    groups = []
    for key, on in plugins.items():
        plugin, at, market = key.partition("@")
        if not at or not plugin or not market:
            raise _refuse(f"{shown}: enabledPlugins.{_shown(key)}", "a key is plugin@marketplace")
        if on is False:
            left.append(Untranslated(key, "disabled in the settings (false): not installed"))
        elif on is not True:
            left.append(Untranslated(key, "enabled at listed versions: uze pins a commit, "
                                          "install it with `uze install " + key + "`"))
        else:
            groups.append(_Group((key,), key))
    return groups, register, left


def _apm_ref(entry: Any, where: str) -> tuple[str | None, str]:
    """(uze source text, or None and the reason) of one `dependencies.apm` entry."""
    if isinstance(entry, dict):
        url, path, ref = entry.get("git"), entry.get("path", ""), entry.get("ref", "")
        if not isinstance(url, str) or not isinstance(path, str) or not isinstance(ref, str):
            raise _refuse(where, "an object entry has a string `git` URL and string `path` "
                                 "and `ref`")
        sub = f"&subdirectory={path}" if path else ""
        return f"git+{url}{'@' + ref if ref else ''}" + (f"#{sub[1:]}" if sub else ""), ""
    if not isinstance(entry, str) or not entry:
        raise _refuse(where, "an entry is a package reference string or a {git, path, ref} "
                             "object")
    body, _, ref = entry.partition("#")
    at = f"@{ref}" if ref else ""
    if body.startswith(("./", "../", "/", "~")) or body.endswith((".tar.gz", ".tgz")):
        return None, "a local path or bundle: install it with `uze install PATH`"
    if "://" in body or body.startswith("git@"):
        return f"git+{body}{at}", ""
    if "@" in body:
        return None, "an apm marketplace reference: uze does not read apm's marketplaces"
    parts = body.split("/")
    if "." in parts[0] and len(parts) == 3:
        return f"git+https://{body}.git{at}", ""
    if "." not in parts[0] and len(parts) >= 2:
        return f"{body}{at}", ""
    return None, "a reference uze cannot read as owner/repo[/path], host/owner/repo or a URL"


def _apm(data: dict[str, Any], shown: str) -> tuple[list[_Group], list[Untranslated]]:
    """The dependencies of an apm.yml and the entries left out."""
    groups: list[_Group] = []
    left: list[Untranslated] = []
    for block in ("dependencies", "devDependencies"):
        deps = data.get(block) or {}
        if not isinstance(deps, dict):
            raise _refuse(f"{shown}: {block}", "a mapping of `apm:` and `mcp:` lists")
        for kind, entries in deps.items():
            if not isinstance(entries, list):
                raise _refuse(f"{shown}: {block}.{_shown(str(kind))}", "a list")
            for i, entry in enumerate(entries):
                label = entry if isinstance(entry, str) else f"{block}.{kind}[{i}]"
                if kind != "apm":
                    left.append(Untranslated(str(label), f"a {_shown(str(kind))} dependency: "
                                             "uze installs packages (declare MCP servers in "
                                             "a package's mcp.json)"))
                    continue
                text, why = _apm_ref(entry, f"{shown}: {block}.apm[{i}]")
                if text is None:
                    left.append(Untranslated(str(label), why))
                else:
                    groups.append(_Group((str(label),), text))
    return groups, left


def _skills_lock(data: Any, shown: str) -> tuple[list[_Group], list[Untranslated]]:
    """The groups of a skills-lock.json and the entries left out."""
    if data["version"] != 1:
        raise _refuse(shown, f"version: {data['version']} is not a version this uze reads (1)")
    groups: dict[tuple[str, str], list[Locked]] = {}
    left: list[Untranslated] = []
    for name, entry in data["skills"].items():
        where = f"{shown}: skills.{_shown(name)}"
        if not isinstance(entry, dict) or not isinstance(entry.get("source"), str) \
                or not isinstance(entry.get("sourceType", ""), str) \
                or not isinstance(entry.get("ref", ""), str):
            raise _refuse(where, "an entry is an object with string `source`, `sourceType` "
                                 "and `ref`")
        kind = entry.get("sourceType", "github")
        if kind not in _GIT_TYPES:
            left.append(Untranslated(name, f"sourceType '{_shown(kind)}': not a git source "
                                           "uze can pin (install it with `uze install PATH` "
                                           "or from its repository)"))
            continue
        if not is_hash(computed := entry.get("computedHash", "")):
            raise _refuse(f"{where}: computedHash", HASH_FORM)
        groups.setdefault((entry["source"], entry.get("ref", "")), []).append(
            Locked(where, name, computed))
    out = []
    for (source, ref), entries in groups.items():
        names = [entry.skill for entry in entries]
        text = f"git+{source}" if "://" in source and not source.startswith("git+") else source
        at = f"@{ref}" if ref else ""
        out.append(_Group(tuple(names), f"{text}{at}#" + "&".join(f"skill={n}" for n in names),
                          tuple(entries), f"{_shown(source)} at {_shown(ref)}" if ref
                          else _shown(source)))
    return out, left


def _translate(paths: Paths, ctx: ScopeContext, groups: list[_Group], root: Path
               ) -> tuple[dict[str, str], list[Untranslated]]:
    """Each group's declaration (package name -> canonical source), read from the source."""
    current = read_manifest(declare.scope_files(ctx)[0], "uze.toml")
    out: dict[str, str] = {}
    left: list[Untranslated] = []
    for group in groups:
        label = ", ".join(group.entries)
        try:
            source = parse(paths, group.source, root)
        except UsageError as exc:
            left.extend(Untranslated(e, f"source {group.source!r}: {exc.message}")
                        for e in group.entries)
            continue
        if source.kind == "marketplace":
            name = source.location  # the plugin's name; converge verifies the package's
        else:
            with materialised(paths, source, ctx, root, cache=False) as (folder, _pin):
                check_fetched(folder, group.locked, group.fetched_from)
                name = tree_of(folder)[0]
        form = source.canonical()
        taken = out.get(name) or current.get(name)
        if taken is not None and taken != form:
            left.append(Untranslated(label, f"package {name} is already declared as {taken}"))
            continue
        out[name] = form
    return out, left


def _register(paths: Paths, register: dict[str, str], root: Path) -> list[Untranslated]:
    """Register each marketplace uze does not know by that name yet (as `uze marketplace
    add SOURCE --name NAME`); one already registered from another source is reported."""
    known = marketplace.load_registry(paths).marketplaces
    left = []
    for name, text in register.items():
        if name in known:
            continue
        try:
            marketplace.add(paths, text, name, root)
        except UzeError as exc:
            left.append(Untranslated(f"marketplace {name}", exc.message))
    return left


def _write_manifest(ctx: ScopeContext, data: bytes | None) -> None:
    """uze.toml as `data` (None: as if uze never wrote it), in one transaction."""
    path = declare.scope_files(ctx)[0]
    with locked(ctx, store=False):
        created = load_created(ctx)
        with Transaction(ctx.journal_root, ctx.roots.check_write) as tx:
            declare.write_file(tx, ctx, created, path, data if data is not None
                               else render_manifest({}), render_manifest({}))
            save_created(tx, ctx, created)


def install_from(paths: Paths, options: Options, cwd: Path, file: str) -> ImportResult:
    """`uze install --from FILE` (see the module docstring)."""
    given = Path(file).expanduser()
    path = given if given.is_absolute() else cwd / given
    data = _read(path, file)
    kind = _format(data, file)
    register: dict[str, str] = {}
    if kind == "claude-settings":
        groups, register, left = _claude(data, file)
    elif kind == "apm.yml":
        groups, left = _apm(data, file)
    else:
        groups, left = _skills_lock(data, file)
    ctx = open_scope(paths, options.scope, options.project, cwd)
    root = ctx.location.project if ctx.scope == "project" else ctx.paths.uze_home
    if not options.dry_run:
        left += _register(paths, register, root)
    known = set(marketplace.load_registry(paths).marketplaces) | (
        set(register) if options.dry_run else set())
    for group in [g for g in groups if g.source.partition("@")[2] not in known
                  and kind == "claude-settings"]:
        groups.remove(group)
        left.append(Untranslated(group.source, "its marketplace is neither in "
                                 "extraKnownMarketplaces nor registered (`uze marketplace add`)"))
    declared, more = _translate(paths, ctx, groups, root)
    left += more
    manifest = declare.scope_files(ctx)[0]
    before = manifest.read_bytes() if manifest.exists() else None
    after = before
    for name, source in declared.items():
        after = updated_manifest(after, name, source, ctx.location.display(manifest))
    result = ImportResult(file, kind, tuple(declared.items()), tuple(left), None)
    if options.dry_run or not declared:
        return result
    if after != before:
        _write_manifest(ctx, after)
    try:
        done = converge(paths, options, cwd)
    except BaseException:
        with contextlib.suppress(UzeError):
            _write_manifest(ctx, before)
        raise
    return msgspec.structs.replace(result, converged=done)


def import_json(result: ImportResult) -> dict[str, Any]:
    """The `install --from --json` document."""
    doc = converge_json(result.converged) if result.converged else {"schema": 1,
                                                                     "dry_run": True}
    return {**doc, "from": {"file": result.file, "format": result.format,
                            "declared": dict(result.declared),
                            "untranslated": [msgspec.to_builtins(u)
                                             for u in result.untranslated]}}


def import_lines(result: ImportResult) -> list[str]:
    """The lines `--from` adds before the converge view: what was declared, what was not."""
    out = [f"{result.file} ({result.format}): declared {name} = {source}"
           for name, source in result.declared]
    out += [f"{result.file}: not translated: {_shown(u.entry)}: {u.reason}"
            for u in result.untranslated]
    return out
