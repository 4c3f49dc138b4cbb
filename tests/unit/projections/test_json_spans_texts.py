"""A parse of an edited text on the parse before (ADR 0099) keeps no older text alive
(ADR 0107): a converge edits the same settings file hundreds of times, and each parse took
nodes of the one before, each still holding the text it was first read from (175 MB peak RSS
at 200 packages). The parses are the same either way (tests/property/
test_config_json_lazy_props.py); here, which texts the newest parse can still reach."""

from __future__ import annotations

import itertools
import json

from uze.projections import config_json
from uze.projections.json_spans import Node


def _texts(root: Node) -> list[str]:
    """Every text a node reachable from `root` (through its children or the older node it
    was moved from) would parse from."""
    found: dict[int, str] = {}
    pending, seen = [root], set()
    while pending:
        node = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node._lazy is not None:
            found[id(node._lazy[0])] = node._lazy[0]
        if node._origin is not None:
            pending.append(node._origin[0])
        pending += [m.node for m in node._members or ()] + list(node._items or ())
    return list(found.values())


def _document(groups: int) -> dict[str, object]:
    hooks = [{"matcher": "Bash", "hooks": [{"type": "command", "command": f"run-{i}.py"}]}
             for i in range(groups)]
    return {"env": {"A": "1"}, "hooks": {"PreToolUse": hooks, "PostToolUse": list(hooks)},
            "mcpServers": {f"s{i}": {"command": "x", "args": ["--stdio"]} for i in range(3)}}


def test_each_parse_on_the_one_before_reaches_no_older_text() -> None:
    texts = [json.dumps(_document(groups), indent=2) + "\n" for groups in range(1, 40)]
    root = config_json.parse(texts[0], jsonc=False)
    for before, text in itertools.pairwise(texts):
        assert root is not None
        # what an edit asks for: the spans along the path it changes, and the closing part
        for member in root.members:
            for inner in member.node.members:
                inner.node.items  # noqa: B018 (a property that parses the spans)
        root = config_json.parse(text, jsonc=False, base=(before, root))
        assert root is not None
        reached = _texts(root)
        # at most the text before (an older node kept until its moved copy is asked for)
        assert all(t is text or t is before for t in reached), len(reached)
    assert root is not None
    assert root.value == _document(39)
