"""`uze install SOURCE`: validate -> plan -> preflight -> lock -> ingest -> apply -> receipt."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from uze import fs, progress
from uze.commands import artifacts as arts
from uze.commands import reinstall, upgrade
from uze.commands.artifacts import Action
from uze.commands.context import (
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
from uze.commands.results import InstallResult
from uze.consent import Consent, dump_consent, load_consent
from uze.envelopes import envelope_warnings
from uze.errors import (
    Blocked,
    ConfigBroken,
    Conflict,
    ForeignFile,
    MarkersBroken,
    RequirementUnmet,
    TrustRequired,
    UzeError,
)
from uze.harnesses import Location, detect_harnesses, parse_harnesses, project_outputs
from uze.package import Package, read_package
from uze.paths import Paths
from uze.plan import (
    Plan,
    PlannedArtifact,
    PlannedElement,
    PlannedEntry,
    PlannedFile,
    PlannedRegion,
    PlannedTree,
    plan_install,
)
from uze.projections import config_entry, element, entry, file, region, region_file, tree
from uze.projections.config_entry import format_key_path
from uze.projections.digest import content_digest
from uze.receipts import (
    Artifact,
    ElementArtifact,
    EntryArtifact,
    FileArtifact,
    ProjectionRecord,
    Receipt,
    RegionArtifact,
    TreeArtifact,
    dump_receipt,
)
from uze.store import Store, TreeEntry, digest_bytes
from uze.store.manifest import encode_manifest
from uze.transaction import Transaction
from uze.trust import HIDDEN, hide_secrets
from uze.vocabulary import Scope


class _Step(msgspec.Struct, frozen=True):
    action: Action
    planned: PlannedArtifact | None
    old: Artifact | None


def planned_key(artifact: PlannedArtifact) -> str:
    """Identity of a planned artifact: its target, plus `#id` for a region."""
    if isinstance(artifact, PlannedRegion):
        return f"{artifact.target}#{artifact.region_id}"
    if isinstance(artifact, PlannedEntry):
        return f"{artifact.target}#{format_key_path(artifact.key_path)}"
    if isinstance(artifact, PlannedElement):
        return f"{artifact.target}#{format_key_path(artifact.key_path)}[{artifact.group}]"
    return artifact.target


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
    entries = [
        TreeEntry(rel, digest_bytes(f.data), f.executable) for rel, f in package.files.items()
    ]
    meta = {"name": package.name, "version": package.version}
    return entries, meta, digest_bytes(encode_manifest(entries, meta))


def _check_free(ctx: ScopeContext, artifact: PlannedArtifact, owners: dict[str, str]) -> None:
    key = planned_key(artifact)
    if key in owners:
        raise Conflict(key, f"already delivered by package {owners[key]}")
    path = artifact.path
    why = fs.replace_problem(path)
    if why == "is read-only":
        raise UzeError(f"{artifact.target} is read-only; uze edits only files you can write",
                       hint="make it writable (chmod u+w) if uze may add to it, or leave out "
                            "that harness")
    if why is not None:
        raise UzeError(f"{artifact.target} {why}; uze replaces only files you may write",
                       hint="ask its owner to make it yours (or writable for you), or leave out "
                            "that harness")
    if isinstance(artifact, PlannedEntry):
        _check_entry_free(artifact, key)
        return
    if isinstance(artifact, PlannedElement):
        if artifact.path.is_symlink() or (artifact.path.exists() and not artifact.path.is_file()):
            raise ForeignFile(artifact.target)
        entry.check_reachable(artifact.path, artifact.fmt, artifact.key_path, artifact.target)
        element.check_writable(artifact.path, artifact.fmt, artifact.key_path, artifact.target)
        return
    if not isinstance(artifact, PlannedRegion):
        if path.exists() or path.is_symlink():
            raise ForeignFile(artifact.target)
        return
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise ForeignFile(artifact.target)
    if artifact.region_id in region_file.read_regions(path, artifact.target):
        raise Conflict(key, "a uze region with this id exists but no receipt owns it",
                       hint="remove that region by hand (both marker lines), then run again")


def _check_config_shape(planned: PlannedArtifact) -> None:
    """Raise ConfigShape (or Blocked) before anything is written when a config on the way to
    the entry or element holds another kind of value there; other kinds pass."""
    if isinstance(planned, PlannedEntry | PlannedElement):
        entry.check_reachable(planned.path, planned.fmt, planned.key_path, planned.target)
    if isinstance(planned, PlannedElement):
        element.check_writable(planned.path, planned.fmt, planned.key_path, planned.target)


def _check_entry_free(artifact: PlannedEntry, key: str) -> None:
    path = artifact.path
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise ForeignFile(artifact.target)
    entry.check_reachable(path, artifact.fmt, artifact.key_path, artifact.target)
    found = entry.read_value(path, artifact.fmt, artifact.key_path, artifact.target)
    if found is not config_entry.MISSING:
        raise Conflict(key, "an entry with this name is there and uze did not write it",
                       hint="rename the server in the package, or remove that entry yourself")


def _digests(artifact: PlannedArtifact) -> dict[str, str] | str:
    if isinstance(artifact, PlannedTree):
        return tree.digests_of(artifact.files)
    if isinstance(artifact, PlannedFile):
        return content_digest(artifact.data)
    if isinstance(artifact, PlannedEntry | PlannedElement):
        return entry.value_digest(artifact.value)
    return region_file.body_digest(artifact.body)


def _old_digests(record: Artifact) -> dict[str, str] | str:
    return record.files if isinstance(record, TreeArtifact) else record.digest


def _blocked(ctx: ScopeContext, planned: PlannedArtifact, old: Artifact) -> Blocked:
    """Why an owned artifact reads as blocked: its config file does not parse (the parser's
    line:column when it can be read again), or its region markers are broken."""
    path = arts.record_path(ctx, old)
    try:
        if old.type == "entry":
            entry.read_value(path, old.format, tuple(old.key_path), planned.target)
        elif old.type == "element":
            element.check_writable(path, old.format, tuple(old.key_path), planned.target)
    except Blocked as exc:
        return exc
    if old.type in ("entry", "element"):
        return ConfigBroken(planned.target, "it does not parse; "
                                            "uze never rewrites a file it cannot read")
    return MarkersBroken(planned.target, "its uze markers are broken")


_VALUES_HIDDEN = frozenset({"env", "environment", "headers", "http_headers", "env_http_headers"})


def redacted(value: object) -> object:
    """A config entry as it may be shown: environment and header values hidden, secret-looking
    arguments hidden (`uze.trust.hide_secrets`, ADR 0021)."""

    if isinstance(value, list):
        return [redacted(item) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, object] = {}
    for key, item in value.items():
        if key in _VALUES_HIDDEN and isinstance(item, dict):
            out[key] = dict.fromkeys(item, HIDDEN)
        elif key in ("args", "command") and isinstance(item, list) \
                and all(isinstance(a, str) for a in item):
            head = item[:1] if key == "command" else []
            out[key] = [*head, *hide_secrets(item[len(head):])[0]]
        else:
            out[key] = redacted(item)
    return out


def _step_for_owned(ctx: ScopeContext, planned: PlannedArtifact, old: Artifact,
                    force: bool) -> _Step:
    key = planned_key(planned)
    state = arts.inspect_record(ctx, old)
    same = _digests(planned) == _old_digests(old)
    if state == "blocked":
        raise _blocked(ctx, planned, old)
    if state == "missing":
        _check_config_shape(planned)
        return _Step(Action(key, "create", "missing; delivered again"), planned, old)
    if state == "matched":
        return _Step(Action(key, "unchanged" if same else "replace"), planned, old)
    if force:
        return _Step(Action(key, "replace", f"{state}; replaced (--force)"), planned, old)
    if same or state != "drifted":
        return _Step(Action(key, "kept", f"{state} since install; kept"), None, old)
    if isinstance(planned, PlannedRegion | PlannedEntry | PlannedElement):
        detail = "edited since install; kept (new version not applied; --force takes it)"
        new = (planned.body.decode("utf-8", "replace") if isinstance(planned, PlannedRegion)
               else json.dumps(redacted(planned.value), indent=2, sort_keys=True))
        return _Step(Action(key, "kept", detail, new), None, old)
    detail = "edited since install; kept, the new version written beside it as .uze-new"
    if isinstance(planned, PlannedFile):  # a .uze-new already there is the user's
        beside, _write = upgrade.beside_path(planned.path, planned.data)
        detail = f"edited since install; kept, the new version beside it as {beside.name}"
    return _Step(Action(key, "merge", detail), planned, old)


def _step_for_dropped(ctx: ScopeContext, old: Artifact, force: bool) -> _Step:
    key = arts.record_key(old)
    state = arts.inspect_record(ctx, old)
    if state == "matched" or (force and state == "drifted"):
        return _Step(Action(key, "remove"), None, old)
    return _Step(Action(key, "kept", f"{state}; no longer in the package, left as it is"), None,
                 None)


def _adopted_lead(planned: PlannedRegion) -> str:
    """The separator uze would have put before an existing region (what uninstall takes out
    with it), read back from the bytes before it; "" when none fits. Several can fit: the one
    leaving the file ending in exactly one newline is taken, as most files do."""
    try:
        text = planned.path.read_bytes()
        span = region.scan_regions(text).get(planned.region_id)
    except (OSError, region.BrokenMarkers):
        return ""
    if span is None:
        return ""
    before = text[:span.start]
    eol = region.detect_eol(text)
    for lead in (eol, eol + eol, b""):  # ambiguous bytes: a file ending in one newline wins
        base = before[:len(before) - len(lead)]
        if before.endswith(lead) and region.insert_region(base, planned.region_id,
                                                          planned.body)[1] == lead:
            return lead.decode()
    return ""


def _adopted(ctx: ScopeContext, planned: PlannedArtifact) -> Artifact | None:
    """The record of a folder, file or region already there exactly as planned (a teammate's
    clone of a project whose delivered files are committed), else None. Only what uze would
    write byte for byte is taken over, so no byte of anyone else's changes owner silently."""
    record: Artifact
    if isinstance(planned, PlannedTree):
        record = _tree_record(planned)
    elif isinstance(planned, PlannedFile):
        record = FileArtifact(target=planned.target, digest=content_digest(planned.data),
                              harnesses=list(planned.harnesses))
    elif isinstance(planned, PlannedRegion):
        record = RegionArtifact(target=planned.target, region=planned.region_id,
                                digest=region_file.body_digest(planned.body),
                                lead=_adopted_lead(planned), harnesses=list(planned.harnesses))
    else:
        return None
    return record if arts.inspect_record(ctx, record) == "matched" else None


