"""Planning what a package runs: MCP servers, hook groups (portable and Claude-protocol) and the
package copy they run from. Each step adds to the builder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from uze.capabilities import Capability, lookup
from uze.harnesses import REGISTRY
from uze.harnesses.mcp import without_defaults
from uze.hooks.claude import claude_code_group, untranslated_reason
from uze.hooks.delivery import (
    GroupDelivery,
    deliver_claude_group,
    deliver_hooks,
    opencode_bridge,
)
from uze.hooks.opencode_plugin import plugin_file_name
from uze.package import McpServer, Package
from uze.plan.builder import Builder, worst
from uze.plan.model import PlannedElement, PlannedEntry, PlannedFile, PlannedTree
from uze.plan.plugin_root import as_written, hook_folder, plugin_root, resolve_server
from uze.projections.config_entry import format_key_path


def _mcp_cap(b: Builder, harness: str) -> Capability:
    base = lookup(harness, "mcp")
    if b.loc.scope == "project" and base.route != "unsupported":
        scoped = lookup(harness, "mcp", "project")
        return scoped if scoped.route != "unsupported" else base
    return base


def _translated_cap(cap: Capability, harness: str, translated: Any) -> Capability:
    if translated.unsupported:
        return Capability("unsupported", translated.unsupported, cap.source)
    if translated.degraded:
        return Capability("degraded", "; ".join([*filter(None, [cap.reason]),
                                                 *translated.degraded]), cap.source)
    return cap


def _machine_bound(b: Builder, harness: str, cap: Capability, what: str) -> Capability:
    """`cap` made `degraded` where a project-scope entry names this machine's absolute path
    (the harness has no project-relative form proven, adr/0039)."""
    if b.loc.scope != "project" or cap.route == "unsupported":
        return cap
    why = (f"{what} names this machine's absolute path to the package copy: {harness} has no "
           "project-relative form proven with its binary, so a teammate's clone needs "
           "`uze install` and differs in this entry (adr/0039)")
    return Capability("degraded", "; ".join(filter(None, [cap.reason, why])), cap.source)


def _settings_cap(cap: Capability, harness: str, server: Any) -> Capability:
    """`cap` with the settings the server reads from a variable named (adr/0078): `native`
    becomes `adapted`, since the harness reads the value from its environment where the
    package's own harness would have asked for it."""
    if not server.settings or cap.route == "unsupported":
        return cap
    why = (f"settings {', '.join(server.settings)}: {harness} reads each from that variable "
           "where it runs (set it there; uze never writes a sensitive value)")
    return Capability("adapted" if cap.route == "native" else cap.route,
                      "; ".join(filter(None, [cap.reason, why])), cap.source)


def plan_mcp(b: Builder) -> None:
    """Each MCP server of the package into each harness's MCP config."""
    root = plugin_root(b.loc, b.package.name)
    users = [harness for portable in b.package.mcp_servers for harness in b.harnesses
             if plan_server(b, portable, harness, root)]
    if users:
        plan_package_copy(b, root, tuple(dict.fromkeys(users)))


def plan_server(b: Builder, portable: McpServer, harness: str, root: Path,
                note: Capability | None = None) -> bool:
    """One server's projection (kind `mcp`) for `harness` and the config entry that carries
    it, `${PLUGIN_ROOT}` resolved to `root`; `note` is a route the server takes at best (a
    generated server is `adapted`). True if the entry is planned and names `root`."""
    written = as_written(b.loc, root, REGISTRY[harness].project_forms.mcp)
    server, needs_root = resolve_server(portable, written or str(root))
    cap, target = _mcp_cap(b, harness), REGISTRY[harness].mcp
    if note is not None and cap.route != "unsupported":
        cap = worst(cap, note)
    if needs_root and written is None:
        cap = _machine_bound(b, harness, cap, "the server's command")
    if cap.route == "unsupported" or target is None:
        b.add("mcp", server.name, harness, cap, None)
        return False
    dialect = target.dialect if target.expands_defaults else without_defaults(
        harness, target.dialect)
    translated = dialect(server)
    cap = _settings_cap(_translated_cap(cap, harness, translated), harness, server)
    if translated.value is None:
        b.add("mcp", server.name, harness, cap, None)
        return False
    path, key = target.file(b.loc), target.key(b.loc, server.name)
    b.add("mcp", server.name, harness, cap, path, suffix=f"#{format_key_path(key)}",
          label=server.name)
    b.artifacts.append(PlannedEntry(path, b.loc.display(path), target.fmt, key,
                                    translated.value, (harness,)))
    return needs_root


