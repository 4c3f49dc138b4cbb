"""Containment: the places uze writes in one scope, and the checks that keep it there (ADR 0020).

No file in a project is trusted: a receipt or `.uze/created.json` in a cloned repository is
input, like a package. Every target read from such a file must name a place uze itself writes
for that scope, and nothing is written or removed through a symbolic link in a project.

- A *file root* is a file uze edits or creates whole (`AGENTS.md`, `.mcp.json`, a harness's
  settings file): region, entry and element targets must be one exactly.
- A *folder root* is a folder whose direct children uze writes (`.claude/skills`, an agents
  folder, `.uze/packages`): tree and file targets must be a direct child of one.

Both scopes' tables are computed from the harness modules (`uze.harnesses.REGISTRY`);
tests/unit/test_containment.py plans every fixture package into every harness in both scopes,
with and without the harnesses' override variables, and fails when a planned target is not
allowed here.
"""

from __future__ import annotations

import functools
import stat
from pathlib import Path, PurePosixPath
from typing import Final

from uze.errors import Escape, LinkRefused, WriteFailed
from uze.harnesses import REGISTRY
from uze.location import Location
from uze.paths import Paths
from uze.vocabulary import Scope


def _harness_places(loc: Location) -> tuple[set[Path], set[Path]]:
    """The files and the folders every harness module says it keeps its resources in, in the
    scope of `loc` (a hook config is a folder where the hook layout is a plugin folder)."""
    files: set[Path] = set()
    folders: set[Path] = set()
    for h in REGISTRY.values():
        files.add(h.instructions.file(loc))
        folders.update(h.skills.roots(loc))
        if h.mcp is not None:
            files.add(h.mcp.file(loc))
        if h.agents is not None:
            folders.add(h.agents.folder(loc))
        if h.commands is not None:
            folders.add(h.commands.folder(loc))
        hook_file = h.hooks.file(loc) if h.hooks is not None else None
        if h.hooks is not None and hook_file is not None:
            (folders if h.hooks.layout == "plugin" else files).add(hook_file)
    return files, folders


@functools.cache
def _project_tables() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The project-relative file roots, folder roots, and every folder on the way to them or
    to uze's state: each harness's, as its module computes them, and uze's own. Computed on
    first use: only a check of a project target needs every harness module."""
    root = Path("/project")
    loc = Location("project", root, Paths(Path("/home"), Path("/uze-home"), {}))
    files, folders = _harness_places(loc)
    files |= {p for h in REGISTRY.values() for p in h.instructions.also_reads(loc)}
    folders |= {root / ".uze" / "packages", root / ".uze" / "hooks", root / ".uze" / "tools"}
    named = {"uze.toml", "uze.lock"}  # the scope's manifest and lock (ADR 0024), created whole
    file_roots = frozenset({p.relative_to(root).as_posix() for p in files} | named)
    folder_roots = frozenset(p.relative_to(root).as_posix() for p in folders)
    dirs = frozenset(_dirs_of(file_roots) | _dirs_of(folder_roots) | folder_roots | PROJECT_STATE)
    return file_roots, folder_roots, dirs


def __getattr__(name: str) -> frozenset[str]:
    """`PROJECT_FILES` and `PROJECT_FOLDERS`: the project tables, computed on first use."""
    if name in ("PROJECT_FILES", "PROJECT_FOLDERS"):
        return _project_tables()[name == "PROJECT_FOLDERS"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
# uze's own state in a project: written and read, never an artifact target.
PROJECT_STATE: Final = frozenset({".uze/receipts"})


def relpath_problem(rel: str) -> str | None:
    """Why `rel` is not a clean relative POSIX path (no `..`, `.`, `~`, empty part, absolute
    path, backslash or NUL), or None."""
    if not rel:
        return "an empty path"
    if rel.startswith(("/", "~")):
        return f"{rel!r} is not a relative path"
    if "\\" in rel or "\0" in rel:
        return f"{rel!r} holds a backslash or NUL"
    if any(part in ("", ".", "..") for part in rel.split("/")):
        return f"{rel!r} has an empty, `.` or `..` part"
    return None


def _user_form_problem(target: str) -> str | None:
    """Why a user-scope target is not `~/<clean relative path>` or `/<clean relative path>`."""
    rest = target[2:] if target.startswith("~/") else target[1:] if target[:1] == "/" else ""
    return relpath_problem(rest) if rest else f"{target!r} is neither ~/-relative nor absolute"


_Tables = tuple[frozenset[Path], frozenset[Path], frozenset[Path]]


def _user_tables(paths: Paths) -> _Tables:
    """The file roots, folder roots and the folders on the way to them of user scope: each
    harness's files and folders, as its module computes them."""
    loc = Location("user", paths.home, paths)
    files, folders = _harness_places(loc)
    folders |= {paths.uze_home / "packages", paths.uze_home / "hooks", paths.uze_home / "tools"}
    return frozenset(files), frozenset(folders), frozenset(
        _ancestors([*files, *(folder / "x" for folder in folders)], paths))


