"""Read mcp.json and hooks.json (or their Claude-native names) strictly: unknown keys are errors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from uze.package.claude import portable_server
from uze.package.claude_hooks import ClaudeHookGroup, ClaudeHooks, read_claude_hooks
from uze.package.convert import convert
from uze.package.hooks import HOOK_EVENTS, HookEvent, HookGroup, HooksFile, hooks_problems
from uze.package.issues import issue, key_path
from uze.package.layout import CLAUDE_MANIFEST, ComponentPaths, Layout
from uze.package.manifest import McpServer
from uze.package.servers import CLAUDE, Dialect, merged, read_servers
from uze.package.tree import Tree


def _has_only_key(raw: dict[str, object], key: str, location: str, issues: list[str]) -> bool:
    """Report every top-level key but `key`, and `key` itself when missing; return if present."""
    for other in raw:
        if other != key:
            issues.append(issue(location, other, "unknown key"))
    if key not in raw:
        issues.append(issue(location, key, "required key missing"))
        return False
    return True


def validate_mcp(tree: Tree, layout: Layout, paths: ComponentPaths, issues: list[str],
                 warnings: list[str]) -> tuple[McpServer, ...]:
    """Read `{"$schema"?, "mcpServers": {name: server}}`; servers sorted by name.

    The portable `mcp.json` is strict. Claude's `.mcp.json` may also be flat, the servers at
    the top (`{"github": {...}}`), and is read leniently like the files and the inline value
    the Claude manifest's `mcpServers` names (uze.package.servers): each of them is a source
    of the package's servers, as in Claude Code.
    """
    raw = tree.json_object(layout.mcp, issues) if layout.mcp in tree.seen else None
    if not layout.mcp_is_claude and paths.mcp_inline is None and not paths.mcp:
        return () if raw is None else servers_of(_without_schema(raw), layout.mcp, issues)
    files = [*([layout.mcp] if raw is not None else []),
             *(path for path in paths.mcp if path != layout.mcp)]
    groups: list[list[McpServer]] = []
    where: dict[int, str] = {}
    for relpath in files:
        value = raw if relpath == layout.mcp else tree.json_object(relpath, issues)
        if value is None:
            continue
        if not layout.mcp_is_claude and relpath == layout.mcp:
            groups.append(list(servers_of(_without_schema(value), relpath, issues)))
        else:
            groups.append(claude_servers(value, relpath, warnings))
        where[len(groups) - 1] = relpath
    if paths.mcp_inline is not None:
        where[len(groups)] = CLAUDE_MANIFEST
        groups.append(read_servers(paths.mcp_inline, CLAUDE_MANIFEST, ["mcpServers"], CLAUDE,
                                   warnings))
    return merged(groups, where, warnings)


def _without_schema(raw: dict[str, object]) -> dict[str, object]:
    return {key: value for key, value in raw.items() if key != "$schema"}


def claude_servers(raw: dict[str, object], location: str, warnings: list[str],
                   dialect: Dialect = CLAUDE) -> list[McpServer]:
    """The servers of a Claude-shaped MCP file (under `mcpServers`, or flat), read leniently."""
    raw = _without_schema(raw)
    if "mcpServers" not in raw:
        return read_servers(raw, location, [], dialect, warnings)
    for other in raw:
        if other != "mcpServers":
            warnings.append(issue(location, other, "unknown key; ignored"))
    return read_servers(raw["mcpServers"], location, ["mcpServers"], dialect, warnings)


def servers_of(raw: dict[str, object], location: str, issues: list[str]) -> tuple[McpServer, ...]:
    """The servers of one `{"mcpServers": {...}}` value read from `location`, sorted by name."""
    if not _has_only_key(raw, "mcpServers", location, issues):
        return ()
    servers = raw["mcpServers"]
    if not isinstance(servers, dict):
        issues.append(issue(location, "mcpServers", "must be a JSON object of servers by name"))
        return ()
    found = [_read_server(name, body, location, issues) for name, body in servers.items()]
    return tuple(sorted((s for s in found if s is not None), key=lambda server: server.name))


def _read_server(name: str, body: object, location: str, issues: list[str]) -> McpServer | None:
    where = ["mcpServers", name]
    if not isinstance(body, dict):
        issues.append(issue(location, key_path(where), "must be a JSON object"))
        return None
    if "name" in body:
        issues.append(
            issue(location, key_path([*where, "name"]), "unknown key (the key above names it)")
        )
        body = {key: value for key, value in body.items() if key != "name"}
    body = portable_server(body)
    return convert({**body, "name": name}, McpServer, location, issues, where, own_key="name")


def validate_hooks(tree: Tree, layout: Layout, issues: list[str]) -> HooksFile | None:
    """Read `{"hooks": {Event: [group, ...]}}` and check every group and cross-group rule."""
    raw = tree.json_object(layout.hooks, issues) if layout.hooks in tree.seen else None
    if raw is None:
        return None
    before = len(issues)
    groups: dict[HookEvent, list[HookGroup]] = {}
    checked: list[tuple[str, int, HookGroup]] = []
    for event, index, value in _hook_groups(raw, layout.hooks, issues):
        group = convert(value, HookGroup, layout.hooks, issues, ["hooks", event, index])
        if group is None:
            continue
        groups.setdefault(cast("HookEvent", event), []).append(group)  # one of HOOK_EVENTS
        checked.append((event, index, group))
    issues.extend(issue(layout.hooks, problem) for problem in hooks_problems(checked))
    if len(issues) > before:
        return None
    return HooksFile(hooks=groups)


def _hook_groups(
    raw: dict[str, object], location: str, issues: list[str]
) -> list[tuple[str, int, object]]:
    if not _has_only_key(raw, "hooks", location, issues):
        return []
    events = raw["hooks"]
    if not isinstance(events, dict):
        issues.append(issue(location, "hooks", "must be a JSON object of events"))
        return []
    found: list[tuple[str, int, object]] = []
    for event, groups in events.items():
        where = key_path(["hooks", event])
        if event not in HOOK_EVENTS:
            issues.append(issue(location, where, f"unknown event (use {', '.join(HOOK_EVENTS)})"))
        elif not isinstance(groups, list):
            issues.append(issue(location, where, "must be a list of groups"))
        else:
            found.extend((event, index, group) for index, group in enumerate(groups))
    return found


def validate_claude_hooks(
    tree: Tree, default: str | None, paths: ComponentPaths, issues: list[str],
    warnings: list[str],
) -> ClaudeHooks | None:
    """Every Claude-protocol group of the package: the `default` hooks file (None: the
    layout has none), each file the Claude manifest's `hooks` names, then its inline value.

    A hooks file that is not a JSON object is an issue (a file of commands uze cannot read
    is refused whole); a group that is not shaped as Claude's is a warning.
    """
    files = [*([default] if default in tree.seen else []),
             *(path for path in paths.hooks if path != default)]
    values: list[tuple[str, Mapping[str, object]]] = []
    for relpath in files:
        raw = tree.json_object(relpath, issues)
        if raw is not None:
            values.append((relpath, raw))
    if paths.hooks_inline is not None:
        inline = paths.hooks_inline
        values.append((f"{CLAUDE_MANIFEST}: hooks",
                       inline if "hooks" in inline else {"hooks": inline}))
    groups: list[ClaudeHookGroup] = []
    for number, (location, value) in enumerate(values):
        groups += read_claude_hooks(value, location, f"{number}-" if number else "", warnings)
    if not values:
        return None
    return ClaudeHooks(tuple(groups), tuple(location for location, _ in values))
