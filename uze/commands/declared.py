"""What a scope's `uze.toml` and `uze.lock` say against what is installed on this machine, for
`status`, `status --check` and `list` (ADR 0062).

Every name the manifest declares, the lock pins or a receipt records gets one `Declared` row:

- `installed`: declared, pinned, and installed here at the pinned tree;
- `not installed`: declared but not installed here (a fresh clone: `.uze/` is machine-local);
- `other pin`: installed here at another tree than the lock pins (a pull, a checkout or a merge
  moved the lock);
- `not pinned`: declared, but uze.lock has no pin for it, or a pin of another source;
- `not declared`: pinned in uze.lock, not declared in uze.toml;
- `undeclared`: installed here, declared nowhere.

Each row that is not `installed` carries the one command that fixes it (`uze install`: the two
files say where every package comes from, so no fix names a folder). A manifest or lock that
cannot be read (conflict markers, a hand edit) is reported as a problem of its own. Reads the
two files and the receipts; writes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import msgspec

from uze.errors import UzeError
from uze.harnesses import HARNESS_IDS

if TYPE_CHECKING:
    from uze.sources.lockfile import LockedPackage
    from uze.state.context import ScopeContext
    from uze.state.receipts import Receipt

INSTALL: Final = "`uze install`"
QUIET: Final = ("installed", "unknown", "unknown harness")  # the states that are no difference


class Declared(msgspec.Struct, frozen=True):
    """One package of a scope: what uze.toml and uze.lock say, what is installed here, and (if
    they differ) the difference and its fix."""

    name: str
    scope: str
    # installed | not installed | other pin | not pinned | not declared | undeclared; unknown
    # (uze.toml or uze.lock cannot be read) or unknown harness (pinned only for harnesses this
    # uze does not know): no difference
    state: str
    source: str = ""  # as uze.toml declares it ("" when not declared)
    version: str = ""  # as uze.lock pins it ("" without a pin)
    commit: str = ""
    tree: str = ""
    harnesses: tuple[str, ...] = ()  # as uze.lock pins them
    installed: str = ""  # the version installed here ("" when none)
    message: str = ""
    fix: str = ""


class Unreadable(msgspec.Struct, frozen=True):
    """A scope whose uze.toml or uze.lock cannot be read: the error and its hint."""

    scope: str
    message: str
    fix: str


def _short(pin: LockedPackage) -> str:
    return pin.version + (f" at {pin.commit[:12]}" if pin.commit else f" (tree {pin.tree[:12]})")


def declared_row(name: str, scope: str, source: str | None, pin: LockedPackage | None,
                 receipt: Receipt | None) -> Declared:
    """The row of one name, from its declaration, its pin and its receipt (any may be None)."""
    base = Declared(name, scope, "installed", source or "",
                    pin.version if pin else "", pin.commit if pin else "",
                    pin.tree if pin else "", tuple(pin.harnesses) if pin else (),
                    receipt.version if receipt else "")

    def to(state: str, message: str, fix: str = INSTALL) -> Declared:
        return msgspec.structs.replace(base, state=state, message=message, fix=fix)

    if source is None and receipt is not None:
        return to("undeclared", f"{name} is installed here but not declared in uze.toml",
                  f"`uze uninstall {name}` (or declare it again in uze.toml)")
    if source is None:
        return to("not declared", f"uze.lock pins {name}, uze.toml does not declare it")
    if pin is None or pin.declared() != source:
        pinned = f"pins {pin.declared()}" if pin is not None else "has no pin"
        return to("not pinned", f"uze.toml declares {name} as {source}, uze.lock {pinned}")
    known, others = known_harnesses(pin.harnesses)
    if not known and others and receipt is None:  # nothing this uze can install: no difference
        return to("unknown harness", f"{name} is pinned only for harnesses this uze does not "
                                     f"know ({', '.join(others)})", "")
    if receipt is None:
        return to("not installed", f"{name} {_short(pin)} is declared, not installed here")
    if receipt.tree != pin.tree:
        return to("other pin", f"uze.lock moved {name} to {_short(pin)} ({receipt.version} "
                               "installed here)")
    wanted = sorted(known)
    if wanted != sorted(receipt.harnesses):
        return to("other pin", f"uze.lock pins {name} for {', '.join(wanted) or 'no harness'} "
                               f"(installed here for {', '.join(sorted(receipt.harnesses))})")
    return base


def known_harnesses(ids: list[str] | tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the ids this uze knows, the others): a harness id in a lock is an opaque string, and
    one this version does not know (a newer uze's) is skipped, never an error (ADR 0062)."""
    return (tuple(h for h in ids if h in HARNESS_IDS),
            tuple(h for h in ids if h not in HARNESS_IDS))


def opaque_harnesses(pins: dict[str, LockedPackage]
                     ) -> tuple[dict[str, LockedPackage], set[str], tuple[str, ...]]:
    """The pins with only the harnesses this uze knows, the names of those left with none
    (nothing to install here), and a note naming each unknown id and its packages."""
    unknown: dict[str, list[str]] = {}
    kept: dict[str, LockedPackage] = {}
    for name, pin in pins.items():
        known, others = known_harnesses(pin.harnesses)
        for harness in others:
            unknown.setdefault(harness, []).append(name)
        kept[name] = msgspec.structs.replace(pin, harnesses=list(known)) if others else pin
    empty = {name for name, pin in kept.items() if not pin.harnesses and pins[name].harnesses}
    notes = tuple(f"uze.lock pins {', '.join(names)} for harness {harness}, which this uze does "
                  "not know (a newer uze's?): skipped there; the rest installs"
                  for harness, names in sorted(unknown.items()))
    return kept, empty, notes


def keep_unknown(old: LockedPackage | None, new: LockedPackage) -> LockedPackage:
    """`new` with the harness ids of `old` this uze does not know: a pin written here keeps
    what a newer uze pinned, for the teammate who runs it."""
    others = known_harnesses(old.harnesses)[1] if old is not None else ()
    if not others:
        return new
    return msgspec.structs.replace(new, harnesses=sorted({*new.harnesses, *others}))


def declared_rows(ctx: ScopeContext, receipts: list[Receipt]
                  ) -> tuple[list[Declared], Unreadable | None]:
    """Every package of the scope `ctx` (by name), and the manifest's or lock's read error."""
    from uze.commands.declare import read_pair

    try:
        declared, pins = read_pair(ctx)
    except UzeError as exc:  # nothing to compare with: the files' own problem is the difference
        return [Declared(r.name, ctx.scope, "unknown", installed=r.version) for r in receipts], \
            Unreadable(ctx.scope, exc.message, exc.hint or "")
    installed = {r.name: r for r in receipts}
    names = sorted(set(declared) | set(pins) | set(installed))
    return [declared_row(n, ctx.scope, declared.get(n), pins.get(n), installed.get(n))
            for n in names], None


