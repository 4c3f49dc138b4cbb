"""Bounds on what a package file may make uze compute: nesting depth (`uze.nesting`),
YAML alias expansion, frontmatter size, and values a harness cannot hold.

A hostile package can be small on disk and still cost without bound once read: `[[[[...]]]]`
recurses the parsers out of stack, and YAML aliases (`&a [*b, *b]`) expand exponentially in
whatever walks the parsed value (a digest, a TOML writer). Each limit here is far above what a
real package writes and turns such input into one issue line, never a traceback. The YAML
loader that applies them is `uze.package.bounded_yaml` (imported only when YAML is parsed).
"""

from __future__ import annotations

import datetime
from typing import Final

MAX_YAML_NODES: Final = 10_000
"""Most values a frontmatter block may stand for once every alias is expanded."""
MAX_FRONTMATTER_BYTES: Final = 256 * 1024
"""Largest frontmatter block read (the body after it has no limit beyond the file's)."""


class LimitExceeded(ValueError):
    """The value is over one of the limits above; the message says which."""


_PLAIN_SCALARS: Final = (str, bool, int, float)


def value_problem(value: object) -> str | None:
    """Why `value` (parsed YAML) is not plain data every harness format can hold, or None.

    Plain: text, numbers, true/false, lists and string-keyed mappings of those. A YAML null
    (`key:` with nothing after it) has no TOML form; dates, binary and sets have no JSON form.
    """
    pending: list[object] = [value]
    while pending:
        node = pending.pop()
        if node is None:
            return "has no value (null); give it one or leave the key out"
        if isinstance(node, dict):
            if not all(isinstance(key, str) for key in node):
                return "has a key that is not text"
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
        elif isinstance(node, datetime.date):
            return "holds a date; quote it to make it text"
        elif not isinstance(node, _PLAIN_SCALARS):
            return f"holds a YAML {type(node).__name__}, which no harness format can hold"
    return None
