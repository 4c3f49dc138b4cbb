"""Read a raw value as a package Struct, or report every problem with it located (ADR 0038)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

import msgspec

from uze.package.issues import issue, key_path
from uze.package.problems import problems

if TYPE_CHECKING:
    from uze.package.manifest import Strict

S = TypeVar("S", bound="Strict")


def convert(
    raw: object,
    kind: type[S],
    location: str,
    issues: list[str],
    prefix: Sequence[str | int] = (),
    *,
    own_key: str | None = None,
) -> S | None:
    """`raw` read as the Struct `kind`, or None with every problem added to `issues`.

    msgspec stops at its first problem; when it finds one (or `kind.given_problem` does, for a
    rule only the raw keys show), `uze.package.problems` walks `kind` over `raw` and lists them
    all in uze's wording (ADR 0038).
    `prefix` is the key path of the value inside its file; an error on `own_key` (a field
    filled from the item's key, such as a server's name) is reported at the prefix.
    """
    refuse = kind.given_problem(raw)
    if refuse is None:
        try:
            return msgspec.convert(raw, kind)
        except msgspec.ValidationError as error:
            refuse = str(error)
    found = problems(kind, raw, location, prefix, own_key=own_key)
    # The walk is tested to refuse all that msgspec refuses; should they ever disagree, the
    # value is refused all the same, with msgspec's own words.
    issues.extend(found or [issue(location, key_path(prefix), refuse)])
    return None
