"""The trust digest stays what receipts already hold (ADR 0018).

Receipts store `trust_digest` of a package's executions, and install asks for consent again
when it changes. The digest below was computed by uze while executions were dataclasses
(`dataclasses.asdict`); the Structs must give the same bytes, or every user would be asked again.
"""

from __future__ import annotations

import json

from uze.projections.digest import content_digest
from uze.trust import Execution, trust_digest

FOUND = [
    Execution("mcp", "docs", "/p/run.sh", ("--stdio", "-v"), "/p", ("TOKEN",),
              (("scripts/run.sh", "ab" * 32),)),
    Execution("hook", "h", "python3", (), "", (), ()),
]


def test_trust_digest_is_the_one_receipts_already_hold() -> None:
    assert trust_digest(FOUND) == "d7076de0d8673e8b80a1d6ef61913feb41a3ff20d954f10dd99308eb0f41f2dd"


def test_trust_digest_hashes_each_execution_as_a_json_object_of_its_fields() -> None:
    fields = ["kind", "name", "command", "args", "cwd", "env_names", "files"]
    data = [dict(zip(fields, (getattr(e, f) for f in fields), strict=True)) for e in FOUND]
    assert trust_digest(FOUND) == content_digest(json.dumps(data, sort_keys=True).encode())
    assert trust_digest([]) == ""
