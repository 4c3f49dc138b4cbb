"""Every problem in an invalid package value, located, in uze's wording (ADR 0038).

msgspec reads a package's JSON values into the Structs of `manifest.py` and `hooks.py` and
stops at the first problem. When it refuses a value, `convert.convert` asks `problems` here,
which walks the same Struct's fields (`msgspec.inspect`) over the raw value and reports every
problem at once: a key of the wrong type, an empty or out-of-range value, a required key
missing, an unknown key, then each field's rule (`Strict.rules`), and, when every field holds,
the rule on the whole value (`Strict.given_problem`, else what the Struct itself refuses).
There is one declaration of each shape: the Struct.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Sequence
from typing import Any, Final, Literal

import msgspec
import msgspec.inspect as mi

from uze.package.issues import issue, key_path

Loc = tuple[str | int, ...]
_TYPES: Final = (
    (mi.StrType, str, "must be a string"), (mi.BoolType, bool, "must be true or false"),
    (mi.ListType, list, "must be a list"), (mi.DictType, dict, "must be a JSON object"),
    (mi.StructType, dict, "must be a JSON object"),
)


@functools.cache
def _declared(cls: type) -> dict[str, tuple[Any, ...]]:
    """The values of each Literal field of `cls` in the order they are declared (msgspec's
    type information sorts them; the message lists them as written)."""
    found: dict[str, tuple[Any, ...]] = {}
    for name, hint in typing.get_type_hints(cls).items():
        for part in (hint, *typing.get_args(hint)):
            if typing.get_origin(part) is Literal:
                found[name] = typing.get_args(part)
    return found


def _literal(values: tuple[Any, ...]) -> str:
    shown = [repr(value) for value in values]
    return "must be " + (shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}")


def _value(kind: mi.Type, raw: object, loc: Loc, declared: tuple[Any, ...] = ()
           ) -> list[tuple[Loc, str]]:
    """The problems of `raw` read as the type `kind` (what msgspec would refuse); `declared`:
    a Literal's values in their declared order."""
    if isinstance(kind, mi.UnionType):  # `X | None`, the only unions of the package Structs
        if raw is None:
            return []
        kind = next(t for t in kind.types if not isinstance(t, mi.NoneType))
    if isinstance(kind, mi.AnyType):
        return []
    if isinstance(kind, mi.LiteralType):
        if raw in kind.values and isinstance(raw, str):
            return []
        return [(loc, _literal(declared or kind.values))]
    if isinstance(kind, mi.IntType):
        if not isinstance(raw, int) or isinstance(raw, bool):
            return [(loc, "must be a whole number")]
        if kind.ge is not None and raw < kind.ge:
            return [(loc, f"must be greater than or equal to {kind.ge}")]
        if kind.le is not None and raw > kind.le:
            return [(loc, f"must be less than or equal to {kind.le}")]
        return []
    for info, python, message in _TYPES:
        if isinstance(kind, info) and not isinstance(raw, python):
            return [(loc, message)]
    if isinstance(kind, mi.StructType):
        return _struct(kind, raw, loc)
    found: list[tuple[Loc, str]] = []
    if isinstance(kind, mi.ListType):
        assert isinstance(raw, list)
        for index, item in enumerate(raw):
            found += _value(kind.item_type, item, (*loc, index))
    elif isinstance(kind, mi.DictType):
        assert isinstance(raw, dict)
        for key, item in raw.items():
            found += _value(kind.value_type, item, (*loc, key))
    size = getattr(kind, "min_length", None)
    if size is not None and isinstance(raw, str | list) and len(raw) < size:
        found.append((loc, "must not be empty"))
    return found


def _struct(kind: mi.StructType, raw: Any, loc: Loc) -> list[tuple[Loc, str]]:
    """The problems of the object `raw` read as the Struct `kind`: each field in order (its
    type, then its rule), each required key missing, each unknown key; then, only when every
    field holds, the rule on the whole value."""
    cls: Any = kind.cls
    found: list[tuple[Loc, str]] = []
    for field in kind.fields:
        if field.encode_name not in raw:
            if field.required:
                found.append(((*loc, field.encode_name), "required key missing"))
            continue
        value = raw[field.encode_name]
        wrong = _value(field.type, value, (*loc, field.encode_name),
                       _declared(cls).get(field.name, ()))
        rule = cls.rules.get(field.name)
        if not wrong and rule is not None and value is not None:
            problem = rule(value)
            wrong = [((*loc, field.encode_name), problem)] if problem else []
        found += wrong
    known = {field.encode_name for field in kind.fields}
    found += [((*loc, key), "unknown key") for key in raw if key not in known]
    if not found:
        whole = cls.given_problem(raw)
        if whole is None:
            try:
                msgspec.convert(raw, cls)
            except msgspec.ValidationError as error:
                whole = str(error)
        if whole is not None:
            found.append((loc, whole))
    return found


def problems(
    kind: type, raw: object, location: str, prefix: Sequence[str | int] = (), *,
    own_key: str | None = None,
) -> list[str]:
    """Every problem of `raw` read as the Struct `kind`, as located issue lines ([] if none).

    `prefix` is the key path of the value inside its file. A problem of `own_key` (a field
    filled from the item's key, such as a server's name) is reported at the prefix.
    """
    lines: list[str] = []
    for loc, message in _value(mi.type_info(kind), raw, ()):
        where = [] if own_key is not None and list(loc) == [own_key] else list(loc)
        lines += [issue(location, key_path([*prefix, *where]), line)
                  for line in message.splitlines()]
    return lines
