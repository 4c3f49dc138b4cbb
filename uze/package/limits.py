"""Bounds on what a package file may make uze compute: nesting depth (`uze.package.nesting`),
YAML alias expansion, frontmatter size, and values a harness cannot hold.

A hostile package can be small on disk and still cost without bound once read: `[[[[...]]]]`
recurses the parsers out of stack, and YAML aliases (`&a [*b, *b]`) expand exponentially in
whatever walks the parsed value (a digest, a TOML writer). Each limit here is far above what a
real package writes and turns such input into one issue line, never a traceback.
"""

from __future__ import annotations

import datetime
from typing import Any, Final

import yaml

from uze.package.nesting import MAX_DEPTH

MAX_YAML_NODES: Final = 10_000
"""Most values a frontmatter block may stand for once every alias is expanded."""
MAX_FRONTMATTER_BYTES: Final = 256 * 1024
"""Largest frontmatter block read (the body after it has no limit beyond the file's)."""


class LimitExceeded(ValueError):
    """The value is over one of the limits above; the message says which."""


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader that refuses deep nesting and big alias expansions while it
    composes, before any value is constructed (construction is what an alias bomb costs)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._sizes: dict[int, int] = {}

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            target = self.anchors.get(self.peek_event().anchor)  # type: ignore[no-untyped-call]
            if target is not None and id(target) not in self._sizes:  # still being composed
                raise LimitExceeded("frontmatter holds an alias inside the value it names")
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise LimitExceeded(f"frontmatter is nested more than {MAX_DEPTH} levels deep")
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if id(node) not in self._sizes:
            self._sizes[id(node)] = self._size(node)
        return node

    def _size(self, node: Any) -> int:
        if isinstance(node, yaml.SequenceNode):
            children = node.value
        elif isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        else:
            return 1
        size = 1 + sum(self._sizes[id(child)] for child in children)
        if size > MAX_YAML_NODES:
            raise LimitExceeded(
                f"frontmatter stands for more than {MAX_YAML_NODES} values once its aliases "
                "(*name) are expanded; write the values out, or use fewer aliases"
            )
        return size


def load_yaml(text: str) -> object:
    """`yaml.safe_load(text)` within the limits above.

    Raises LimitExceeded (the block is too big, too deep, or expands too far) or yaml.YAMLError.
    """
    if len(text.encode("utf-8")) > MAX_FRONTMATTER_BYTES:
        raise LimitExceeded(f"frontmatter is larger than {MAX_FRONTMATTER_BYTES // 1024} KiB")
    loader = _BoundedLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


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
