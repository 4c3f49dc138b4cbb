"""`uze disable NAME[:RESOURCE] [--harness H]` and `uze enable`: switch an installed package,
or one of its resources, off and on in each harness without uninstalling it (ADR 0087).

The switches are kept in the receipt (`Receipt.disabled`); both commands re-install the
package from the store, as its receipt records it, with the new switches
(`uze.plan.switches`): what is switched off is removed where uze owns it as written (an edited
artifact is kept and reported), or switched off by the harness's own setting (Claude Code's
`enabledPlugins`); what is switched on is written back from the stored bytes. Every re-install
and update keeps the switches, since each starts from the receipt's.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import msgspec

from uze import fs
from uze.commands import declare
from uze.commands.install import install, read_source
from uze.errors import NotInstalled, UsageError, UzeError, did_you_mean
from uze.harnesses import parse_harnesses
from uze.install.results import InstallResult
from uze.paths import Paths
from uze.plan.switches import resources
from uze.state.context import ScopeContext, open_scope
from uze.state.receipts import Off, Receipt
from uze.store import Store
from uze.vocabulary import Scope


class SwitchResult(msgspec.Struct, frozen=True):
    """What `disable` or `enable` did: the switches before and after, and the re-install."""

    name: str
    on: bool  # enable (True) or disable
    asked: str  # what was named, as typed: NAME[:RESOURCE]
    harnesses: tuple[str, ...]  # the harnesses named by --harness (() = all)
    before: tuple[Off, ...]
    after: tuple[Off, ...]
    install: InstallResult

    @property
    def changed(self) -> bool:
        """Whether the switches changed (else the command had nothing to do)."""
        return self.before != self.after


@contextlib.contextmanager
def stored_package(paths: Paths, receipt: Receipt) -> Iterator[Path]:
    """The package as its receipt's tree holds it in the store, in a temporary folder named
    after it (gone afterwards): byte for byte what was installed."""
    store = Store(paths.store)
    scratch = fs.scratch_dir("uze-switch-")
    try:
        root = scratch / receipt.name
        for entry in store.read_tree(receipt.tree):
            target = root / entry.path
            fs.make_dir(target.parent, parents=True)
            fs.atomic_write(target, store.read(entry.digest), 0o755 if entry.executable
                            else 0o644, durable=False)
        yield root
    finally:
        fs.remove_tree(scratch)


def _receipt(ctx: ScopeContext, name: str, scope: str) -> Receipt:
    receipt = ctx.receipt(name)
    if receipt is None:
        raise NotInstalled(name, scope, ctx.location.display(ctx.receipts_dir),
                           [r.name for r in ctx.receipts()])
    return receipt


def _harnesses(receipt: Receipt, option: str | None) -> tuple[str, ...]:
    if option is None:
        return ()
    named = parse_harnesses(option)
    for harness in named:
        if harness not in receipt.harnesses:
            raise UsageError(
                f"--harness {option}: {receipt.name} is not installed for {harness}",
                hint=f"it is installed for {', '.join(receipt.harnesses)}; "
                     f"{did_you_mean(harness, receipt.harnesses)}name one of those")
    return named


def _check_resource(name: str, resource: str, known: dict[str, str]) -> None:
    if resource and resource not in known:
        raise UzeError(
            f"{name}:{resource}: {name} has no skill, command, agent or MCP server {resource!r}",
            hint=f"{did_you_mean(resource, known)}it has "
                 + (", ".join(f"{kind} {res}" for res, kind in sorted(known.items()))
                    or "none"))


def switched_off(before: tuple[Off, ...], resource: str, harnesses: tuple[str, ...]
                 ) -> tuple[Off, ...]:
    """`before` with `resource` ("" the package) switched off in `harnesses` (() = all)."""
    if not harnesses:
        kept = [o for o in before if resource and o.resource != resource]
        return (*kept, Off(resource=resource)) if resource else (Off(),)
    added = [Off(resource=resource, harness=h) for h in harnesses
             if not any(o.resource in ("", resource) and o.harness in ("", h) for o in before)]
    return (*before, *added)


def switched_on(receipt: Receipt, before: tuple[Off, ...], resource: str,
                harnesses: tuple[str, ...]) -> tuple[Off, ...]:
    """`before` with `resource` ("" the whole package, every switch of it) switched on in
    `harnesses` (() = all). A switch of every harness that `harnesses` names only in part is
    kept for the other harnesses. Raises UzeError for a resource with no switch of its own in a
    package switched off whole there (switch the package on first)."""
    wanted = harnesses or tuple(receipt.harnesses)
    out: list[Off] = []
    for o in before:
        if (resource and o.resource != resource) or (o.harness and o.harness not in wanted):
            out.append(o)
        elif not o.harness:  # every harness: keep it for those not named
            out += [Off(resource=o.resource, harness=h) for h in receipt.harnesses
                    if h not in wanted]
    whole = [h for h in wanted if any(not o.resource and o.harness in ("", h) for o in out)]
    if resource and whole and tuple(out) == before:
        raise UzeError(
            f"{receipt.name}:{resource}: the whole of {receipt.name} is off in {', '.join(whole)}",
            hint=f"switch it on first: `uze enable {receipt.name}`")
    return tuple(out)


def switch(paths: Paths, spec: str, *, on: bool, harness: str | None = None,
           scope: Scope = "project", project: Path | None = None, dry_run: bool = False,
           cwd: Path) -> SwitchResult:
    """Switch `spec` (`NAME` or `NAME:RESOURCE`) on or off in `harness` (default: every
    harness it is installed for). Bad input (a package not installed here, a harness it is not
    installed for, a resource it does not have) is refused before anything is written."""
    name, _, resource = spec.partition(":")
    if not name or (":" in spec and not resource):
        raise UsageError(f"{spec!r}: name a package, or a resource of one as NAME:RESOURCE",
                         hint="uze disable NAME or uze disable NAME:SKILL (see `uze list`)")
    ctx = open_scope(paths, scope, project, cwd)
    receipt = _receipt(ctx, name, scope)
    harnesses = _harnesses(receipt, harness)
    before = tuple(receipt.disabled)
    with stored_package(paths, receipt) as folder:
        _check_resource(name, resource, resources(read_source(folder, ctx.location)))
        after = (switched_on(receipt, before, resource, harnesses) if on
                 else switched_off(before, resource, harnesses))
        result = install(paths, folder, scope=scope, project=project,
                         harness=",".join(receipt.harnesses), dry_run=dry_run, cwd=cwd,
                         off=after, extra=declare.repin)
    return SwitchResult(name, on, spec, harnesses, before, after, result)
