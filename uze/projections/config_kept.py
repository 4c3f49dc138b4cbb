"""What a command that edited harness configs keeps of their parses for the next command
(`transaction.after_commit`, ADR 0112): the parse of each committed JSON text as its edits left
it, and each committed TOML text's values, in `parse_cache`. Importing this module registers
`keep` (`projections.entry`, which every edit of a config goes through, imports it)."""

from __future__ import annotations

from uze import transaction
from uze.projections import config_entry as ce
from uze.projections import config_json, config_toml, json_kept, parse_cache
from uze.projections.json_spans import Node


def _json_parses(data: bytes, text: str) -> list[tuple[str, Node]]:
    """The parses of a committed JSON text: the one its last edit left (`config_entry.edited`:
    read on the parse that edit read last, the text itself after an add's check, or the text
    the edit started from: one container's worth of spans to parse), and one in the other
    JSON format if the command made that too (a file two harnesses read)."""
    found: list[tuple[str, Node]] = []
    link = ce._EDITS.get(id(data))
    if link is not None and link[0] is data:
        fmt, base, root = link[1:]
        try:
            made = root if base == text else config_json.parse(text, jsonc=fmt == "jsonc",
                                                               base=(base, root))
        except config_json.JsonSyntax:
            return []
        if made is not None:
            found.append((fmt, made))
    for fmt in ("json", "jsonc"):
        known = ce._PARSED.get((fmt, text)) if not found or found[0][0] != fmt else None
        if known is not None and known[1] is not None:
            found.append((fmt, known[1]))
    return found


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
        for fmt, root in _json_parses(data, text):
            kept = json_kept.encode(root)
            if kept is not None:
                parses.append((fmt, text, kept))
    ce._EDITS.clear()
    parse_cache.keep(parses)


transaction.after_commit(keep)
