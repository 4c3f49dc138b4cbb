"""Where one scope keeps its receipts, journal, lock and the folders uze created there."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Final, TypeAlias, TypeVar

import blake3
import msgspec

from uze import fs
from uze.containment import Roots
from uze.errors import StateUnreadable, UsageError
from uze.location import Location
from uze.names import name_problem
from uze.paths import Paths, resolve_project
from uze.projections import parse_cache
from uze.projections.statcache import DigestCache, cache_file, stat_key
from uze.state.consent import consent_file
from uze.transaction import Transaction, read_state_file, recover
from uze.vocabulary import Scope

if TYPE_CHECKING:  # the receipt models (msgspec) load only once there is a receipt (ADR 0015)
    from collections.abc import Callable

    from uze.state.receipts import Receipt

CREATED_SCHEMA: Final = 1
_RECEIPTS_HINT: Final = "move it aside: uze keeps one receipt file per package in that folder"
_CREATED_HINT: Final = (
    "it lists the folders and shared files uze created; restore it from version control, or "
    "delete it (uze then leaves those folders and files in place on uninstall)"
)
_REGISTRY_HINT: Final = (
    "it lists the projects uze installed into (what `uze store gc` keeps); restore it, or "
    "delete it and run `uze install` again in each project before `uze store gc`"
)


class ScopeContext(msgspec.Struct, frozen=True):
    """Every location one scope needs, derived from Paths once."""

    paths: Paths
    location: Location
    receipts_dir: Path
    created_file: Path
    journal_root: Path
    lock_path: Path
    hashes: DigestCache  # digests of delivered files by stat (ADR 0011); only status saves it
    roots: Roots  # where this scope's artifacts may be; what no link may redirect (ADR 0020)
    # Receipts this command has read, by path: (stat key, receipt, links checked) (ADR 0079)
    loaded: dict[Path, tuple[tuple[int, ...], Receipt, bool]] = msgspec.field(
        default_factory=dict)

    @property
    def scope(self) -> Scope:
        """`project` or `user`."""
        return self.location.scope

    @property
    def key(self) -> str:
        """`user`, or `project-<16 hex of the root>`: names this scope's journal, lock and
        caches."""
        return self.journal_root.name

    def receipt_file(self, name: str) -> Path:
        """Where package `name`'s receipt lives in this scope."""
        from uze.state.receipts import receipt_path

        return receipt_path(self.receipts_dir, name)

    def stamp_file(self, name: str) -> Path:
        """Where the re-install stamp of package `name` lives (a cache, ADR 0016)."""
        return self.paths.uze_home / "cache" / f"installs-{self.key}" / f"{name}.json"

    def forget_stamp(self, name: str) -> None:
        """Drop the re-install stamp of `name` (uninstall), and its folder once empty."""
        path = self.stamp_file(name)
        fs.remove_file(path)
        fs.remove_dir_if_empty(path.parent)

    @property
    def consent_project(self) -> str:
        """The project a consent in this scope is for: its root, or "" in user scope."""
        return str(self.location.project) if self.scope == "project" else ""

    def consent_file(self, name: str) -> Path:
        """Where this user's consent for package `name` in this scope lives (ADR 0021)."""

        return consent_file(self.paths.uze_home, self.key, name)

    def forget_consent(self, name: str) -> None:
        """Drop the consent for `name` (uninstall), and its folder once empty."""
        path = self.consent_file(name)
        fs.remove_file(path)
        fs.remove_dir_if_empty(path.parent)

    def receipt(self, name: str) -> Receipt | None:
        """The receipt of `name` in this scope, if any, checked (ADR 0020).

        Raises ReceiptUnreadable (ReceiptRefused) for one that is damaged or names anything
        but a place uze writes, LinkRefused if `.uze` or its receipts folder is a link."""

        if name_problem(name) is not None:  # a name from the command line names no file
            raise UsageError(f"invalid package name {name!r}",
                             hint="package names are lowercase letters, digits and hyphens; "
                                  "run `uze list` to see what is installed")
        path = self.receipt_file(name)
        self.roots.check_links(path, itself=True)
        if not path.exists() and not path.is_symlink():
            return None
        return self.checked_receipt(path, links=True)

    def checked_receipt(self, path: Path, *, links: bool) -> Receipt:
        """The receipt at `path`, read, decoded and checked once per command: kept with its
        file's stat, and read again only when that changes (a write of this command, ADR
        0079). `links`: also the link checks of its targets (`check_receipt`), which only a
        command acting on those targets needs."""
        from uze.state.receipts import check_receipt, load_receipt

        try:
            key: tuple[int, ...] = tuple(stat_key(path.stat()))
        except OSError:
            key = ()  # load_receipt names the problem
        found = self.loaded.get(path)
        if key and found is not None and found[0] == key:
            if links and not found[2]:
                check_receipt(found[1], path, self.roots, links=True)
                self.loaded[path] = (key, found[1], True)
            return found[1]
        receipt = check_receipt(load_receipt(path), path, self.roots, links=links)
        if key:
            self.loaded[path] = (key, receipt, links)
        return receipt

    def receipts(self, *, links: bool = True) -> list[Receipt]:
        """Every receipt in this scope, sorted by package name, each checked as `receipt`
        (`links=False`: without the link checks of their targets, for a command that writes
        none of them: an install asking which package owns what)."""
        return [self.checked_receipt(path, links=links) for path in self.receipt_files()]

    def receipt_names(self) -> list[str]:
        """The package names that have a receipt file in this scope, sorted, none read."""
        return [name.removesuffix(".json") for name in self.receipt_file_names()]

    def receipt_files(self) -> list[Path]:
        """The receipt files of this scope, sorted; StateUnreadable if the folder is not one."""
        return [self.receipts_dir / name for name in self.receipt_file_names()]

    def receipt_file_names(self) -> list[str]:
        """The names of `receipt_files` in `receipts_dir` (no Path made for each)."""
        self.roots.check_links(self.receipts_dir, itself=True)
        if not self.receipts_dir.is_dir():  # as list_receipts, without importing it
            if self.receipts_dir.exists():
                raise StateUnreadable(self.receipts_dir, "not a folder", _RECEIPTS_HINT)
            return []
        # listdir, not glob: glob reads a folder it may not list as empty (PermissionError);
        # names sorted, not Paths (the same order, without comparing Paths part by part)
        names = sorted(os.listdir(self.receipts_dir))  # noqa: PTH208
        return [name for name in names if name.endswith(".json")]