def preflight(ctx: ScopeContext, plan: Plan, previous: Receipt | None, force: bool,
              adopt: bool = False) -> list[_Step]:
    """Decide every artifact's action; raise on any conflict before anything is written.
    `adopt`: a target already there exactly as planned, and no other receipt's, is taken over
    (`uze install` of a committed project, ADR 0024) instead of refused.

    Every place the install writes is checked first: no link on the way in a project, nothing
    outside the scope's places (ADR 0020)."""
    for path in (ctx.receipt_file(plan.package.name), ctx.created_file,
                 *(planned.path for planned in plan.artifacts)):
        ctx.roots.check_write(path)
    owned = {arts.record_key(r): r for r in (previous.artifacts if previous else [])}
    owners = {
        arts.record_key(r): receipt.name
        for receipt in ctx.receipts() if receipt.name != plan.package.name
        for r in receipt.artifacts
    }
    steps: list[_Step] = []
    for planned in plan.artifacts:
        old = owned.pop(planned_key(planned), None)
        adopted = _adopted(ctx, planned) if adopt and old is None \
            and planned_key(planned) not in owners else None
        if adopted is not None:
            steps.append(_Step(Action(planned_key(planned), "unchanged", "already there as "
                                      "planned; adopted"), planned, adopted))
        elif old is None:
            _check_free(ctx, planned, owners)
            steps.append(_Step(Action(planned_key(planned), "create"), planned, None))
        else:
            steps.append(_step_for_owned(ctx, planned, old, force))
    steps += [_step_for_dropped(ctx, old, force) for old in owned.values()]
    return steps


