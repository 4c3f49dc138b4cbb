"""What Claude Code runs from a plugin it gets whole, beyond what uze reads itself (ADR 0055).

A Claude-native package delivered whole (`uze.plan.claude_plugin`) reaches Claude Code byte
for byte, so everything in it that Claude Code starts is listed for consent, each with the
digest of the files it names, exactly as uze's own resources are: the plugin schema of
claude 2.1.197 starts MCP servers its manifest declares (`mcpServers`: a record, a path, or a
list of either), LSP servers (`lspServers`, else `.lsp.json`), monitors (`monitors` or
`experimental.monitors`: a list or a path, else `monitors/monitors.json`), workflows
(`workflows` or `experimental.workflows`, else `workflows/`: JavaScript), puts `bin/` on its
Bash tool's PATH, and reads `settings.json` (`subagentStatusLine` runs a command). A manifest
key uze neither reads nor knows to be inert is listed as written: Claude Code gets it, and a
later version may act on it. Pure: reads the package's bytes in memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import PurePosixPath
from typing import Final

from uze.package import Package
from uze.package.layout import CLAUDE_MANIFEST
from uze.projections.digest import content_digest
from uze.trust import Execution, command_run, shown

# Keys Claude Code only displays or asks about (userConfig values are typed by the user), the
# catalog-entry fields authors copy into their manifest (`category`, `tags`, `strict`,
# `source`), and the component keys uze reads itself (what they run is listed by uze.trust).
_INERT: Final = frozenset({
    "$schema", "name", "displayName", "version", "description", "author", "homepage",
    "repository", "license", "keywords", "metadata", "defaultEnabled", "userConfig",
    "outputStyles", "themes", "category", "tags", "strict", "source",
    "skills", "commands", "agents", "hooks"})
_SETTINGS: Final = "settings.json"
_ROOT: Final = ("${CLAUDE_PLUGIN_ROOT}/", "./")


def runs(package: Package, listed: Sequence[Execution]) -> list[Execution]:
    """Everything Claude Code would run from `package` delivered whole that `listed` (what
    uze.trust found) does not hold already; in a fixed order."""
    raw = _json(package, CLAUDE_MANIFEST)
    manifest = raw if isinstance(raw, dict) else {}
    experimental = manifest.get("experimental")
    extra = experimental if isinstance(experimental, dict) else {}
    read = {server.name for server in package.mcp_servers}  # uze.trust lists those (adr/0069)
    found = [*(run for run in _servers(package, "mcp", manifest.get("mcpServers"), "")
               if run.name not in read),
             *_servers(package, "lsp", manifest.get("lspServers"), ".lsp.json"),
             # whether `lspServers` replaces `.lsp.json` is not documented: list both
             *(_servers(package, "lsp", ".lsp.json", "") if "lspServers" in manifest else ()),
             *_monitors(package, extra.get("monitors", manifest.get("monitors"))),
             *_scripts(package, "workflow", extra.get("workflows", manifest.get("workflows")),
                       "workflows"),
             *_scripts(package, "bin", None, "bin"),
             *_settings(package)]
    found += [Execution("manifest", f"{key} (uze does not read it; Claude Code gets it as "
                                    "written)", shown(value), (), "", (), ())
              for key, value in manifest.items()
              if key not in _INERT and key not in ("mcpServers", "lspServers", "monitors",
                                                   "workflows", "experimental")]
    found += [Execution("manifest", f"experimental.{key} (uze does not read it; Claude Code "
                                    "gets it as written)", shown(value), (), "", (), ())
              for key, value in extra.items() if key not in ("monitors", "workflows", "themes")]
    if experimental is not None and not isinstance(experimental, dict):
        found.append(Execution("manifest", "experimental (uze does not read it; Claude Code "
                                           "gets it as written)", shown(experimental), (), "",
                               (), ()))
    return [run for run in dict.fromkeys(found) if run not in listed]


def _json(package: Package, relpath: str) -> object:
    """The package file parsed as JSON; None when it is absent or not JSON."""
    found = package.files.get(relpath)
    if found is None:
        return None
    try:
        return json.loads(found.data)
    except (ValueError, RecursionError):
        return None


def _relative(path: str) -> str:
    for prefix in _ROOT:
        if path.startswith(prefix):
            path = path[len(prefix):]
    return PurePosixPath(path).as_posix().strip("/") if path not in ("", ".") else ""


def _file(package: Package, relpath: str) -> tuple[tuple[str, str], ...]:
    found = package.files.get(relpath)
    return ((relpath, content_digest(found.data)),) if found is not None else ()


def _declared(package: Package, value: object, default: str,
              ) -> Iterator[tuple[str, object]]:
    """(file the value was read from, "" inline; the value) for a key that is a record, a
    path or a list of either; the `default` file when the key is absent."""
    if value is None:
        value = default or None
    for item in value if isinstance(value, list) else [value] if value is not None else []:
        if isinstance(item, str):
            relpath = _relative(item)
            yield relpath, _json(package, relpath)
        else:
            yield "", item


def _servers(package: Package, kind: str, value: object, default: str) -> list[Execution]:
    """Each server of a record `{name: {command, args, env, cwd}}` (an MCP file may nest it
    under `mcpServers`); a value of another shape is listed as written."""
    found: list[Execution] = []
    for relpath, record in _declared(package, value, default):
        if relpath and relpath not in package.files:
            continue
        if isinstance(record, dict) and isinstance(record.get("mcpServers"), dict):
            record = record["mcpServers"]
        if not isinstance(record, dict):
            found.append(_as_written(package, kind, relpath or CLAUDE_MANIFEST, record, relpath))
            continue
        found += [_entry(package, kind, str(name), body, relpath)
                  for name, body in record.items()
                  if not (kind == "mcp" and isinstance(body, dict) and "url" in body
                          and "command" not in body)]  # remote: nothing starts (uze.trust)
    return found


def _monitors(package: Package, value: object) -> list[Execution]:
    """Each monitor of a list `[{name, command, ...}]`, inline or in a file."""
    if isinstance(value, list):
        entries: list[tuple[str, object]] = [("", value)]
    else:
        entries = list(_declared(package, value, "monitors/monitors.json"))
    found: list[Execution] = []
    for relpath, items in entries:
        if relpath and relpath not in package.files:
            continue
        if not isinstance(items, list):
            found.append(_as_written(package, "monitor", relpath or CLAUDE_MANIFEST, items,
                                     relpath))
            continue
        for index, item in enumerate(items):
            name = item.get("name") if isinstance(item, dict) else None
            found.append(_entry(package, "monitor", str(name or index), item, relpath))
    return found


def _entry(package: Package, kind: str, name: str, body: object, relpath: str) -> Execution:
    """A declared command (with the declaring file's digest), or the body as written."""
    command = body.get("command") if isinstance(body, dict) else None
    if not isinstance(body, dict) or not isinstance(command, str) or not command:
        return _as_written(package, kind, name, body, relpath)
    args = body.get("args")
    args = [str(a) for a in args] if isinstance(args, list) else []
    env = body.get("env")
    cwd = body.get("cwd") if isinstance(body.get("cwd"), str) else ""
    run = command_run(package, kind, name, command, args, str(cwd or ""),
                      tuple(map(str, env)) if isinstance(env, dict) else ())
    files = tuple(dict.fromkeys((*_file(package, relpath), *run.files))) if relpath else run.files
    return Execution(run.kind, run.name, run.command, run.args, run.cwd, run.env_names, files,
                     run.secret_names)


def _as_written(package: Package, kind: str, name: str, value: object,
                relpath: str) -> Execution:
    return Execution(kind, name, f"as written: {shown(value)}", (), "", (),
                     _file(package, relpath) if relpath else ())


def _scripts(package: Package, kind: str, value: object, default: str) -> list[Execution]:
    """Each file of the folders or files `value` names (default: the `default` folder)."""
    roots = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    if value is None:
        roots = [default]
    found: list[Execution] = []
    for root in (_relative(r) for r in roots if isinstance(r, str)):
        inside = sorted(rel for rel in package.files
                        if rel == root or rel.startswith(f"{root}/") or not root)
        what = ("on the PATH of Claude Code's Bash tool" if kind == "bin"
                else "a script Claude Code runs")
        found += [Execution(kind, rel, what, (), "", (), _file(package, rel)) for rel in inside]
    if value is not None and not isinstance(value, str | list):
        found.append(_as_written(package, kind, CLAUDE_MANIFEST, value, ""))
    return found


def _settings(package: Package) -> list[Execution]:
    """Each key of the plugin's `settings.json` (Claude Code reads `agent` and runs
    `subagentStatusLine`), with the file's digest."""
    if _SETTINGS not in package.files:
        return []
    value = _json(package, _SETTINGS)
    if not isinstance(value, dict):
        return [_as_written(package, "settings", _SETTINGS, value, _SETTINGS)]
    return [Execution("settings", str(key), shown(item), (), "", (), _file(package, _SETTINGS))
            for key, item in value.items()]