def open_scope(paths: Paths, scope: Scope, project: Path | None, cwd: Path) -> ScopeContext:
    """The ScopeContext for `scope`; the project is resolved even for user scope (detection)."""
    root = resolve_project(project, cwd)
    parse_cache.use(paths.uze_home / "cache")  # the parses of big config texts (ADR 0112)
    loc = Location(scope, root, paths)
    roots = Roots(scope, root, paths)
    if scope == "user":
        return ScopeContext(
            paths, loc, paths.user_receipts, paths.uze_home / "user-created.json",
            paths.uze_home / "journal" / "user", paths.uze_home / "locks" / "user.lock",
            DigestCache(cache_file(paths.uze_home, "user")), roots,
        )
    key = "project-" + blake3.blake3(str(root).encode()).hexdigest()[:16]
    return ScopeContext(
        paths, loc, root / ".uze" / "receipts", root / ".uze" / "created.json",
        paths.uze_home / "journal" / key, paths.uze_home / "locks" / f"{key}.lock",
        DigestCache(cache_file(paths.uze_home, key)), roots,
    )


@contextlib.contextmanager
def locked(ctx: ScopeContext, *, store: bool) -> Iterator[None]:
    """Take the store lock (if asked) then this scope's lock, in that fixed order.

    Once held, a transaction a crashed command left behind is rolled back first.
    """
    with contextlib.ExitStack() as stack:
        if store:
            lock = ctx.paths.uze_home / "locks" / "store.lock"
            stack.enter_context(fs.file_lock(lock, ctx.paths.lock_timeout))
        stack.enter_context(fs.file_lock(ctx.lock_path, ctx.paths.lock_timeout))
        recover(ctx.journal_root, ctx.roots.check_write)
        sweep_stamps(ctx)
        yield


def sweep_stamps(ctx: ScopeContext) -> None:
    """Remove the temp files a command killed while it wrote a re-install stamp (outside any
    journal) left in this scope's stamp folder. Safe without the lock: a stamp is a cache, and
    a writer whose temp file goes keeps no stamp (reinstall.record ignores the failure). Also
    the scratch folder of a new git mirror whose command was killed (ADR 0040)."""
    fs.remove_temp_files(ctx.stamp_file("x").parent)
    mirrors = ctx.paths.uze_home / "git"
    if mirrors.is_dir() and any(mirrors.glob(".new-*")):
        from uze.sources.mirrors import sweep_scratch  # GIT: most commands see no scratch

        sweep_scratch(mirrors)


class Created(msgspec.Struct):
    """Folders and shared files uze created in a scope, as targets (ADR 0001).

    Kept per scope, not per receipt: the package that created `.claude/skills` or AGENTS.md
    may be uninstalled before the others that use it.
    """

    dirs: set[str] = msgspec.field(default_factory=set)
    files: set[str] = msgspec.field(default_factory=set)


