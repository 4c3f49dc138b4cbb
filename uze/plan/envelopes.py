"""A package's own envelopes for other harnesses: read for what uze would leave behind.

Published packages often ship a harness's own manifest next to the one uze reads: Codex's
`.codex-plugin/plugin.json`, Gemini CLI's `gemini-extension.json`, OpenCode plugin modules.
uze delivers those harnesses resource by resource (ADRs 0043-0045), so whatever such an
envelope carries that no resource uze reads covers (a Gemini context file or MCP servers, an
OpenCode module's code, a Codex manifest's own component paths) is named in a warning: nothing
is dropped in silence. The envelopes are never refused: they are another harness's business.
`read_package` takes `envelope_warnings` as its `extra_warnings` (uze.package does not import
the harness modules, which import it).
"""

from __future__ import annotations

import json
import posixpath
from types import ModuleType

from uze.harnesses import codex, gemini_cli, opencode
from uze.package import Instructions
from uze.package.context import context_names
from uze.package.tree import Tree


def envelope_warnings(tree: Tree, instructions: tuple[str, ...]) -> list[str]:
    """One `location: what: not installed (why)` line per envelope part uze does not deliver.

    `instructions` are the files uze installs as the package's instructions (its AGENTS.md,
    else the Gemini context files): a Gemini context file among them is delivered.
    """
    return [
        *_codex(tree, codex), *_gemini(tree, gemini_cli, instructions), *_opencode(tree, opencode),
    ]


def _json_object(tree: Tree, path: str) -> dict[str, object] | None:
    found = tree.files.get(path)
    if found is None:
        return None
    try:
        data = json.loads(found.data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return {}  # unreadable: nothing of it can be named, and it is not uze's to refuse
    return data if isinstance(data, dict) else {}


def _empty(value: object) -> bool:
    return value in (None, "", [], {})


def _codex(tree: Tree, codex: ModuleType) -> list[str]:
    manifest = _json_object(tree, codex.PLUGIN_MANIFEST)
    if manifest is None:
        return []
    found = []
    for key in codex.PLUGIN_KEYS:
        value = manifest.get(key)
        if _empty(value) or (key == "skills" and _is_default_skills(value)):
            continue
        found.append(f"{codex.PLUGIN_MANIFEST}: {key}: not read ({codex.ENVELOPE_REASON})")
    return found


def _is_default_skills(value: object) -> bool:
    """Whether a Codex `skills` value names only the package's `skills/` folder (read anyway)."""
    paths = value if isinstance(value, list) else [value]
    return all(
        isinstance(path, str) and posixpath.normpath(path.strip()) == "skills" for path in paths
    )


def _gemini(tree: Tree, gemini_cli: ModuleType, instructions: tuple[str, ...]) -> list[str]:
    name = gemini_cli.EXTENSION_MANIFEST
    manifest = _json_object(tree, name)
    if manifest is None:
        return []
    reason = gemini_cli.ENVELOPE_REASON
    named = context_names(tree, [])
    contexts = named[0] if named is not None else []
    why = f"the package's own {instructions[0]} is its instructions" if instructions else reason
    found = [
        f"{name}: contextFileName: {context} not installed ({why})"
        for context in contexts
        if posixpath.normpath(context) in tree.files
        and posixpath.normpath(context) not in instructions
    ]
    found += [
        f"{name}: {key}: not read ({reason})"
        for key in gemini_cli.EXTENSION_KEYS
        if not _empty(manifest.get(key))
    ]
    folder, suffix = gemini_cli.EXTENSION_COMMANDS
    found += [
        f"{path}: Gemini CLI command: not installed ({reason})"
        for path in sorted(tree.files)
        if path.startswith(folder) and path.endswith(suffix)
    ]
    return found


def context_note(instructions: Instructions) -> str:
    """The reason text of a row carrying instructions read from a Gemini CLI extension's
    context files (uze.package.context)."""
    note = (f"the package's instructions are its Gemini CLI context "
            f"{instructions.describe()}")
    if instructions.imports:
        note += f", with its @imports inlined ({', '.join(instructions.imports)})"
    return note


def _opencode(tree: Tree, opencode: ModuleType) -> list[str]:
    """Modules OpenCode would auto-load if the folder were a project (`<folder>/*.js`)."""
    return [
        f"{path}: OpenCode plugin module: not loaded ({opencode.ENVELOPE_REASON})"
        for path in sorted(tree.files)
        if posixpath.dirname(path) + "/" in opencode.PLUGIN_FOLDERS
        and path.endswith(opencode.PLUGIN_SUFFIXES)
    ]
