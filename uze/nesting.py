"""How deeply input may nest: a package's parsed JSON and YAML and its folders
(`uze.package.limits` holds the other bounds), and the bounded parse every reader of outside
JSON or TOML uses (catalogs, uze.toml, uze.lock, project state): a parser that recurses out of
stack is a refusal, never a RecursionError.

A top-level module so the file walk and the readers of uze.toml and uze.lock check it without
loading the package layer or YAML.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, Final, TypeVar

MAX_DEPTH: Final = 64
"""Deepest nesting of lists and mappings accepted in a package's JSON or YAML."""


MAX_FOLDER_DEPTH: Final = 64
"""Deepest nesting of folders accepted in a package (`a/b/c` is 3)."""

_T = TypeVar("_T")


class OverLimit(ValueError):
    """Input over a limit of the parse: nested deeper than MAX_DEPTH, or a number longer than
    Python converts (`sys.get_int_max_str_digits`); the message says which."""


def parse_bounded(parse: Callable[[_T], Any], text: _T) -> Any:
    """`parse(text)` (json.loads, tomllib.loads, a msgspec decoder...), refused with OverLimit
    when the input nests more than MAX_DEPTH levels (whether the parser recursed out of stack
    or returned the deep value) or holds an integer too long to convert. The parser's own
    syntax errors (subclasses of ValueError) pass through unchanged."""
    too_deep = f"nested more than {MAX_DEPTH} levels deep"
    try:
        value = parse(text)
    except RecursionError:
        raise OverLimit(too_deep) from None
    except ValueError as error:
        if type(error) is not ValueError:  # JSONDecodeError, TOMLDecodeError, ...
            raise
        raise OverLimit(f"a number longer than {sys.get_int_max_str_digits()} digits") from None
    if depth_problem(value):
        raise OverLimit(too_deep)
    return value


def depth_problem(value: object) -> str | None:
    """Why `value` (parsed JSON) is nested too deeply, or None. Iterative: never recurses."""
    pending: list[tuple[object, int]] = [(value, 0)]
    while pending:
        node, depth = pending.pop()
        children: Any = node.values() if isinstance(node, dict) else node \
            if isinstance(node, list) else ()
        if children and depth >= MAX_DEPTH:
            return f"nested more than {MAX_DEPTH} levels deep"
        pending.extend((child, depth + 1) for child in children)
    return None
