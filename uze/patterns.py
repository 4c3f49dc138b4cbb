"""Regular expressions compiled the first time they are used (issue 32).

`re.compile` at module level runs in every process that imports the module: 0.05 to 0.2 ms a
pattern, about 4 ms of CPU for the patterns of uze's modules that an install imports and never
uses (an error's hint, a catalog's names, Codex's and Gemini CLI's syntax...). `compile_later`
stands for the compiled pattern and compiles it when one of its methods or attributes is first
asked for; each one asked for is then kept on the stand-in, so later calls cost what calls on
the compiled pattern cost.

It is a stand-in, not a `re.Pattern`: call its methods (`match`, `sub`, `finditer`, ...) and
read `pattern`; never pass it to a function of `re` in place of a pattern, nor test it with
isinstance.
"""

from __future__ import annotations

import re
from typing import Any, AnyStr, cast


class _Later:
    """A pattern and its flags, compiled on the first attribute asked for."""

    def __init__(self, pattern: str | bytes, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # no pattern attribute starts so (copy's and pickle's do)
            raise AttributeError(name)
        compiled = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = self.__dict__["_compiled"] = re.compile(*self._source)
        value = getattr(compiled, name)
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return f"compile_later({self._source[0]!r}, {self._source[1]})"


def compile_later(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """`re.compile(pattern, flags)`, done when the pattern is first used (module docstring)."""
    return cast("re.Pattern[AnyStr]", _Later(pattern, flags))
