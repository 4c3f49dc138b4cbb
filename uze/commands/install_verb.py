"""`uze install`: the re-install shortcut's answer when it has one, else the full install.

The full install (`uze.commands.install`) is imported only when the shortcut has no answer,
so re-installing an unchanged package never loads the package models (ADR 0016). Keeping this
choice out of both modules leaves `install` -> `reinstall` (the stamp it records) the only
import between them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from uze.install import reinstall
from uze.install.results import InstallResult
from uze.paths import Paths
from uze.policy import load_policy
from uze.state.context import Extra
from uze.state.receipts import Off
from uze.vocabulary import Scope


def install_or_unchanged(
    paths: Paths, source: Path, *, scope: Scope = "project", project: Path | None = None,
    harness: str | None = None, dry_run: bool = False, force: bool = False, trust: bool = False,
    cwd: Path, extra: Extra | None = None, adopt: bool = False, accepted: tuple[str, ...] = (),
    settings: Mapping[str, str] | None = None, ask: tuple[str, ...] | None = None,
    off: tuple[Off, ...] | None = None,
) -> InstallResult:
    """`uze install`: the answer of `unchanged` when it has one, else the full install (which
    `force`, `trust` and `accepted` cannot change for a package installed unchanged; `extra`
    runs inside its transaction, see `uze.commands.install.install`). Values of `settings`
    (`--set`) may change what is delivered, so they always take the full install; `ask`: see
    `uze.commands.install.prepare` (an unchanged package asks nothing)."""
    # The shortcut plans nothing, so it cannot ask `[powers] deny`: a policy that denies
    # powers is answered by the full install (adr/0060).
    # `off` given (a clone's switches from uze.lock, ADR 0087): the full install applies them.
    found = None if load_policy(paths).deny or settings or off is not None \
        else reinstall.unchanged(
        paths, source, scope=scope, project=project, harness=harness, dry_run=dry_run, cwd=cwd)
    if found is not None:
        return found
    from uze.commands.install import install

    return install(paths, source, scope=scope, project=project, harness=harness, dry_run=dry_run,
                   force=force, trust=trust, cwd=cwd, extra=extra, adopt=adopt,
                   accepted=accepted, settings=settings, ask=ask, off=off)
