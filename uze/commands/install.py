"""`uze install SOURCE`: validate -> plan -> preflight -> lock -> ingest -> apply -> receipt."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from uze import progress
from uze.artifacts import parts
from uze.artifacts import registry as kinds
from uze.errors import SettingsWanted, TrustRequired, UzeError
from uze.harnesses import Location, detect_harnesses, parse_harnesses, project_outputs
from uze.install import adoption, edits, owners, reinstall
from uze.install.preflight import Step, preflight
from uze.install.results import InstallResult
from uze.package import Package, hidden_warnings, read_package
from uze.package.settings import given_values, kept_values, ready
from uze.paths import Paths
from uze.plan.envelopes import envelope_warnings
from uze.plan.model import Plan, PlannedTree
from uze.plan.switches import plan_switched
from uze.policy import check_plan
from uze.projections.digest import held_digest
from uze.state.consent import Consent, dump_consent, load_consent
from uze.state.context import (
    Created,
    Extra,
    ScopeContext,
    load_created,
    locked,
    open_scope,
    register_project,
    registered_projects,
    save_created,
)
from uze.state.receipts import Artifact, Off, ProjectionRecord, Receipt, dump_receipt
from uze.store import Store, TreeEntry, digest_bytes
from uze.store.manifest import encode_manifest
from uze.transaction import Transaction
from uze.vocabulary import Scope


def choose_harnesses(option: str | None, previous: Receipt | None,
                     ctx: ScopeContext) -> tuple[str, ...]:
    """`--harness`, else the harnesses of the installed version, else those detected."""
    if option is not None:
        return parse_harnesses(option)
    if previous is not None:
        return tuple(previous.harnesses)
    found = detect_harnesses(ctx.location)
    if not found:
        raise UzeError(
            "no harness detected for this project or machine",
            hint="name them: --harness claude_code,codex (or --harness all)",
        )
    return found


def package_tree(package: Package) -> tuple[list[TreeEntry], dict[str, str], str]:
    """The store entries, meta and tree digest of a package (pure)."""
    entries = [  # held_digest: the receipt's digests of the same bytes reuse these
        TreeEntry(rel, held_digest(f.data), f.executable) for rel, f in package.files.items()
    ]
    meta = {"name": package.name, "version": package.version}
    return entries, meta, digest_bytes(encode_manifest(entries, meta))


def _apply_step(tx: Transaction, ctx: ScopeContext, step: Step,
                created: Created) -> Artifact | None:
    action, planned, old = step.action.action, step.planned, step.old
    if action in ("unchanged", "kept"):
        return old
    if action == "remove" and step.trim:
        assert old is not None and parts.is_parted(old)  # as _steps_for_dropped decided
        parts.trim(tx, ctx, old)
        return None
    if action == "remove":
        assert old is not None
        kinds.remove_record(tx, ctx, old, created)
        return None
    assert planned is not None
    kind = kinds.of(planned)
    record: Artifact
    if action == "merge":
        assert old is not None
        record = kind.merge(tx, planned, old)
        return record
    if old is not None and old.type != planned.type:  # a folder where a file was, or back
        if kinds.inspect_record(ctx, old) != "missing":
            kinds.remove_record(tx, ctx, old, created)
        old = None
    record = kind.write(tx, ctx, planned, old, created)
    return record


def build_receipt(plan: Plan, artifacts: list[Artifact],
                  unconsented: list[str] | None = None) -> Receipt:
    """The receipt for an applied plan (`unconsented`: see `edits.unconsented_keys`)."""
    return Receipt(
        name=plan.package.name,
        version=plan.package.version,
        tree=plan.tree,
        scope=plan.location.scope,
        harnesses=list(plan.harnesses),
        projections=[
            ProjectionRecord(kind=p.kind, resource=p.resource, harness=p.harness,
                             route=p.route, reason=p.reason, target=p.target, label=p.label)
            for p in plan.projections
        ],
        artifacts=sorted(artifacts, key=kinds.record_key),
        trust=plan.trust,
        executions=[e.describe() for e in plan.executions],
        unconsented=unconsented or [],
        disabled=list(plan.disabled),
        settings={s.key: s.given for s in plan.package.settings if s.given is not None},
    )


def consent_lines(plan: Plan) -> list[str]:
    """What the user reads and accepts: each thing that runs, then the package's files, which the
    consent digest covers whole (ADR 0021)."""
    if not plan.executions:
        return []
    files = (f"files: every file of {plan.package.name} {plan.package.version} "
             f"({len(plan.package.files)} files, tree blake3:{plan.tree[:16]})")
    return [*(e.describe() for e in plan.executions), files]


def _changed_files(store: Store, old_tree: str, entries: list[TreeEntry]) -> list[str]:
    """The package paths whose bytes or mode differ from tree `old_tree` (empty when that tree
    is not in the store: the files line says the tree changed)."""
    try:
        old = {e.path: (e.digest, e.executable) for e in store.read_tree(old_tree)}
    except (UzeError, OSError):
        return []
    new = {e.path: (e.digest, e.executable) for e in entries}
    return sorted(p for p in old.keys() | new.keys() if old.get(p) != new.get(p))


def check_trust(ctx: ScopeContext, plan: Plan, entries: list[TreeEntry], trusted: bool,
                accepted: tuple[str, ...] = ()) -> None:
    """Refuse what runs until this user accepted it, by the consent kept under `$UZE_HOME`
    (never a file of the project); ask again only when the digest changed. `accepted`: the
    consent digests the user said yes to at the question of this command: the package is
    installed only if it is exactly what that question showed (ADR 0056)."""

    if not plan.executions or trusted or plan.trust in accepted:
        return
    consent = load_consent(ctx.consent_file(plan.package.name), ctx.consent_project,
                           plan.package.name)
    if consent is not None and consent.digest == plan.trust:
        return
    lines = current = consent_lines(plan)
    if consent is not None and consent.executions:
        before = set(consent.executions)
        lines = [("unchanged: " if line in before else "new or changed: ") + line
                 for line in current]
        changed = _changed_files(Store(ctx.paths.store), consent.tree, entries) \
            if consent.tree != plan.tree else []
        if changed:
            more = f" and {len(changed) - 20} more" if len(changed) > 20 else ""
            shown = ", ".join(changed[:20]) + more
            lines.append(f"files changed since you accepted: {shown}")
        lines += [f"no longer run: {line}" for line in consent.executions
                  if line not in current and not line.startswith("files: ")]
    raise TrustRequired(lines, changed=consent is not None, package=plan.package.name,
                        digests=(plan.trust,), hidden=hidden_warnings(plan.package.warnings))


def _save_consent(tx: Transaction, ctx: ScopeContext, plan: Plan) -> None:
    """Keep this user's consent to what the installed version runs (ADR 0021); forget it when
    the version runs nothing."""

    path = ctx.consent_file(plan.package.name)
    if not plan.executions:
        if path.exists() or path.is_symlink():
            tx.remove(path)
        return
    data = dump_consent(Consent(project=ctx.consent_project, package=plan.package.name,
                                digest=plan.trust, tree=plan.tree, executions=consent_lines(plan)))
    found = load_consent(path, ctx.consent_project, plan.package.name)
    if found is None or dump_consent(found) != data:
        tx.write(path, data)


def _apply(
    tx: Transaction, ctx: ScopeContext, plan: Plan, steps: list[Step], stored: list[Path],
    extra: Extra | None, previous: Receipt | None,
) -> tuple[Receipt, bytes]:
    """Apply the steps in `tx` (the caller commits it, which also makes the `stored` objects
    durable). `extra` writes in the same transaction (uze.toml and uze.lock) or raises to roll
    it back.

    Returns the receipt and its bytes as on disk."""
    ordered = sorted(steps, key=lambda s: s.action.action != "remove")
    created = load_created(ctx)
    tx.sync_at_commit(stored)
    # The folders made fresh (every skill folder of a first install): journaled with one fsync.
    tx.create_folders([step.planned.path for step in ordered if step.action.action == "create"
                       and step.old is None and isinstance(step.planned, PlannedTree)])
    count = len(plan.harnesses)
    progress.stage(f"writing {plan.package.name} for {count} harness{'es' if count > 1 else ''}",
                   total=len(ordered))
    records = []
    for step in ordered:
        record = _apply_step(tx, ctx, step, created)
        if record is not None:
            records.append(record)
        progress.advance()
    adoption.claim(ctx, [s.planned for s in steps if s.action.adopted and s.planned], created)
    unconsented = edits.unconsented_keys(plan, [s.action for s in steps], previous)
    receipt = build_receipt(plan, records, unconsented)
    path = ctx.receipt_file(receipt.name)
    data = dump_receipt(receipt)
    if not path.exists() or path.read_bytes() != data:
        tx.write(path, data)
    if extra is not None:
        extra(tx, ctx, created, receipt)
    outside_uze_home = (d for d in tx.created_dirs if not d.is_relative_to(ctx.paths.uze_home))
    created.dirs |= {ctx.location.display(d) for d in outside_uze_home}
    save_created(tx, ctx, created)
    _save_consent(tx, ctx, plan)
    if ctx.scope == "project":
        register_project(tx, ctx.paths, ctx.location.project, present=True)
    return receipt, data


def _recorded(ctx: ScopeContext, name: str) -> Mapping[str, str]:
    """The setting values the receipt of `name` here recorded (none without one)."""
    previous = ctx.receipt(name)
    return previous.settings if previous is not None else {}


def read_source(source: Path, location: Location, *, strict: bool = False,
                settings: Mapping[str, str] | None = None,
                kept: Callable[[str], Mapping[str, str]] | None = None) -> Package:
    """read_package; when the package folder is the project itself (`uze install .` in a
    repository that is a package), without what uze writes there, so installs converge. What
    the package's own envelopes for other harnesses carry and uze does not deliver is warned
    about (uze.plan.envelopes). The package comes ready to deliver: each setting's value
    (`settings`, the `--set` values, else the author's default) or variable in place of its
    `${user_config.KEY}` (uze.package.settings, adr/0078). `kept(name)`: the values recorded
    for the package of that name (its receipt's), used where `settings` gives none (ADR 0103)."""
    same = location.scope == "project" and source.resolve() == location.project.resolve()
    package = read_package(source, strict=strict, deliverable=True,
                           skip=project_outputs(location) if same else frozenset(),
                           extra_warnings=envelope_warnings)
    given = {**kept_values(package, kept(package.name) if kept else {}), **(settings or {})}
    return ready(package, given_values(package, given), given)


def prepare(
    paths: Paths, source: Path, scope: Scope, project: Path | None, harness: str | None, cwd: Path,
    settings: Mapping[str, str] | None = None, ask: tuple[str, ...] | None = None,
    off: tuple[Off, ...] | None = None,
) -> tuple[ScopeContext, Package, Plan, Receipt | None, list[TreeEntry], dict[str, str]]:
    """The scope, package, plan, receipt, store entries and meta of `source` (writes nothing);
    `settings`: the `--set` values (read_source). `ask`: the caller can ask at a terminal
    (the keys it asked already and got no answer for): SettingsWanted for each non-sensitive
    setting still without a value. `off`: what is switched off (ADR 0087), None keeps what
    the receipt says."""
    progress.stage(f"reading {source}")
    ctx = open_scope(paths, scope, project, cwd)
    package = read_source(source, ctx.location, settings=settings,
                          kept=lambda name: _recorded(ctx, name))
    wanted = [(s.key, s.title, s.description, s.env) for s in package.settings
              if ask is not None and not s.sensitive and not s.written and s.key not in ask]
    if wanted:
        raise SettingsWanted(package.name, wanted)
    previous = ctx.receipt(package.name)
    harnesses = choose_harnesses(harness, previous, ctx)
    entries, meta, digest = package_tree(package)
    if off is None:
        off = tuple(previous.disabled) if previous is not None else ()
    here = adoption.in_place(ctx.location, package, harnesses)  # adopted where it is (ADR 0096)
    plan = plan_switched(package, digest, ctx.location, harnesses, off, here)
    check_plan(plan)  # before --trust counts
    return ctx, package, plan, previous, entries, meta


def install(
    paths: Paths,
    source: Path,
    *,
    scope: Scope = "project",
    project: Path | None = None,
    harness: str | None = None,
    dry_run: bool = False,
    force: bool = False,
    trust: bool = False,
    cwd: Path,
    extra: Extra | None = None,
    adopt: bool = False,
    accepted: tuple[str, ...] = (),
    settings: Mapping[str, str] | None = None,
    ask: tuple[str, ...] | None = None,
    off: tuple[Off, ...] | None = None,
) -> InstallResult:
    """Install (or upgrade) the package at `source` (its `settings` values given with `--set`,
    read_source; `ask`, see prepare). Writes nothing on error or dry run.
    `extra` runs inside the install's transaction, after the receipt is written.

    Raises TrustRequired when the package runs commands not yet accepted (unless `trust`, or
    its consent digest is one of `accepted`). The package is read once: the bytes whose digest
    was checked are the bytes stored, delivered and recorded.
    """
    ctx, package, plan, previous, entries, meta = prepare(paths, source, scope, project, harness,
                                                           cwd, settings, ask, off)
    steps = preflight(ctx, plan, previous, force, adopt)
    actions = tuple(step.action for step in steps)
    if dry_run:
        return InstallResult(plan, actions, True, None, 0)
    check_trust(ctx, plan, entries, trust, accepted)
    with locked(ctx, store=True):
        registered_projects(paths)  # a damaged registry is named before anything is written
        previous = ctx.receipt(package.name)  # re-read: another command may have run meanwhile
        steps = preflight(ctx, plan, previous, force, adopt)
        store = Store(paths.store)
        try:
            with Transaction(ctx.journal_root, ctx.roots.check_write) as tx:
                tx.sweep_on_undo(paths.store)  # a kill inside a store write leaves no temp file
                progress.stage(f"storing {len(entries)} files of {package.name}",
                               total=len(entries))
                store.ingest_entries(entries,
                                     {e.path: package.files[e.path].data for e in entries},
                                     meta, sync=False)
                receipt, data = _apply(tx, ctx, plan, steps, store.added, extra, previous)
                writes = tx.writes
                progress.stage(f"making {writes} writes durable (sync)")
        except BaseException:
            store.discard_added()  # the store as before, like the project (rolled back)
            raise
        if writes:
            owners.save(ctx)  # what preflight learnt of the other receipts (ADR 0079)
        as_planned = steps[:len(plan.artifacts)]  # preflight lists the planned artifacts first
        if all(s.action.action in ("create", "replace", "unchanged") for s in as_planned):
            reinstall.record(ctx, receipt.name, data, [s.action.target for s in as_planned])
    return InstallResult(plan, tuple(s.action for s in steps), False, receipt, writes)

