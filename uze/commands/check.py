"""`uze check SOURCE`: validate a package and resolve its capability matrix; writes nothing."""

from __future__ import annotations

from pathlib import Path

import msgspec

from uze.commands.install import choose_harnesses, package_tree, read_source
from uze.harnesses import HARNESS_IDS
from uze.paths import Paths
from uze.plan.model import Plan
from uze.plan.planner import plan_install
from uze.policy import load_policy
from uze.state.context import open_scope


class CheckResult(msgspec.Struct, frozen=True):
    """The plan install would make (projections without state), and unmet requirements."""

    plan: Plan


def check(
    paths: Paths, source: Path, *, harness: str | None = None, project: Path | None = None,
    cwd: Path, strict: bool = False,
) -> CheckResult:
    """Resolve every projection for `source` against the capability map (default: all seven).

    Raises PackageInvalid for an invalid package, and with `strict` for one that reads only
    with warnings; UzeError for one the organisation policy refuses. Reads only the package.
    """
    ctx = open_scope(paths, "project", project, cwd)
    package = read_source(source, ctx.location, strict=strict)
    harnesses = choose_harnesses(harness, None, ctx) if harness is not None else HARNESS_IDS
    _entries, _meta, digest = package_tree(package)
    plan = plan_install(package, digest, ctx.location, harnesses)
    load_policy(paths).check_powers(package.name, plan.executions)  # install would refuse it
    return CheckResult(plan)
