"""`uze install SOURCE --all-plugins`: every plugin of the marketplace at SOURCE's root, each
installed, declared and pinned as `SOURCE --plugin NAME` would (issue 31 item 4, adr/0075).
Like `uze install` with no SOURCE (`uze.commands.converge`), every plugin's consent question is
asked before anything is written; the result is reported as a converge's."""

from __future__ import annotations

import contextlib
from pathlib import Path

import msgspec

from uze.commands import declare
from uze.commands.acquire import Options, install_folder, materialised, parse

# converge's own report of one installed package: this command reports as a converge does
from uze.commands.converge import ConvergeResult, Wanted, ask_first
from uze.commands.converge import _installed as installed
from uze.commands.published import is_marketplace_only, plugin_names
from uze.errors import UzeError
from uze.paths import Paths
from uze.sources.spec import Source
from uze.state.context import ScopeContext, open_scope


def install_every_plugin(paths: Paths, text: str, options: Options, cwd: Path, *,
                         ref: str = "", subdirectory: str = "") -> ConvergeResult:
    """Install each installable plugin the catalog at SOURCE's root lists. Raises UzeError
    (nothing written) when SOURCE's root is no marketplace, and TrustRequired or
    ConsentRequired (nothing written) when a plugin runs something not accepted yet."""
    source = parse(paths, text, cwd, ref, subdirectory)
    if source.kind == "marketplace" or source.plugin or source.skills:
        raise UzeError("--all-plugins installs every plugin of the marketplace at a folder's "
                       "or repository's root; it takes no plugin@marketplace, plugin or skill",
                       hint="uze install owner/repo --all-plugins")
    ctx = open_scope(paths, options.scope, options.project, cwd)
    names = _names(paths, source, ctx, cwd)
    wanted = [Wanted(name, msgspec.structs.replace(source, plugin=name)) for name in names]
    done = []
    with contextlib.ExitStack() as stack:
        commits = {} if options.trust or options.dry_run else \
            ask_first(paths, ctx, options, wanted, stack, cwd)
        for want in wanted:
            folder, pin = stack.enter_context(materialised(
                paths, want.source, ctx, cwd, commit=commits.get(want.name, ""),
                cache=not options.dry_run, typed=True))
            done.append(installed(ctx, install_folder(paths, folder, pin, options, cwd), pin))
    return ConvergeResult(tuple(done), (), options.dry_run)


def _names(paths: Paths, source: Source, ctx: ScopeContext, cwd: Path) -> list[str]:
    """The installable plugins of the catalog at `source`'s root (read without caching)."""
    if source.kind == "folder":
        return _listed(paths, source, declare.folder_pin(source, ctx, cwd)[0])
    from uze.sources.mirrors import fetched

    with fetched(paths, source, cache=False) as (folder, _commit):
        return _listed(paths, source, folder)


def _listed(paths: Paths, source: Source, folder: Path) -> list[str]:
    if not is_marketplace_only(folder):
        raise UzeError(f"{source.canonical()} is not a marketplace (no catalog at its root, or "
                       "a package of its own)", hint="install it without --all-plugins")
    return plugin_names(paths, folder, source)
