"""Read a package folder into memory, byte for byte, refusing anything unsafe. Never writes."""

from __future__ import annotations

import json
import os
import stat
import unicodedata
from pathlib import Path
from typing import Final

import msgspec

from uze import portable
from uze.nesting import MAX_FOLDER_DEPTH, OverLimit, parse_bounded
from uze.package.issues import issue, json_issue

MAX_FILE_BYTES: Final = 16 * 1024 * 1024
MAX_PACKAGE_BYTES: Final = 256 * 1024 * 1024
IGNORED_ROOT_FOLDERS: Final = frozenset({".git"})
_SPECIAL_KINDS: Final = (
    (stat.S_ISFIFO, "a named pipe (fifo)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


GIT_PROBLEM: Final = (
    "version-control metadata inside a package is refused: git runs what a .git config names "
    "(core.fsmonitor, hooks) in the folder it is delivered to; remove it from the package")


def is_git_name(name: str) -> bool:
    """Whether git (on any file system) takes `name` for `.git`: any case, trailing dots or
    spaces (Windows drops them), or its 8.3 short name `GIT~1` (ADR 0055)."""
    folded = name.lower().rstrip(". ")
    return folded in (".git", "git~1")


class PackageFile(msgspec.Struct, frozen=True):
    """One file's exact bytes; `relpath` is POSIX, NFC and relative to the package root."""

    relpath: str
    data: bytes
    executable: bool


class FoundFile(msgspec.Struct, frozen=True):
    """A regular file the walk found and may read: its package path, where it really is (a
    link inside the package resolved) and whether its owner may execute it."""

    relpath: str
    real: str
    executable: bool
    size: int


class Tree(msgspec.Struct):
    """What the walk found: readable files, every file path seen, folders, and problems."""

    files: dict[str, PackageFile] = msgspec.field(default_factory=dict)
    seen: set[str] = msgspec.field(default_factory=set)
    folders: set[str] = msgspec.field(default_factory=set)
    issues: list[str] = msgspec.field(default_factory=list)
    total_bytes: int = 0

    def text(self, relpath: str, issues: list[str]) -> str | None:
        """Return the file as UTF-8 text; None (with an issue) if it is not, or was not read."""
        found = self.files.get(relpath)
        if found is None:
            return None
        try:
            return found.data.decode("utf-8")
        except UnicodeDecodeError as error:
            issues.append(issue(relpath, f"not UTF-8 text (bad byte at offset {error.start})"))
            return None

    def json_object(self, relpath: str, issues: list[str]) -> dict[str, object] | None:
        """Return the file parsed as a JSON object; None (with an issue) if it is anything else."""
        text = self.text(relpath, issues)
        if text is None:
            return None
        try:
            value = parse_bounded(json.loads, text)
        except json.JSONDecodeError as error:
            issues.append(json_issue(relpath, error))
            return None
        except OverLimit as error:
            issues.append(issue(relpath, str(error)))
            return None
        if not isinstance(value, dict):
            issues.append(issue(relpath, "must be a JSON object"))
            return None
        return value


def _name_problem(name: str) -> str | None:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "file name is not valid UTF-8"
    if not unicodedata.is_normalized("NFC", name):
        return "file name is not NFC-normalised Unicode; rename it"
    return None


def _display(name: str) -> str:
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def _mib(size: int) -> str:
    return f"{size // (1024 * 1024)} MiB"


def _special_kind(mode: int) -> str:
    for test, kind in _SPECIAL_KINDS:
        if test(mode):
            return kind
    return "a special file"  # pragma: no cover - every POSIX file type is listed above


class _Walk(msgspec.Struct):
    """The walk's state. Paths are `str` (a `Path` per file was most of the walk's time);
    `root` and every folder in a `chain` are resolved, so a path built below them by name is
    real too, and only a link needs resolving."""

    root: str
    tree: Tree
    skip: frozenset[str] = frozenset()
    pending: list[FoundFile] = msgspec.field(default_factory=list)

    def folder(self, real: str, relfolder: str, chain: frozenset[str]) -> None:
        try:
            entries = sorted(os.scandir(real), key=lambda entry: entry.name)
        except OSError as error:
            self.tree.issues.append(issue(relfolder or ".", f"cannot read: {error.strerror}"))
            return
        for entry in entries:
            relpath = f"{relfolder}/{entry.name}" if relfolder else entry.name
            if not relfolder and (entry.name in self.skip or entry.name in IGNORED_ROOT_FOLDERS):
                continue  # the package's own repository (a `.git` file: a worktree's pointer)
            if is_git_name(entry.name):
                self.refuse(relpath, GIT_PROBLEM)
                continue
            problem = _name_problem(entry.name)
            if problem:
                self.tree.seen.add(relpath)
                self.tree.issues.append(issue(_display(relpath), problem))
                continue
            self.entry(entry, relpath, chain)

    def entry(self, entry: os.DirEntry[str], relpath: str, chain: frozenset[str]) -> None:
        found = self.link_target(entry, relpath) if entry.is_symlink() else self.own(entry, relpath)
        if found is None:
            return
        real, info = found
        if stat.S_ISDIR(info.st_mode):
            self.subfolder(real, relpath, chain)
        else:
            self.file(real, relpath, info)

    def own(self, entry: os.DirEntry[str], relpath: str) -> tuple[str, os.stat_result] | None:
        """Stat an entry that is not a link."""
        try:
            return entry.path, entry.stat(follow_symlinks=False)
        except OSError as error:
            return self.refuse(relpath, f"cannot read: {error.strerror}")

    def link_target(self, entry: os.DirEntry[str], relpath: str
                    ) -> tuple[str, os.stat_result] | None:
        """Resolve a link (only while it stays inside the package) and stat what it names."""
        try:
            real = str(Path(entry.path).resolve())
        except RuntimeError:  # Python 3.11 raises it for a symlink loop
            return self.refuse(relpath, "cannot read: symbolic link loops")
        if real != self.root and not real.startswith(f"{self.root}/"):
            return self.refuse(relpath, "symbolic link points outside the package")
        try:
            return real, os.stat(real)  # noqa: PTH116 (a str path)
        except FileNotFoundError:
            return self.refuse(relpath, "cannot read: symbolic link target does not exist")
        except OSError as error:
            return self.refuse(relpath, f"cannot read: {error.strerror}")

    def refuse(self, relpath: str, problem: str) -> tuple[str, os.stat_result] | None:
        """Record `relpath` as a file that cannot be carried; always returns None."""
        self.tree.seen.add(relpath)
        self.tree.issues.append(issue(relpath, problem))
        return None

    def subfolder(self, real: str, relpath: str, chain: frozenset[str]) -> None:
        if real in chain:
            self.tree.issues.append(
                issue(relpath, "symbolic link loops back to a folder that contains it")
            )
            return
        if len(chain) > MAX_FOLDER_DEPTH:  # the chain holds the root and each folder above
            self.tree.issues.append(
                issue(relpath, f"folders nested more than {MAX_FOLDER_DEPTH} levels deep")
            )
            return
        self.tree.folders.add(relpath)
        self.folder(real, relpath, chain | {real})

    def file(self, real: str, relpath: str, info: os.stat_result) -> None:
        self.tree.seen.add(relpath)
        if not stat.S_ISREG(info.st_mode):
            kind = _special_kind(info.st_mode)
            self.tree.issues.append(
                issue(relpath, f"is {kind}; a package holds only regular files and folders")
            )
        elif info.st_size > MAX_FILE_BYTES:
            self.tree.issues.append(
                issue(relpath, f"file is {info.st_size} bytes; the limit is {_mib(MAX_FILE_BYTES)}")
            )
        else:
            self.tree.total_bytes += info.st_size
            executable = bool(info.st_mode & stat.S_IXUSR)
            self.pending.append(FoundFile(relpath, real, executable, info.st_size))


_READ: Final = os.O_RDONLY | portable.CLOEXEC | portable.BINARY


def _read_upto(fd: int, limit: int) -> bytes:
    """Up to `limit` bytes from `fd`, fewer only at the end of the file."""
    data = os.read(fd, limit)
    if len(data) in (0, limit):  # nearly always: a regular file gives all it has at once
        return data
    parts = [data]
    got = len(data)
    while got < limit and (chunk := os.read(fd, limit - got)):
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def read_file(item: FoundFile, issues: list[str]) -> bytes | None:
    """The bytes of a file the walk found; None (with an issue) if it cannot be read or grew
    over MAX_FILE_BYTES since the walk measured it."""
    try:
        # The bare descriptor: a file object costs an fstat, a tty check and a seek per file.
        fd = os.open(item.real, _READ)
        try:
            # The size the walk saw, plus one byte to notice growth (a read of the limit
            # allocates the limit, 16 MiB, per file); a grown file is read up to the limit.
            data = _read_upto(fd, item.size + 1)
            if len(data) > item.size:
                data += _read_upto(fd, MAX_FILE_BYTES + 1 - len(data))
        finally:
            os.close(fd)
    except OSError as error:
        issues.append(issue(item.relpath, f"cannot read: {error.strerror}"))
        return None
    if len(data) > MAX_FILE_BYTES:  # it grew after the walk measured it
        issues.append(issue(item.relpath, f"file is larger than {_mib(MAX_FILE_BYTES)}"))
        return None
    return data


def walk_tree(root: Path, skip: frozenset[str] = frozenset()) -> tuple[Tree, list[FoundFile]]:
    """Walk the package folder `root` without reading a file (`.git` at the root aside, and
    the root entries named in `skip`; a `.git` anywhere else is a problem): the tree (paths
    seen, folders, problems, total size; no file contents) and the files to read, sorted by
    package path.

    Symbolic links are followed only while they stay inside the package. Problems (unsafe
    links, special files, bad names, sizes, folders nested more than MAX_FOLDER_DEPTH levels,
    which are not entered) are collected in `Tree.issues`; nothing raises.
    When the package is over MAX_PACKAGE_BYTES that is a problem and no file is to be read.
    """
    real_root = str(root.resolve())
    walk = _Walk(real_root, Tree(), skip)
    walk.folder(real_root, "", frozenset({real_root}))
    tree = walk.tree
    if tree.total_bytes > MAX_PACKAGE_BYTES:
        size, limit = tree.total_bytes, _mib(MAX_PACKAGE_BYTES)
        tree.issues.append(issue(".", f"package is {size} bytes; the limit is {limit}"))
        return tree, []
    return tree, sorted(walk.pending, key=lambda found: found.relpath)


def folder_too_deep(root: Path) -> bool:
    """Whether a folder below `root` (links not followed) is nested more than MAX_FOLDER_DEPTH
    levels deep: what walk_tree would refuse, asked before a folder is copied. Iterative."""
    pending: list[tuple[str, int]] = [(str(root), 0)]
    while pending:
        folder, depth = pending.pop()
        try:
            with os.scandir(folder) as entries:
                subfolders = [item.path for item in entries if item.is_dir(follow_symlinks=False)]
        except OSError:
            continue
        if subfolders and depth >= MAX_FOLDER_DEPTH:
            return True
        pending.extend((sub, depth + 1) for sub in subfolders)
    return False


def read_tree(root: Path, skip: frozenset[str] = frozenset()) -> Tree:
    """`walk_tree`, then every file it found read into `Tree.files` (the reader's input)."""
    tree, found = walk_tree(root, skip)
    for item in found:
        data = read_file(item, tree.issues)
        if data is not None:
            tree.files[item.relpath] = PackageFile(item.relpath, data, item.executable)
    return tree