def _tree_record(planned: PlannedTree) -> TreeArtifact:
    return TreeArtifact(
        target=planned.target,
        files=tree.digests_of(planned.files),
        executables=sorted(planned.executables),
        harnesses=list(planned.harnesses),
    )


def _write_region(
    tx: Transaction, planned: PlannedRegion, old: Artifact | None, created: Created
) -> RegionArtifact:
    regions = region_file.read_regions(planned.path, planned.target)
    if isinstance(old, RegionArtifact) and planned.region_id in regions:
        region_file.replace(tx, planned.path, planned.region_id, planned.body)
        lead = old.lead
    else:
        lead, made_file = region_file.add(tx, planned.path, planned.region_id, planned.body)
        if made_file:
            created.files.add(planned.target)
    return RegionArtifact(
        target=planned.target, region=planned.region_id,
        digest=region_file.body_digest(planned.body),
        lead=lead, harnesses=list(planned.harnesses),
    )


def _apply_step(tx: Transaction, ctx: ScopeContext, step: _Step,
                created: Created) -> Artifact | None:
    kind = step.action.action
    if kind in ("unchanged", "kept"):
        return step.old
    if kind == "remove":
        assert step.old is not None
        arts.remove_record(tx, ctx, step.old, created)
        return None
    planned = step.planned
    if kind == "merge":
        return _merge(tx, planned, step.old)
    if isinstance(planned, PlannedRegion):
        return _write_region(tx, planned, step.old, created)
    if isinstance(planned, PlannedEntry):
        return _write_entry(tx, ctx, planned, step.old, created)
    if isinstance(planned, PlannedElement):
        return _write_element(tx, ctx, planned, step.old, created)
    if isinstance(planned, PlannedFile):
        file.write(tx, planned.path, planned.data)
        return FileArtifact(target=planned.target, digest=content_digest(planned.data),
                            harnesses=list(planned.harnesses))
    assert isinstance(planned, PlannedTree)
    if step.old is not None and arts.inspect_record(ctx, step.old) != "missing":
        arts.remove_record(tx, ctx, step.old, created)
    tree.write(tx, planned.path, planned.files, planned.executables)
    return _tree_record(planned)


