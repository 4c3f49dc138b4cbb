"""Every error uze raises ends with a hint (issue 23 item 3): each `UzeError(...)` or
`UsageError(...)` built in uze/ names one, and every class in uze/errors.py gives one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import uze.errors
from uze.errors import UzeError

SOURCE = Path(uze.errors.__file__).parent
MODULES = sorted(SOURCE.rglob("*.py"))


def _subclasses(cls: type[UzeError]) -> list[type[UzeError]]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


# Error classes whose constructor takes the hint from the caller, as UzeError's does.
CALLER_HINTED = {"UzeError"} | {cls.__name__ for cls in _subclasses(UzeError)
                                if cls.__init__ is UzeError.__init__}


def _hintless_calls(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            if name in CALLER_HINTED and not any(k.arg == "hint" for k in node.keywords):
                found.append(node.lineno)
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(SOURCE).as_posix())
def test_every_error_built_in_uze_names_a_hint(path: Path) -> None:
    if path.name == "errors.py":  # the classes themselves: checked below
        return
    assert _hintless_calls(path) == []


def test_every_error_class_without_a_hint_argument_gives_one() -> None:
    """A class with a constructor of its own passes a hint on to UzeError's."""
    import inspect

    assert "UsageError" in CALLER_HINTED
    for cls in _subclasses(UzeError):
        if cls.__init__ is not UzeError.__init__:
            assert "hint=" in inspect.getsource(cls.__init__), cls.__name__
