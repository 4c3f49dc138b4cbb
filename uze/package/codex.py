"""A Codex plugin read as published: `.codex-plugin/plugin.json` and what it names.

Read as codex-cli 0.171.0 loads a plugin (adr/0068):

- `name`, `version`, `description` name the package; the other keys of Codex's manifest
  (`author`, `interface`, ...) are presentation; an unknown key is a warning.
- `skills`: a path or list of paths to folders of skills, besides `skills/`.
- `mcpServers`: a path (or list) to a Claude-shaped MCP file, or the servers in place;
  `.mcp.json` when the key is absent. A relative `cwd` is inside the plugin (`.` its root).
  Codex's own server keys are translated where they have a portable meaning
  (`bearer_token_env_var`, `env_vars`, `http_headers`, `env_http_headers`) and
  kept for Codex otherwise (`oauth_resource`, `tool_timeout_sec`, `note`, ...), each named in a
  warning: the other harnesses do not get them.
- `hooks`: files or values in Codex's hook format, which is Claude Code's (events, matchers,
  JSON on stdin, exit 2 or a JSON decision); `hooks/hooks.json` when the key is absent. A root
  `hooks.json` it does not name is not Codex's (Codex does not load it): a warning, never read as
  uze's portable hooks file.
- `apps` (ChatGPT app connectors) is a warning: no harness gets them from files. Pure.
"""

from __future__ import annotations

from typing import Final

import msgspec

from uze.package.config_files import claude_servers
from uze.package.convert import convert
from uze.package.issues import issue
from uze.package.layout import CODEX_MANIFEST, ComponentPaths, component_paths
from uze.package.manifest import McpServer
from uze.package.model import Manifest
from uze.package.servers import READ_KEYS, Dialect, merged, read_servers
from uze.package.tree import Tree

HOOKS_DEFAULT: Final = "hooks/hooks.json"
MCP_DEFAULT: Final = ".mcp.json"
_COMPONENTS: Final = ("skills", "hooks", "mcpServers")
_IDENTITY: Final = frozenset({"name", "version", "description", "author", "homepage",
                              "repository", "license", "keywords", "interface", "$schema"})
APPS_REASON: Final = ("ChatGPT app connectors, which Codex connects through its own service; no "
                      "harness installs them from files")
ROOT_HOOKS_REASON: Final = ("Codex does not load it: a plugin's hooks are hooks/hooks.json or the "
                            "files its manifest's `hooks` names")


class CodexPlugin(msgspec.Struct, frozen=True):
    """What the Codex manifest gives: identity, component paths (hooks default included) and
    servers."""

    manifest: Manifest
    paths: ComponentPaths
    servers: tuple[McpServer, ...]


def read_codex(tree: Tree, issues: list[str], warnings: list[str]) -> CodexPlugin | None:
    """The plugin read from `tree`; None (with an issue) when its manifest cannot be read."""
    raw = tree.json_object(CODEX_MANIFEST, issues)
    if raw is None:
        return None
    for key in sorted(set(raw) - _IDENTITY - {*_COMPONENTS, "apps"}):
        warnings.append(issue(CODEX_MANIFEST, key, "unknown key; ignored"))
    if raw.get("apps") not in (None, "", [], {}):
        warnings.append(issue(CODEX_MANIFEST, "apps", f"not installed ({APPS_REASON})"))
    identity = {key: value for key, value in raw.items() if key in _IDENTITY - {"interface"}}
    manifest = convert(identity, Manifest, CODEX_MANIFEST, issues)
    named: dict[str, object] = {key: raw[key] for key in _COMPONENTS if key in raw}
    paths = component_paths(named, tree, issues, warnings, CODEX_MANIFEST)
    if "hooks" not in raw and HOOKS_DEFAULT in tree.seen:
        paths = msgspec.structs.replace(paths, hooks=(HOOKS_DEFAULT,))
    if "hooks.json" in tree.seen and "hooks.json" not in paths.hooks:
        warnings.append(issue("hooks.json", f"not installed ({ROOT_HOOKS_REASON})"))
    servers = _servers(tree, raw, paths, issues, warnings)
    if manifest is None:
        return None
    return CodexPlugin(manifest, paths, servers)


def _servers(tree: Tree, raw: dict[str, object], paths: ComponentPaths, issues: list[str],
             warnings: list[str]) -> tuple[McpServer, ...]:
    files = paths.mcp if "mcpServers" in raw else (
        (MCP_DEFAULT,) if MCP_DEFAULT in tree.seen else ())
    groups: list[list[McpServer]] = []
    where: dict[int, str] = {}
    for relpath in files:
        value = tree.json_object(relpath, issues)
        if value is not None:
            where[len(groups)] = relpath
            groups.append(claude_servers(value, relpath, warnings, CODEX_SERVERS))
    if paths.mcp_inline is not None:
        where[len(groups)] = CODEX_MANIFEST
        groups.append(read_servers(paths.mcp_inline, CODEX_MANIFEST, ["mcpServers"],
                                   CODEX_SERVERS, warnings))
    return merged(groups, where, warnings)


def _codex_server(body: dict[str, object], notes: list[str]) -> dict[str, object]:
    """Codex's server keys that have a portable meaning, as portable keys; the rest is kept
    for Codex (and named)."""
    out = dict(body)
    headers = dict(_text_map(out.pop("http_headers", {})))
    headers |= {name: f"${{{var}}}" for name, var in _text_map(out.pop("env_http_headers", {}))}
    if isinstance(token := out.get("bearer_token_env_var"), str):
        out.pop("bearer_token_env_var")
        headers["Authorization"] = f"Bearer ${{{token}}}"
    if headers:
        out["headers"] = {**headers, **_dict(out.get("headers"))}
    names = out.pop("env_vars", [])
    if isinstance(names, list) and names:
        out["env"] = {**{str(n): f"${{{n}}}" for n in names}, **_dict(out.get("env"))}
    if isinstance(cwd := out.get("cwd"), str) and not cwd.startswith(("/", "$")):
        inner = cwd.strip().removeprefix("./").rstrip("/")
        out["cwd"] = "${PLUGIN_ROOT}" + (f"/{inner}" if inner not in ("", ".") else "")
    if out.get("type") not in (None, "stdio", "http", "sse"):
        out.pop("type")  # Codex reads the transport from `url` or `command`
    notes += [f"{key}: Codex's own key, kept for Codex only (the other harnesses do not get it)"
              for key in sorted(set(out) - READ_KEYS - {"type", "name"})]
    return out


def _text_map(value: object) -> list[tuple[str, str]]:
    return [(str(k), v) for k, v in value.items() if isinstance(v, str)] if isinstance(
        value, dict) else []


def _dict(value: object) -> dict[str, object]:
    return dict(value) if isinstance(value, dict) else {}


# Every key Codex's server has no portable meaning for is kept (its config ignores what it
# does not know: codex 0.171.0 `mcp list` with `note` set); the dialect names each.
CODEX_SERVERS: Final = Dialect(translate=_codex_server, keep_unknown=True)
