"""What a command that edited harness configs keeps of their parses for the next command
(`transaction.after_commit`, ADR 0112): the parse of each committed JSON text as its edits left
it, and each committed TOML text's values, in `parse_cache`. Importing this module registers
`keep` (`projections.entry`, which every edit of a config goes through, imports it)."""

from __future__ import annotations

from uze import transaction
from uze.projections import config_entry as ce
from uze.projections import config_json, config_toml, json_kept, parse_cache
from uze.projections.json_spans import Node


def _json_parse(fmt: str, text: str) -> Node | None:
    """The parse of a committed JSON text: remembered, or made on the parse of the text its
    last edit started from (an uninstall's last cut is never read: one container's worth of
    spans to parse), or None."""
    found = ce._PARSED.get((fmt, text))
    if found is not None:
        return found[1]
    link = ce._EDITS.get(text)
    if link is None or link[0] != fmt:
        return None
    try:
        return config_json.parse(text, jsonc=fmt == "jsonc", base=(link[1], link[2]))
    except config_json.JsonSyntax:
        return None


def keep(committed: list[bytes]) -> None:
    """Keep the parses of the config texts among `committed` (the bytes a commit wrote)."""
    parses: list[tuple[str, str, object]] = []
    for data in committed:
        if len(data) < parse_cache.SMALLEST:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        toml = config_toml.remembered(text)
        if toml is not None:
            parses.append(("toml", text, toml))
        for fmt in ("json", "jsonc"):
            root = _json_parse(fmt, text)
            kept = json_kept.encode(root) if root is not None else None
            if kept is not None:
                parses.append((fmt, text, kept))
    ce._EDITS.clear()
    parse_cache.keep(parses)


transaction.after_commit(keep)