def _plan_hook_group(b: Builder, harness: str, d: GroupDelivery, wrappers: Path) -> bool:
    """Add one group's projection and its config artifact; True if it is delivered."""
    path, target = None, REGISTRY[harness].hooks
    if target is not None and d.element is not None:
        path = target.file(b.loc)
    elif target is not None and d.bridge is not None and (folder := target.file(b.loc)):
        path = folder / plugin_file_name(b.package.name)
    route, reason = (d.route, d.reason) if path or d.route == "unsupported" else (
        "unsupported", f"{harness} reads hooks only from its user config; use --scope user")
    cap = Capability(route, reason, "uze/hooks/delivery.py")
    if REGISTRY[harness].project_forms.hook is None:
        cap = _machine_bound(b, harness, cap, "the hook command")
    if path is None or (d.wrapper is None and not d.marker) or route == "unsupported":
        b.add("hook", d.group, harness, cap, None)
        return False
    if d.element is None:  # the `plugin` layout: the package's plugin file carries the group
        b.add("hook", d.group, harness, cap, path)
        return True
    key, owner = d.element.key_path, f"{b.package.name}/{d.group}"  # ids are per package
    display = b.loc.display(path)
    if d.element.named:
        b.add("hook", d.group, harness, cap, path, suffix=f"#{format_key_path(key)}")
        entry = PlannedEntry(path, display, d.element.fmt, key, d.element.value, (harness,))
        b.artifacts.append(entry)
        return True
    b.add("hook", d.group, harness, cap, path, suffix=f"#{format_key_path(key)}[{owner}]")
    marker = d.marker  # a prompt or agent group (adr/0089): its first prompt
    if d.wrapper is not None:  # else the marker: what the command names, in any form
        wrapper = wrappers / d.wrapper.path
        marker = b.loc.display(wrapper) if b.loc.scope == "project" else str(wrapper)
    b.artifacts.append(PlannedElement(path, display, d.element.fmt, key, owner, d.element.value,
                                      marker, (harness,)))
    return True


def plan_hooks(b: Builder) -> None:
    """Portable groups, and Claude-protocol groups on every harness but Claude Code, through
    generated wrappers in the package's one wrapper folder."""
    claude = b.package.claude_hooks.groups if b.package.claude_hooks is not None else ()
    if b.package.hooks is None and not claude:
        return
    root, wrappers = plugin_root(b.loc, b.package.name), hook_folder(b.loc, b.package.name)
    files: dict[str, bytes] = {}
    for harness in b.harnesses:
        delivered: tuple[GroupDelivery, ...] = ()
        written = as_written(b.loc, wrappers, REGISTRY[harness].project_forms.hook)
        if b.package.hooks is not None:
            delivered = deliver_hooks(harness, b.package.hooks, b.package.name, wrappers, root,
                                      written)
        if not REGISTRY[harness].hook_protocol.claude_verbatim:  # else verbatim: plan_claude_hooks
            delivered += tuple(deliver_claude_group(harness, group, b.package.name, wrappers,
                                                    root, written) for group in claude)
        for d in delivered:
            if _plan_hook_group(b, harness, d, wrappers) and d.wrapper is not None:
                files[d.wrapper.path] = d.wrapper.data
        target = REGISTRY[harness].hooks
        folder = target.file(b.loc) if target is not None and target.layout == "plugin" else None
        bridge = opencode_bridge(b.package.name, delivered) if folder else None
        if folder is not None and bridge is not None:
            path = folder / plugin_file_name(b.package.name)
            b.artifacts.append(PlannedFile(path, b.loc.display(path), bridge, (harness,)))
    if files:
        b.artifacts.append(PlannedTree(wrappers, b.loc.display(wrappers), files,
                                       frozenset(files), tuple(b.harnesses)))
        plan_package_copy(b, root, tuple(b.harnesses))


def plan_claude_hooks(b: Builder) -> None:
    """Claude-protocol groups on the harnesses that read them as their own (Claude Code):
    verbatim into their hook settings (native)."""
    hooks = b.package.claude_hooks
    if hooks is None:
        return
    root = plugin_root(b.loc, b.package.name)
    for harness in b.harnesses:
        target = REGISTRY[harness].hooks
        if not REGISTRY[harness].hook_protocol.claude_verbatim or target is None:
            continue
        settings = target.file(b.loc)
        for group in hooks.groups:
            if settings is None:
                cap = Capability("unsupported", untranslated_reason(harness),
                                 "uze/hooks/claude.py")
                b.add("hook", group.name, harness, cap, None)
                continue
            written = as_written(b.loc, root, REGISTRY[harness].project_forms.hook)
            value, marker = claude_code_group(group, written or str(root))
            key, owner = ("hooks", group.event), f"{b.package.name}/{group.name}"
            cap = Capability("native", "", "uze/hooks/claude.py")
            b.add("hook", group.name, harness, cap, settings,
                  suffix=f"#{format_key_path(key)}[{owner}]")
            b.artifacts.append(PlannedElement(settings, b.loc.display(settings), target.fmt, key,
                                              owner, value, marker, (harness,)))
        if hooks.groups and settings is not None:
            plan_package_copy(b, root, (harness,))


def plan_package_copy(b: Builder, root: Path, users: tuple[str, ...]) -> None:
    if any(isinstance(a, PlannedTree) and a.path == root for a in b.artifacts):
        return
    files = {rel: f.data for rel, f in b.package.files.items()}
    executables = frozenset(rel for rel, f in b.package.files.items() if f.executable)
    b.artifacts.append(PlannedTree(root, b.loc.display(root), files, executables, users))


def hook_ids(package: Package) -> list[str]:
    """Each hook group's id, or `<Event>-<index>` when it has none."""
    if package.hooks is None:
        return []
    return [
        group.id or f"{event}-{index}"
        for event, groups in package.hooks.hooks.items()
        for index, group in enumerate(groups)
    ]
