"""The JSON documents of command results (`--json`): plain data, no rich, so `uze.cli` prints
them without loading the tables of `uze.ui.render`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from uze.install.rows import planned_rows

if TYPE_CHECKING:
    from uze.artifacts.kind import Action
    from uze.commands.check import CheckResult
    from uze.commands.switch import SwitchResult
    from uze.commands.uninstall import UninstallResult
    from uze.install.results import InstallResult


def install_json(result: InstallResult) -> dict[str, Any]:
    """The `install --json` document."""
    package = result.plan.package
    return {
        "schema": 1, "dry_run": result.dry_run, "project": str(result.plan.location.project),
        "package": {"name": package.name, "version": package.version, "tree": result.plan.tree,
                    "scope": result.plan.location.scope},
        "harnesses": list(result.plan.harnesses),
        "projections": planned_rows(result),
        "actions": [action_json(a) for a in result.actions],
        "adopted": [a.target for a in result.actions if a.adopted],
        "executions": [e.describe() for e in result.plan.executions],
        "warnings": list(package.warnings),
        "settings": settings_json(package),
        "writes": result.writes,
    }


def instructions_json(package: object) -> dict[str, object] | None:
    """The instruction text a package adds to the user's files: its file, size in bytes and
    first non-empty line (None when it has none, or for a package the receipt stands for)."""
    from uze.package import Package

    if not isinstance(package, Package) or package.instructions is None:
        return None
    data = package.instructions.text
    text = data.decode("utf-8", "replace")
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return {"file": package.instructions.describe(), "bytes": len(data),
            "first_line": first[:120]}


def action_json(action: Action) -> dict[str, Any]:
    """One action: its target, what was done and why; a kept value's new version; the files
    of a folder that differed (kept, or put back with --force)."""
    out: dict[str, Any] = {"target": action.target, "action": action.action,
                           "detail": action.detail}
    if action.new_value:
        out["new_value"] = action.new_value
    if action.files:
        out["files"] = list(action.files)
    if action.adopted:
        out["adopted"] = True
    return out


def uninstall_json(result: UninstallResult) -> dict[str, Any]:
    """The `uninstall --json` document."""
    return {"schema": 1, "name": result.name, "dry_run": result.dry_run,
            "actions": [action_json(a) for a in result.actions],
            "kept": [action_json(a) for a in result.kept]}


def projection_json(p: Any) -> dict[str, Any]:
    return {"kind": p.kind, "resource": p.resource, "harness": p.harness, "route": p.route,
            "reason": p.reason, "target": p.target, "level": p.level, "label": p.label}


def check_json(result: CheckResult) -> dict[str, Any]:
    """The `check --json` document: the package and exactly what install would project."""
    plan = result.plan
    package = plan.package
    return {
        "schema": 1,
        "package": {"name": package.name, "version": package.version, "tree": plan.tree},
        "harnesses": list(plan.harnesses),
        "projections": [projection_json(p) for p in plan.projections],
        "unmet_requirements": [projection_json(p) for p in plan.unmet_requirements()],
        "warnings": list(package.warnings),
        "executions": [e.describe() for e in plan.executions],
        "instructions": instructions_json(package),
        "settings": settings_json(package),
    }


def settings_json(package: Any) -> list[dict[str, object]]:
    """The package's settings and how each is delivered (adr/0078); never a value."""
    return [{"key": s.key, "title": s.title, "description": s.description,
             "sensitive": s.sensitive, "variable": s.env, "source": s.source,
             "written": s.written} for s in getattr(package, "settings", ())]


def switch_json(result: SwitchResult) -> dict[str, Any]:
    """The `--json` document: what was named, the switches after, every artifact's action."""
    return {"schema": 1, "name": result.name, "enable": result.on, "spec": result.asked,
            "harnesses": list(result.harnesses), "dry_run": result.install.dry_run,
            "changed": result.changed,
            "disabled": [{"resource": o.resource, "harness": o.harness} for o in result.after],
            "actions": [action_json(a) for a in result.install.actions]}
