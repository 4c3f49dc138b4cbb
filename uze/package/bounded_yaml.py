"""PyYAML's safe loader within the limits of `uze.package.limits` (nesting depth, alias
expansion, size). Imported only when a frontmatter block needs YAML to be read (ADR 0051).
"""

from __future__ import annotations

from typing import Any

import yaml

from uze.nesting import MAX_DEPTH
from uze.package.limits import MAX_FRONTMATTER_BYTES, MAX_YAML_NODES, LimitExceeded


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
    """`yaml.safe_load(text)` within the limits of `uze.package.limits`.

    Raises LimitExceeded (the block is too big, too deep, or expands too far) or yaml.YAMLError.
    """
    if len(text.encode("utf-8")) > MAX_FRONTMATTER_BYTES:
        raise LimitExceeded(f"frontmatter is larger than {MAX_FRONTMATTER_BYTES // 1024} KiB")
    loader = _BoundedLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()
