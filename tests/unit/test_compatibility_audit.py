"""docs/compatibility.md's audit (issue 33): every row of the capability map's items has a
status word, and every test a row names exists, so a renamed or deleted test cannot leave the
audit claiming what nothing shows any more. Like tests/unit/test_security_doc.py."""

from __future__ import annotations

import re
from pathlib import Path

from uze.doctor.compatibility import AUDIT_HEADING

ROOT = Path(__file__).parents[2]
_NAMED = re.compile(r"`(tests/[\w/]+\.py)::(test_\w+)`")
STATUSES = ("implemented", "partly", "not yet", "not applicable")


def _rows() -> list[list[str]]:
    """The body rows of the audit's tables: [item, status, shown by]."""
    doc = (ROOT / "docs" / "compatibility.md").read_text(encoding="utf-8")
    _, heading, audit = doc.partition(AUDIT_HEADING)
    assert heading, "docs/compatibility.md has no audit section"
    rows = []
    for line in audit.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if line.startswith("| ") and len(cells) == 3 and cells[0] != "item":
            rows.append(cells)
    return rows


def test_every_test_the_audit_names_exists() -> None:
    named = [m.groups() for row in _rows() for m in _NAMED.finditer(row[2])]
    assert len(named) >= 30
    missing = [(path, test) for path, test in named
               if not (ROOT / path).is_file()
               or f"def {test}(" not in (ROOT / path).read_text(encoding="utf-8")]
    assert missing == []


def test_every_row_has_a_status_and_each_implemented_row_names_a_test() -> None:
    rows = _rows()
    items = {row[0] for row in rows}
    for kind in ("instructions", "skill", "command", "agent", "hook", "tool", "mcp", "asset"):
        assert f"`{kind}`" in items, kind
    for row in rows:
        assert row[1].startswith(STATUSES), row
        if row[1].startswith(("implemented", "partly")):
            assert _NAMED.search(row[2]), row
        else:
            assert row[2] == "-", row