class Roots:
    """The places one scope's artifacts may be, and the link rule of a project.

    Project scope: targets are project-relative and in the project tables (PROJECT_FILES/FOLDERS);
    no folder between the project root and a path uze reads or writes may be a symbolic link.
    User scope: targets are `~/`-relative or absolute and fall in the user tables; links in
    HOME are the user's own (dotfile managers link `~/.claude`), so they are followed.
    """

    def __init__(self, scope: Scope, project: Path, paths: Paths) -> None:
        self.scope: Scope = scope
        self.project = project
        self.paths = paths
        self._tables: _Tables | None = None
        self._plain: set[Path] = set()  # folders seen not to be links (this command)
        self._plain_parents: set[str] = set()  # targets' parents seen so (this command)
        self._problems: dict[tuple[str, bool], str | None] = {}  # target_problem's answers

    def _user(self) -> _Tables:
        if self._tables is None:
            self._tables = _user_tables(self.paths)
        return self._tables

    def resolve(self, target: str) -> Path:
        """The absolute path of a target that passed `target_problem`."""
        if self.scope == "project":
            return self.project / target
        return self.paths.home / target[2:] if target.startswith("~/") else Path(target)

    def target_problem(self, target: str, *, whole_file: bool) -> str | None:
        """Why `target` is not a place uze writes in this scope, or None.

        `whole_file`: the target must be a file root (regions, config entries and elements);
        otherwise a direct child of a folder root (trees, whole files). A pure function of
        the target and the scope's tables: each answer is kept (200 packages name the same
        settings files)."""
        if not isinstance(target, str):
            return "not a string"
        key = (target, whole_file)
        if key in self._problems:
            return self._problems[key]
        found = self._problems[key] = self._target_problem(target, whole_file)
        return found

    def _target_problem(self, target: str, whole_file: bool) -> str | None:
        if self.scope == "project":
            problem = relpath_problem(target)
            if problem is not None:
                return problem
            parent, _, _ = target.rpartition("/")
            roots = _project_tables()
            ok = target in roots[0] if whole_file else parent in roots[1]
        else:
            problem = _user_form_problem(target)
            if problem is not None:
                return problem
            files, folders, _dirs = self._user()
            path = self.resolve(target)
            ok = path in files if whole_file else path.parent in folders
        if not ok:
            return f"{target!r} is not a place uze writes in {self.scope} scope"
        return None

    def file_problem(self, target: str) -> str | None:
        """Why `target` is not a place uze may own a whole file in this scope, or None: a file
        uze edits (an instructions file adopted whole), or a file at any depth below a folder
        uze writes in (a command or agent of a subfolder adopted where it is, ADR 0096)."""
        why = self.target_problem(target, whole_file=False)
        if why is None or self.target_problem(target, whole_file=True) is None:
            return None
        return None if self._below_folder(target) else why

    def _below_folder(self, target: str) -> bool:
        """Whether `target` (a clean target of this scope) lies below a folder uze writes in."""
        if self.scope == "project":
            folders = _project_tables()[1]
            return relpath_problem(target) is None and any(
                parent.as_posix() in folders for parent in PurePosixPath(target).parents)
        roots = self._user()[1]
        return _user_form_problem(target) is None and any(
            parent in roots for parent in self.resolve(target).parents)

    def created_problem(self, target: str, *, folder: bool) -> str | None:
        """Why `target` cannot be in the record of what uze created (`.uze/created.json`): a
        folder on the way to uze's places, or one below a folder uze writes in (on the way to
        a file adopted there, ADR 0096)."""
        if not folder:
            return self.target_problem(target, whole_file=True)
        if self._below_folder(target):
            return None
        if self.scope == "project":
            problem = relpath_problem(target)
            if problem is None and target not in _project_tables()[2]:
                problem = f"{target!r} is not a folder uze creates in project scope"
            return problem
        dirs = self._user()[2]
        problem = _user_form_problem(target)
        if problem is None and self.resolve(target) not in dirs:
            problem = f"{target!r} is not a folder uze creates in user scope"
        return problem

    def check_links(self, path: Path, *, itself: bool = False, writing: bool = False) -> None:
        """Raise LinkRefused if a folder from the project root down to `path`'s parent (and
        `path` itself if `itself`) is a symbolic link; when `writing`, WriteFailed if one is
        not a folder. User scope: nothing to check.

        One lstat per folder per command: folders already seen are remembered."""
        if self.scope != "project" or not path.is_relative_to(self.project):
            return
        folder = path if itself else path.parent
        chain = []
        while folder != self.project and folder not in self._plain and folder != folder.parent:
            chain.append(folder)
            folder = folder.parent
        for item in reversed(chain):
            try:
                mode = item.lstat().st_mode
            except OSError:  # missing: nothing below it exists yet, so no link either
                return
            if stat.S_ISLNK(mode):
                raise LinkRefused(item, path)
            if not stat.S_ISDIR(mode) and item != path:
                if writing:
                    raise WriteFailed(item, f"it is a file where uze needs a folder (for {path})")
                return
            self._plain.add(item)

    def check_target_links(self, target: str) -> None:
        """`check_links(resolve(target))` for a target that passed `target_problem`, once per
        parent folder per command: what it checks (the folders from the project root down to
        the target's parent) depends only on that parent, which the targets of many artifacts
        share. A parent is remembered only once every folder on its way was seen to be a
        folder and no link (a missing one is checked again next time)."""
        if self.scope != "project":
            return
        parent = target.rpartition("/")[0]
        if parent in self._plain_parents:
            return
        path = self.resolve(target)
        self.check_links(path)
        if path.parent == self.project or path.parent in self._plain:
            self._plain_parents.add(parent)

    def check_write(self, path: Path) -> None:
        """Refuse a write or removal at `path` outside this scope's places (Escape) or through
        a link in a project (LinkRefused). $UZE_HOME (uze's own state) is always allowed."""
        if path.is_relative_to(self.paths.uze_home):
            return
        if self.scope == "project":
            if not path.is_relative_to(self.project) or path == self.project:
                raise Escape(path, self.scope)
            self.check_links(path, writing=True)
            return
        files, folders, dirs = self._user()
        if path not in files and path not in dirs and not any(
                path.is_relative_to(folder) for folder in folders):
            raise Escape(path, self.scope)


def _dirs_of(entries: frozenset[str]) -> set[str]:
    out: set[str] = set()
    for entry in entries:
        parts = entry.split("/")
        out.update("/".join(parts[:i]) for i in range(1, len(parts)))
    return out


def _ancestors(roots: list[Path], paths: Paths) -> set[Path]:
    """Folders uze may create on the way to user-scope paths (the folder roots included): below
    HOME, or anywhere above a harness home a variable moved; never HOME, $UZE_HOME or `/`."""
    out: set[Path] = set()
    for root in roots:
        for folder in root.parents:
            if folder == paths.home or folder == folder.parent or folder.is_relative_to(
                    paths.uze_home):
                break
            out.add(folder)
    return out