# What install runs inside its transaction once the receipt is written (uze.toml, uze.lock).
Extra: TypeAlias = "Callable[[Transaction, ScopeContext, Created, Receipt], None]"


class _CreatedFile(msgspec.Struct, forbid_unknown_fields=True):
    schema_version: int = CREATED_SCHEMA
    dirs: list[str] = []
    files: list[str] = []


_T = TypeVar("_T")


def _read_state(path: Path, kind: type[_T], hint: str) -> _T | None:
    """`path` decoded as `kind`, None if it does not exist; StateUnreadable naming it (with
    `hint`) if it cannot be read or decoded."""
    raw = read_state_file(path, hint)
    if raw is None:
        return None
    try:
        return msgspec.json.decode(raw, type=kind)
    except msgspec.DecodeError as exc:
        raise StateUnreadable(path, str(exc), hint) from None


def load_created(ctx: ScopeContext) -> Created:
    """What uze created in this scope, checked: every folder one uze makes on the way to its
    places, every file one of those places (ADR 0020). Raises StateUnreadable, naming the file
    and the entry, for a damaged record or one that names anything else."""
    path = ctx.created_file
    ctx.roots.check_links(path)
    data = _read_state(path, _CreatedFile, _CREATED_HINT)
    if data is None:
        return Created()
    if data.schema_version > CREATED_SCHEMA:
        raise StateUnreadable(path, f"written by a newer uze (schema {data.schema_version})",
                              "upgrade uze")
    problems = [f"dirs: {why}" for d in data.dirs
                if (why := ctx.roots.created_problem(d, folder=True))]
    problems += [f"files: {why}" for f in data.files
                 if (why := ctx.roots.created_problem(f, folder=False))]
    if problems:
        raise StateUnreadable(path, problems[0], _CREATED_HINT)
    return Created(set(data.dirs), set(data.files))


# `.uze/` is this machine's (ADR 0040): the folder says so to git itself (ADR 0061).
IGNORE_ALL: Final = b"*\n"


def keep_out_of_git(tx: Transaction, ctx: ScopeContext) -> None:
    """Write `.uze/.gitignore` (`*`) when `tx` created the project's `.uze/` folder, so git
    never offers it for a commit; the user's own `.gitignore` files are never touched."""
    folder = ctx.location.project / ".uze"
    if ctx.scope == "project" and folder in tx.created_dirs:
        tx.write(folder / ".gitignore", IGNORE_ALL, 0o644)


def drop_ignore(tx: Transaction, ctx: ScopeContext, created: Created) -> None:
    """Remove the `.uze/.gitignore` uze wrote (in a `.uze/` it created, still `*`), so the
    folder can go with the last package."""
    path = ctx.location.project / ".uze" / ".gitignore"
    if ctx.scope == "project" and ".uze" in created.dirs and not path.is_symlink() \
            and path.is_file() and path.read_bytes() == IGNORE_ALL:
        tx.remove(path)


def save_created(tx: Transaction, ctx: ScopeContext, created: Created) -> None:
    """Record what uze created (only if it changed); forget the record when it is empty. A
    `.uze/` folder `tx` created gets its `.gitignore` (`keep_out_of_git`)."""
    keep_out_of_git(tx, ctx)
    if created == load_created(ctx):
        return
    if not created.dirs and not created.files:
        tx.remove(ctx.created_file)
        return
    body = {"schema_version": CREATED_SCHEMA, "dirs": sorted(created.dirs),
            "files": sorted(created.files)}
    tx.write(ctx.created_file, (json.dumps(body, indent=2, sort_keys=True) + "\n").encode())


class _Registry(msgspec.Struct, forbid_unknown_fields=True):
    projects: list[str]
    schema_version: int = 1


def registered_projects(paths: Paths) -> list[Path]:
    """The projects in $UZE_HOME/projects.json (absolute paths). Raises StateUnreadable for a
    damaged file, naming it."""
    registry = paths.projects_registry
    data = _read_state(registry, _Registry, _REGISTRY_HINT)
    if data is None:
        return []
    bad = [p for p in data.projects if not p.startswith("/") or "\0" in p]
    if bad:
        raise StateUnreadable(registry, f"{bad[0]!r} is not an absolute path", _REGISTRY_HINT)
    return [Path(p) for p in data.projects]


def register_project(tx: Transaction, paths: Paths, project: Path, present: bool) -> None:
    """Keep $UZE_HOME/projects.json (the projects holding receipts: GC roots) up to date."""
    registry = paths.projects_registry
    known = {str(p) for p in registered_projects(paths)}
    updated = (known | {str(project)}) if present else (known - {str(project)})
    if updated != known:
        body = {"projects": sorted(updated), "schema_version": 1}
        tx.write(registry, (json.dumps(body, indent=2, sort_keys=True) + "\n").encode())