def _write_entry(
    tx: Transaction, ctx: ScopeContext, planned: PlannedEntry, old: Artifact | None,
    created: Created,
) -> EntryArtifact:
    if isinstance(old, EntryArtifact) and arts.inspect_record(ctx, old) in ("matched", "drifted"):
        entry.replace(tx, planned.path, planned.fmt, planned.key_path, planned.value)
        info, seq = old.add_info, old.seq
    else:
        added, made_file = entry.add(tx, planned.path, planned.fmt, planned.key_path,
                                     planned.value, planned.target)
        info, seq = added.to_json(), tx.writes  # tx.writes only grows: adds are ordered
        if made_file:
            created.files.add(planned.target)
    return EntryArtifact(target=planned.target, format=planned.fmt, key_path=list(planned.key_path),
                         digest=entry.value_digest(planned.value), add_info=dict(info), seq=seq,
                         harnesses=list(planned.harnesses))


def _write_element(
    tx: Transaction, ctx: ScopeContext, planned: PlannedElement, old: Artifact | None,
    created: Created,
) -> ElementArtifact:
    if isinstance(old, ElementArtifact) and arts.inspect_record(ctx, old) in ("matched", "drifted"):
        arts.remove_record(tx, ctx, old, created)  # a changed group: take ours out, put the new in
    info, made_file = element.append(tx, planned.path, planned.fmt, planned.key_path,
                                     planned.value, planned.target)
    if made_file:
        created.files.add(planned.target)
    return ElementArtifact(target=planned.target, format=planned.fmt,
                           key_path=list(planned.key_path),
                           group=planned.group, digest=entry.value_digest(planned.value),
                           marker=planned.marker, info=dict(info.to_json()), seq=tx.writes,
                           harnesses=list(planned.harnesses))


def _merge(tx: Transaction, planned: PlannedArtifact | None, old: Artifact | None) -> Artifact:
    if isinstance(planned, PlannedTree) and isinstance(old, TreeArtifact):
        return upgrade.merge_tree(tx, planned, old)[0]
    assert isinstance(planned, PlannedFile) and isinstance(old, FileArtifact)
    upgrade.write_beside(tx, planned)
    return upgrade.kept_file_record(planned, old)


