"""The registry is the only list of harness ids: no module outside uze/harnesses/ spells one out.

Everything uze knows about a harness lives in its module (docs/design.md, "Adding a
harness"; adr/0035); other modules ask `uze.harnesses.REGISTRY`. The recorded conformance
evidence (uze/data/evidence.json) names harnesses as data, like a receipt does.
"""

from __future__ import annotations

import re
from pathlib import Path

from uze.harnesses import HARNESS_IDS, REGISTRY

SOURCE = Path(__file__).parents[3] / "uze"
RECORDED: frozenset[Path] = frozenset({SOURCE / "data" / "evidence.json"})


def _spelled_out(text: str) -> list[str]:
    ids = "|".join(map(re.escape, HARNESS_IDS))
    return re.findall(rf"""["']({ids})["']""", text)


def test_the_check_finds_a_quoted_id() -> None:
    assert _spelled_out('if harness == "codex":') == ["codex"]
    assert _spelled_out("x = ('kimi_code', 1)") == ["kimi_code"]
    assert _spelled_out('paths.home / ".codex"') == []  # a path, not an id


def test_harness_ids_are_written_out_only_in_uze_harnesses() -> None:
    found = {
        f"{path.relative_to(SOURCE.parent)}: {', '.join(sorted(set(ids)))}"
        for path in sorted(SOURCE.rglob("*"))
        if path.is_file() and path.suffix != ".pyc" and path not in RECORDED
        and SOURCE / "harnesses" not in path.parents
        and (ids := _spelled_out(path.read_text(encoding="utf-8", errors="replace")))
    }
    assert found == set()


def test_every_registry_line_has_its_module_and_that_module_has_the_id() -> None:
    helpers = {"__init__", "base", "mcp", "skill_switches"}  # shared by the harness modules
    modules = {p.stem for p in (SOURCE / "harnesses").glob("*.py")} - helpers
    assert modules == set(HARNESS_IDS)
    assert [h.id for h in REGISTRY.values()] == list(HARNESS_IDS)


def test_every_answer_style_a_harness_may_name_is_one_the_wrapper_has() -> None:
    from typing import get_args

    from uze.harnesses.base import HookAnswer
    from uze.hooks import wrapper_script

    assert set(wrapper_script.ANSWERS) == set(get_args(HookAnswer)) - {""}
    assert {h.hook_protocol.answer for h in REGISTRY.values()} - {""} <= set(wrapper_script.ANSWERS)


def test_the_seven_the_tests_describe_are_registered_in_registry_order() -> None:
    from tests.helpers import SEVEN

    assert [h for h in HARNESS_IDS if h in SEVEN] == list(SEVEN)


def _harness_imports(text: str) -> list[str]:
    """The harness modules a source text imports by name (`uze.harnesses.<id>`)."""
    import ast

    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found += [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
    return [name for name in found if name.startswith("uze.harnesses.")
            and name.split(".")[2] in HARNESS_IDS and len(name.split(".")) == 3]


def test_the_harness_import_finder_finds_both_forms() -> None:
    text = "from uze.harnesses import codex, REGISTRY\nimport uze.harnesses.opencode\n"
    assert _harness_imports(text) == ["uze.harnesses.codex", "uze.harnesses.opencode"]


def test_only_uze_harnesses_imports_a_harness_module_by_name() -> None:
    """Every other module asks `REGISTRY` (issue 29): a field, not a module's constant."""
    found = {f"{path.relative_to(SOURCE.parent)}: {names}"
             for path in sorted(SOURCE.rglob("*.py")) if SOURCE / "harnesses" not in path.parents
             and (names := _harness_imports(path.read_text(encoding="utf-8")))}
    assert found == set()
