"""Export's config kinds: MCP servers, hook groups and instructions, read from the files the
harness's data names (`Harness.mcp`, `hooks`, `instructions`) with uze's own parsers: the
config reader of `uze.projections.config_entry`, the server dialects and Claude hook reader of
`uze.package`, and the region scanner of `uze.projections.region` (ADR 0095)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from uze.errors import UzeError
from uze.exporting.model import Exported, Found, Left
from uze.exporting.owned import Owned
from uze.location import Location
from uze.package.claude_hooks import read_claude_hooks
from uze.package.servers import Dialect, read_servers
from uze.plan.server_form import with_references
from uze.projections import config_entry as ce
from uze.projections import region
from uze.vocabulary import ConfigFormat

MCP_FILE: Final = "mcp.json"
HOOKS_FILE: Final = "hooks/hooks.json"  # Claude-protocol groups: the combined layout's file


def document_json(value: object) -> bytes:
    """A package JSON file: 2-space indent, sorted keys, one final newline."""
    return (json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def read_config(path: Path, fmt: ConfigFormat, loc: Location) -> dict[str, object] | None:
    """The config file as plain values (None when absent). Raises UzeError naming the file
    when it cannot be read or is not an object: export reads a config whole or not at all."""
    shown = loc.display(path)
    if not path.exists() and not path.is_symlink():
        return None
    hint = ("fix it (the line:column is shown) or move it aside, then run `uze export` again; "
            "nothing was written")
    try:
        document = ce.read_document(path.read_bytes(), fmt)
    except ce.ConfigUnreadable as error:
        raise UzeError(f"{shown}: does not parse ({error})", hint=hint) from None
    except (OSError, UnicodeDecodeError) as error:
        why = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise UzeError(f"{shown}: cannot be read ({why})", hint=hint) from None
    if not isinstance(document, dict):
        raise UzeError(f"{shown}: is not an object of keys", hint=hint)
    return document


def _under(document: dict[str, object], prefix: tuple[str, ...]) -> object:
    node: object = document
    for key in prefix:
        node = node.get(key) if isinstance(node, dict) else None
    return node


def read_mcp(path: Path, fmt: ConfigFormat, prefix: tuple[str, ...], dialect: Dialect,
             loc: Location, owned: Owned, found: Found) -> None:
    """The servers under `prefix` of the config file, in the portable dialect (`dialect`
    translates the harness's own keys), secrets as references; into `mcp.json`."""
    document = read_config(path, fmt, loc)
    servers = _under(document, prefix) if document is not None else None
    if not isinstance(servers, dict):
        return
    source = loc.display(path)
    theirs = {name: body for name, body in servers.items()
              if not owned.owns_entry(path, (*prefix, name))}
    warnings: list[str] = []
    portable: dict[str, object] = {}
    for server in read_servers(theirs, source, list(prefix), dialect, warnings):
        if server.codex_keys:  # the reader's warning says "kept for Codex": not here
            warnings = [line for line in warnings if not any(
                f".{server.name}: {key}: " in line or f".{server.name}.{key}: " in line
                for key in server.codex_keys)]
            found.left.append(Left("mcp", server.name, source, "Codex's own keys "
                                   f"{', '.join(sorted(server.codex_keys))}: not portable"))
        portable[server.name], secrets = with_references(server)
        found.secrets += secrets
        found.exported.append(Exported("mcp", server.name, source, f"{MCP_FILE}: "
                                       f"mcpServers.{server.name}"))
    found.left += [Left("mcp", _named(line, prefix), source, line) for line in warnings]
    if portable:
        previous = json.loads(found.files[MCP_FILE].data) if MCP_FILE in found.files else {}
        merged = {**previous.get("mcpServers", {}), **portable}
        found.add(MCP_FILE, document_json({"mcpServers": merged}))


def _named(line: str, prefix: tuple[str, ...]) -> str:
    """The server a reader's warning is about (`file: mcpServers.x.key: ...` -> `x`)."""
    head = line.split(": ")[1] if ": " in line else ""
    parts = head.split(".")
    return parts[len(prefix)] if len(parts) > len(prefix) else head


def read_hooks(path: Path, fmt: ConfigFormat, loc: Location, owned: Owned, found: Found,
               names: tuple[Mapping[str, str], Mapping[str, str]] = ({}, {})) -> None:
    """Claude-protocol hook groups of the settings file (`hooks.<Event>` arrays), uze's own
    groups left out, into `hooks/hooks.json`; its other keys are listed as not exported.
    `names`: the harness's event and tool names -> Claude Code's, for a harness whose hooks
    speak Claude's protocol under its own names (Codex: `apply_patch` is `Edit`)."""
    document = read_config(path, fmt, loc)
    if document is None:
        return
    source = loc.display(path)
    for key in sorted(set(document) - {"hooks"}):
        found.left.append(Left("setting", key, source, "a setting of the harness, not a "
                               "resource a package carries"))
    events = document.get("hooks")
    if events is None:
        return
    if not isinstance(events, dict):
        found.left.append(Left("hook", "hooks", source, "must be an object of events"))
        return
    theirs: dict[str, object] = {}
    for event, groups in events.items():
        kept = [group for group in groups if not owned.owns_group(path, group_commands(group))] \
            if isinstance(groups, list) else groups
        if kept:
            theirs[event] = kept
    warnings: list[str] = []
    read = read_claude_hooks({"hooks": theirs}, source, "", warnings)
    found.left += [Left("hook", line.split(": ")[1] if ": " in line else "hooks", source, line)
                   for line in warnings]
    if not read:
        return
    out: dict[str, list[object]] = {}
    for group in read:
        event = names[0].get(group.event, group.event)
        out.setdefault(event, []).append(_claude_names(dict(group.value), names[1]))
        found.exported.append(Exported("hook", group.name, source,
                                       f"{HOOKS_FILE}: hooks.{event}[{len(out[event]) - 1}]"))
        if any(_PROJECT_DIR.search(command) for command in group.commands):
            found.notes.append(f"hook {group.name} ({source}) runs a file of the project "
                               "($CLAUDE_PROJECT_DIR): kept as written, it runs where that "
                               "project is; the file is not in the package")
    found.add(HOOKS_FILE, document_json({"hooks": out}))


def _claude_names(group: dict[str, object], tools: Mapping[str, str]) -> dict[str, object]:
    """The group with each `|`-separated tool of its matcher named as Claude Code names it."""
    matcher = group.get("matcher")
    if tools and isinstance(matcher, str):
        group["matcher"] = "|".join(tools.get(name, name) for name in matcher.split("|"))
    return group


def group_commands(group: object) -> tuple[str, ...]:
    """The command line of each handler of a hook group (empty for one of another shape)."""
    handlers = group.get("hooks") if isinstance(group, dict) else None
    if not isinstance(handlers, list):
        return ()
    return tuple(str(h.get("command", "")) for h in handlers if isinstance(h, dict))


INSTRUCTIONS_FILE: Final = "AGENTS.md"
_IMPORT: Final = re.compile(r"(?<![^ \t\n\r])@([.~/\w][^ \t\n\r`]*)")  # Claude's `@path`
_FENCE: Final = re.compile(r"^ {0,3}(```|~~~)")
_PROJECT_DIR: Final = re.compile(r"\$\{?CLAUDE_PROJECT_DIR\}?")


def _imports(text: str, folder: Path, home: Path) -> list[str]:
    """The `@path` imports of an instructions text (outside code fences) that name a file
    there, in order, each once."""
    found: list[str] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        for match in [] if fenced else _IMPORT.finditer(line):
            name = match.group(1)
            target = home / name[2:] if name.startswith("~/") else folder / name
            if name not in found and target.is_file():
                found.append(name)
    return found


def read_instructions(path: Path, loc: Location, owned: Owned, found: Found) -> None:
    """The instructions file without the regions uze wrote (each removed with the separator
    uze added before it, giving back the user's bytes) into `AGENTS.md`; a region of uze's
    markers that no receipt names is left out too, and listed. Raises UzeError when the
    markers do not pair up."""
    if not path.is_file():
        return
    source = loc.display(path)
    text = path.read_bytes()
    try:
        for region_id, lead in owned.regions.get(path, ()):
            if region_id in region.scan_regions(text):
                text = region.remove_region(text, region_id, lead.encode())
        for region_id in region.scan_regions(text):
            found.left.append(Left("instructions", region_id, source, "a region between "
                                   "uze's markers that no receipt of this scope names"))
            text = region.remove_region(text, region_id, b"")
    except region.BrokenMarkers as error:
        raise UzeError(f"{source}: uze's region markers do not pair up ({error})",
                       hint="repair or remove the marker lines, then run `uze export` again; "
                            "nothing was written") from None
    if not text.strip():
        return
    imports = _imports(text.decode("utf-8", "replace"), path.parent, loc.paths.home)
    if imports:
        found.notes.append(f"instructions {source} import {', '.join(imports)}: kept as "
                           "written; the imported files are not in the package")
    found.add(INSTRUCTIONS_FILE, text)
    found.exported.append(Exported("instructions", source, source, INSTRUCTIONS_FILE))
