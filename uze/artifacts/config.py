"""What the two config-file kinds (entry, element) share: how an edited value is shown, why an
unreadable config blocks an edit, and the check that the config is a file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

from uze.artifacts.kind import Action
from uze.errors import ConfigBroken, ForeignFile

_VALUES_HIDDEN: Final = frozenset({"env", "environment", "headers", "http_headers",
                                   "env_http_headers"})


def redacted(value: object) -> object:
    """A config entry as it may be shown: environment and header values hidden, secret-looking
    arguments hidden (`uze.trust.hide_secrets`, ADR 0021)."""
    from uze.trust import HIDDEN, hide_secrets  # install only: trust reads the package models

    if isinstance(value, list):
        return [redacted(item) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, object] = {}
    for key, item in value.items():
        if key in _VALUES_HIDDEN and isinstance(item, dict):
            out[key] = dict.fromkeys(item, HIDDEN)
        elif key in ("args", "command") and isinstance(item, list) \
                and all(isinstance(a, str) for a in item):
            head = item[:1] if key == "command" else []
            out[key] = [*head, *hide_secrets(item[len(head):])[0]]
        else:
            out[key] = redacted(item)
    return out


def kept_edit(key: str, value: object) -> Action:
    """An edited entry or element is kept; the new value is shown, secrets hidden."""
    return Action(key, "kept", "edited since install; kept (new version not applied; --force "
                               "takes it)", json.dumps(redacted(value), indent=2, sort_keys=True))


def unparsable(target: str) -> ConfigBroken:
    """The error for a config that does not parse when it cannot be read again for the
    parser's line:column."""
    return ConfigBroken(target, "it does not parse; uze never rewrites a file it cannot read")


def check_is_file(path: Path, target: str) -> None:
    """Raise ForeignFile for a link or a folder where the config file should be."""
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise ForeignFile(target)