def build_receipt(plan: Plan, artifacts: list[Artifact]) -> Receipt:
    """The receipt for an applied plan."""
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
        artifacts=sorted(artifacts, key=arts.record_key),
        trust=plan.trust,
        executions=[e.describe() for e in plan.executions],
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


def check_trust(ctx: ScopeContext, plan: Plan, entries: list[TreeEntry], trusted: bool) -> None:
    """Refuse what runs until this user accepted it, by the consent kept under `$UZE_HOME`
    (never a file of the project); ask again only when the digest changed."""

    if not plan.executions or trusted:
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
    raise TrustRequired(lines, changed=consent is not None)


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
    tx: Transaction, ctx: ScopeContext, plan: Plan, steps: list[_Step], stored: list[Path],
    extra: Extra | None,
) -> tuple[Receipt, bytes]:
    """Apply the steps in `tx` (the caller commits it, which also makes the `stored` objects
    durable). `extra` writes in the same transaction (uze.toml and uze.lock) or raises to roll
    it back.

    Returns the receipt and its bytes as on disk."""
    ordered = sorted(steps, key=lambda s: s.action.action != "remove")
    created = load_created(ctx)
    tx.sync_at_commit(stored)
    count = len(plan.harnesses)
    progress.stage(f"writing {plan.package.name} for {count} harness{'es' if count > 1 else ''}",
                   total=len(ordered))
    records = []
    for step in ordered:
        record = _apply_step(tx, ctx, step, created)
        if record is not None:
            records.append(record)
        progress.advance()
    receipt = build_receipt(plan, records)
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


def read_source(source: Path, location: Location, *, strict: bool = False) -> Package:
    """read_package; when the package folder is the project itself (`uze install .` in a
    repository that is a package), without what uze writes there, so installs converge. What
    the package's own envelopes for other harnesses carry and uze does not deliver is warned
    about (uze.envelopes)."""
    same = location.scope == "project" and source.resolve() == location.project.resolve()
    return read_package(source, strict=strict,
                        skip=project_outputs(location) if same else frozenset(),
                        extra_warnings=envelope_warnings)


def _prepare(
    paths: Paths, source: Path, scope: Scope, project: Path | None, harness: str | None, cwd: Path
) -> tuple[ScopeContext, Package, Plan, Receipt | None, list[TreeEntry], dict[str, str]]:
    progress.stage(f"reading {source}")
    ctx = open_scope(paths, scope, project, cwd)
    package = read_source(source, ctx.location)
    previous = ctx.receipt(package.name)
    harnesses = choose_harnesses(harness, previous, ctx)
    entries, meta, digest = package_tree(package)
    plan = plan_install(package, digest, ctx.location, harnesses)
    check_requirements(plan)
    return ctx, package, plan, previous, entries, meta


def check_requirements(plan: Plan) -> None:
    """Refuse a plan where the author required a native route that a harness cannot give."""
    unmet = plan.unmet_requirements()
    if unmet:
        raise RequirementUnmet(plan.package.name, [
            f"{p.harness}: {p.kind} {p.resource}: {p.route}: {p.reason}" for p in unmet])


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
) -> InstallResult:
    """Install (or upgrade) the package at `source`. Writes nothing on error or dry run.
    `extra` runs inside the install's transaction, after the receipt is written.

    Raises TrustRequired when the package runs commands not yet accepted (unless `trust`).
    """
    ctx, package, plan, previous, entries, meta = _prepare(paths, source, scope, project, harness,
                                                           cwd)
    steps = preflight(ctx, plan, previous, force, adopt)
    actions = tuple(step.action for step in steps)
    if dry_run:
        return InstallResult(plan, actions, True, None, 0)
    check_trust(ctx, plan, entries, trust)
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
                receipt, data = _apply(tx, ctx, plan, steps, store.added, extra)
                writes = tx.writes
                progress.stage(f"making {writes} writes durable (sync)")
        except BaseException:
            store.discard_added()  # the store as before, like the project (rolled back)
            raise
        as_planned = steps[:len(plan.artifacts)]  # preflight lists the planned artifacts first
        if all(s.action.action in ("create", "replace", "unchanged") for s in as_planned):
            reinstall.record(ctx, receipt.name, data, [s.action.target for s in as_planned])
    return InstallResult(plan, tuple(s.action for s in steps), False, receipt, writes)

