"""docs/security.md names, for every class of issue 28, the tests that hold it (item 10): each
file and test it names exists, so a renamed or deleted test cannot leave the list stale."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[2]
_NAMES = re.compile(r"`((?:tests/[\w/]+\.py|test_\w+\.py))?(?:::)?(test_\w+)?`")


def _named() -> list[tuple[str, str]]:
    """(file, test or "") for each name in the section; `::test` continues the last file."""
    text = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    section = text[text.index("## Every class of attack"):]
    section = section[: section.index("\n## ", 3)]
    found, current = [], ""
    for match in _NAMES.finditer(section):
        path, test = match.groups()
        if path:
            current = path if path.startswith("tests/") else f"tests/e2e/{path}"
        if path or test:
            found.append((current, test or ""))
    return found


def test_every_test_the_security_list_names_exists() -> None:
    named = _named()
    assert len({test for _, test in named if test}) >= 30
    missing = [(path, test) for path, test in named
               if not (ROOT / path).is_file()
               or (test and f"def {test}(" not in (ROOT / path).read_text(encoding="utf-8"))]
    assert missing == []


def test_every_class_of_issue_28_is_in_the_list() -> None:
    text = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    section = text[text.index("## Every class of attack"):]
    assert all(f"\n{n}. **" in section or f"\n{n}. This" in section for n in range(1, 11))
