"""The trust digest covers what runs and every file of the package (ADR 0021).

Consent lives under `$UZE_HOME` (ADR 0021), so the digest no longer has to equal what older
receipts hold: the first install after this change asks once, as a first install does.
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
TREE = "cd" * 32


def test_trust_digest_hashes_each_execution_and_the_tree() -> None:
    fields = ["kind", "name", "command", "args", "cwd", "env_names", "files"]
    data = [dict(zip(fields, (getattr(e, f) for f in fields), strict=True)) for e in FOUND]
    expected = content_digest(json.dumps({"runs": data, "tree": TREE}, sort_keys=True).encode())
    assert trust_digest(FOUND, TREE) == expected


def test_any_file_of_a_package_that_runs_something_changes_the_digest() -> None:
    assert trust_digest(FOUND, TREE) != trust_digest(FOUND, "ef" * 32)


def test_nothing_to_run_needs_no_consent_whatever_the_files() -> None:
    assert trust_digest([], TREE) == ""
