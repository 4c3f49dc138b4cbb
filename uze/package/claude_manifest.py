"""The types Claude Code requires of `.claude-plugin/plugin.json`, checked as it checks them.

Claude Code (2.1.197, `claude plugin validate`) refuses a manifest whose known keys have the
wrong type (`repository` as an object, `keywords` as text, `homepage` not a URL, a component
path key that is neither a path nor a list of paths): the plugin then loads nothing. uze reads
such a package all the same, without the key, and says so in a warning; the warning keeps the
package from going to Claude Code whole (uze.plan.claude_plugin), so Claude Code gets the
generated plugin folder, whose manifest uze writes (adr/0069). Pure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final
from urllib.parse import urlparse

from uze.package.issues import issue
from uze.package.layout import CLAUDE_MANIFEST

REFUSED: Final = "Claude Code refuses this manifest; uze reads it without the key and gives " \
    "Claude Code a plugin folder of its own"


def _text(value: object) -> str | None:
    return None if isinstance(value, str) else "expected a string"


def _url(value: object) -> str | None:
    if not isinstance(value, str):
        return "expected a string"
    parsed = urlparse(value)
    return None if parsed.scheme and parsed.netloc else "not a URL"


def _author(value: object) -> str | None:
    if not isinstance(value, dict):
        return "expected an object"
    bad = [key for key in ("name", "email", "url") if key in value
           and not isinstance(value[key], str)]
    if "name" not in value:
        return "expected an object with a name"
    return f"{', '.join(bad)}: expected a string" if bad else None


def _texts(value: object) -> str | None:
    if not isinstance(value, list):
        return "expected a list of strings"
    return None if all(isinstance(item, str) for item in value) else "expected a list of strings"


def _paths(value: object) -> str | None:
    if isinstance(value, str) or (isinstance(value, list)
                                  and all(isinstance(item, str) for item in value)):
        return None
    return "expected a path or a list of paths"


def _paths_or_object(value: object) -> str | None:
    if isinstance(value, dict) or (isinstance(value, list) and all(
            isinstance(item, str | dict) for item in value)):
        return None
    return _paths(value)


_CHECKS: Final[dict[str, Callable[[object], str | None]]] = {
    "version": _text, "description": _text, "author": _author, "homepage": _url,
    "repository": _text, "license": _text, "keywords": _texts,
    "commands": _paths, "agents": _paths, "skills": _paths, "outputStyles": _paths,
    "hooks": _paths_or_object, "mcpServers": _paths_or_object, "lspServers": _paths_or_object,
}


def refused_keys(raw: dict[str, object], warnings: list[str]) -> set[str]:
    """The keys of the Claude manifest `raw` whose type Claude Code refuses, each a warning."""
    found: set[str] = set()
    for key, check in _CHECKS.items():
        if key in raw and (problem := check(raw[key])) is not None:
            warnings.append(issue(CLAUDE_MANIFEST, key, f"{problem}: {REFUSED}"))
            found.add(key)
    return found
