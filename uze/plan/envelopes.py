"""A package's own envelopes for other harnesses: read for what uze would leave behind.

Published packages often ship a harness's own manifest next to the one uze reads: Codex's
`.codex-plugin/plugin.json`, Gemini CLI's `gemini-extension.json`, OpenCode plugin modules.
uze delivers those harnesses resource by resource (ADRs 0043-0045), so whatever such an
envelope carries that no resource uze reads covers (a Gemini context file or MCP servers, an
OpenCode module's code, a Codex manifest's own component paths) is named in a warning: nothing
is dropped in silence. The envelopes are never refused: they are another harness's business.
Each harness describes its own (`Harness.envelope`); this module asks the registry.
`read_package` takes `envelope_warnings` as its `extra_warnings` (uze.package does not import
the harness modules, which import it).
"""

from __future__ import annotations

import json
import posixpath

from uze.harnesses import REGISTRY
from uze.harnesses.base import Envelope
from uze.package import Instructions
from uze.package.context import context_names
from uze.package.layout import detect_layout
from uze.package.tree import Tree


def envelope_warnings(tree: Tree, instructions: tuple[str, ...]) -> list[str]:
    """One `location: what: not installed (why)` line per envelope part uze does not deliver,
    harness by harness in registry order.

    `instructions` are the files uze installs as the package's instructions (its AGENTS.md,
    else the Gemini context files): a Gemini context file among them is delivered. The
    envelope the package is read from (a Codex plugin's, a Gemini CLI extension's manifest:
    uze.package.codex, uze.package.gemini; adr/0068) reports its own parts as it reads them.
    """
    read_from = detect_layout(tree).manifest
    return [warning for h in REGISTRY.values()
            if h.envelope is not None and h.envelope.manifest != read_from
            for warning in _warnings(tree, h.envelope, instructions)]


def _warnings(tree: Tree, envelope: Envelope, instructions: tuple[str, ...]) -> list[str]:
    found: list[str] = []
    if envelope.manifest:
        manifest = _json_object(tree, envelope.manifest)
        if manifest is None:
            return []
        if envelope.contexts:
            found += _contexts(tree, envelope, instructions)
        found += [
            f"{envelope.manifest}: {key}: not read ({envelope.reason})"
            for key in envelope.keys
            if not _empty(value := manifest.get(key))
            and not (key in envelope.read_anyway and _names_only(value, envelope.read_anyway[key]))
        ]
    found += [
        f"{path}: {envelope.label}: not {envelope.verb} ({envelope.reason})"
        for path in sorted(tree.files)
        if path.endswith(envelope.suffixes) and _in_folders(path, envelope)
    ] if envelope.folders else []
    return found


def _json_object(tree: Tree, path: str) -> dict[str, object] | None:
    found = tree.files.get(path)
    if found is None:
        return None
    try:
        data = json.loads(found.data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return {}  # unreadable: nothing of it can be named, and it is not uze's to refuse
    return data if isinstance(data, dict) else {}


def _empty(value: object) -> bool:
    return value in (None, "", [], {})


def _names_only(value: object, folder: str) -> bool:
    """Whether a manifest value names only `folder` (a string or a list of them)."""
    paths = value if isinstance(value, list) else [value]
    return all(isinstance(path, str) and posixpath.normpath(path.strip()) == folder
               for path in paths)


def _in_folders(path: str, envelope: Envelope) -> bool:
    if envelope.nested:
        return path.startswith(envelope.folders)
    return posixpath.dirname(path) + "/" in envelope.folders


def _contexts(tree: Tree, envelope: Envelope, instructions: tuple[str, ...]) -> list[str]:
    """The context files the manifest names that uze does not install as instructions."""
    named = context_names(tree, [])
    contexts = named[0] if named is not None else []
    why = (f"the package's own {instructions[0]} is its instructions" if instructions
           else envelope.reason)
    return [
        f"{envelope.manifest}: contextFileName: {context} not installed ({why})"
        for context in contexts
        if posixpath.normpath(context) in tree.files
        and posixpath.normpath(context) not in instructions
    ]


def context_note(instructions: Instructions) -> str:
    """The reason text of a row carrying instructions read from a Gemini CLI extension's
    context files (uze.package.context)."""
    note = (f"the package's instructions are its Gemini CLI context "
            f"{instructions.describe()}")
    if instructions.imports:
        note += f", with its @imports inlined ({', '.join(instructions.imports)})"
    return note
