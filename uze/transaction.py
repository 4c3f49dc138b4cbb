"""Transactions: every change uze makes is journaled first, so it can be undone.

Before each change a line goes to `journal/<id>/ops.jsonl` (with a backup of any bytes it will
replace). A failure rolls every change back in reverse; a crash leaves the journal behind, and
the next command that takes the same lock rolls it back (`recover`). Commit deletes the journal.

Files written inside a folder the transaction created replace nothing, so they skip the
per-file fsync: commit makes them all durable with one `durability.barrier()` before the
journal goes, and until then a power cut leaves the journal, whose rollback removes the folder
(ADR 0014). A whole file `write` replaces is written without its own fsync too, after its
journal line (with the old bytes) is durable: the same barrier makes it durable, and until then
the rollback gives the old bytes back (ADR 0109).

A shared file (an MCP or hook config, AGENTS.md) that several edits of one command change is
held in memory (`edit`): its bytes from before the transaction go to the journal at the first
edit, every later edit starts from the pending bytes (`pending`), and commit writes each such
file once, covered by the same barrier (ADR 0104). What those files hold after a commit is
handed to the `after_commit` hooks (the parse cache keeps their parses, ADR 0112).
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar

from uze import durability, fs
from uze.errors import UzeError
from uze.journal import Guard, anywhere, finish_journal, read_state_file, recover, undo_journal

__all__ = ["Guard", "Transaction", "after_commit", "pending", "read_state_file", "recover"]

_AFTER_COMMIT: list[Callable[[list[bytes]], None]] = []


def after_commit(hook: Callable[[list[bytes]], None]) -> None:
    """Call `hook` with the new bytes of every file `edit` changed, after each commit. A hook
    only remembers (a cache): the changes stand, so whatever it raises is ignored."""
    _AFTER_COMMIT.append(hook)


class Transaction:
    """One journaled unit of change, used as a context manager around the writes:

        with Transaction(journal_root, guard) as tx:
            tx.write(...)

    Leaving the block normally commits; an exception (any, Ctrl-C included) rolls every
    change back and propagates. Commands never call `commit` or `rollback` themselves.
    `Transaction.committed` counts the transactions of this process that committed a change
    (what Ctrl-C reports: nothing written, or every change of them written whole).
    """

    committed: ClassVar[int] = 0
    current: ClassVar[Transaction | None] = None  # the open one: `pending` reads its edits

    def __init__(self, journal_root: Path, guard: Guard | None = None) -> None:
        self.folder = journal_root / uuid.uuid4().hex
        self._guard: Guard = guard or anywhere
        self._ops = self.folder / "ops.jsonl"
        self._count = 0
        self.writes = 0
        self.created_dirs: list[Path] = []
        self._doomed: set[Path] = set()  # trash and folders that go at commit
        self._unsynced: list[Path] = []  # written without fsync: the barrier at commit covers them
        self._premade: set[Path] = set()  # made by create_folders, not yet by create_folder
        self._backed_up: set[Path] = set()  # written by `write`: the journal holds the original
        self._edits: dict[str, tuple[Path, bytes]] = {}  # `edit`: written at commit
        self._before: dict[Path, int | None] = {}  # `edit`: the mode before, journaled at commit
        self._kept: list[Callable[[], None]] = []  # `on_commit`
        self._outer: Transaction | None = None

    def __enter__(self) -> Transaction:
        self._outer, Transaction.current = Transaction.current, self
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        Transaction.current = self._outer
        if kind is None:
            self.commit()
        else:
            self.rollback()

    def _log(self, op: dict[str, Any], backup: bytes | None = None, *, durable: bool = True
             ) -> None:
        if backup is not None:
            fs.atomic_write(self.folder / f"b{self._count}", backup)
            op["backup"] = f"b{self._count}"
        self._count += 1
        fs.append_durable(self._ops, (json.dumps(op) + "\n").encode(), durable=durable)

    def sweep_on_undo(self, folder: Path) -> None:
        """Note that writes outside the journal (store objects) happen below `folder`: if this
        transaction is undone after a crash, their temp files there are removed too."""
        self._guard(folder)
        # Not fsynced: a power cut costs a stray temp file at most, and the next journal line
        # makes this one durable anyway.
        self._log({"op": "sweep", "path": str(folder)}, durable=False)

    def write(self, path: Path, data: bytes, mode: int | None = None) -> None:
        """Write a whole file atomically, remembering what was there before this transaction.

        A file this transaction wrote already is not backed up again (ADR 0099): undoing its
        first write gives back the bytes it held before; the journal's line for it also names
        it for the temp-file sweep. The file gets no fsync of its own: the journal line is
        durable before it changes, and commit's barrier makes it durable before the journal
        goes (ADR 0109)."""
        self._back_up(path)
        self._edits.pop(str(path), None)
        fs.atomic_write(path, data, mode, durable=False)
        self._unsynced.append(path)
        self.writes += 1

    def edit(self, path: Path, data: bytes) -> None:
        """Change a shared file that other steps of this command may change too: the new bytes
        stay in memory until commit, which writes the file once (atomically, keeping its mode)
        however many edits it had. Until then the file on disk is untouched and
        `pending(path)` is what it will hold (ADR 0104). Its bytes from before are read now
        and journaled at commit, with every other edited file's, before any of them is written
        (ADR 0115): until then there is nothing to undo."""
        self._guard(path)
        self.make_dirs(path.parent)
        if path not in self._backed_up:
            self._before[path] = _mode_before(path)
            self._backed_up.add(path)
        self._edits[str(path)] = (path, data)
        self.writes += 1

    def on_commit(self, keep: Callable[[], None]) -> None:
        """Call `keep` once this transaction has committed (a cache remembering what it wrote:
        the changes stand, so whatever it raises is ignored); never if it rolls back."""
        self._kept.append(keep)

    def pending(self, path: Path) -> bytes | None:
        """The bytes `edit` left for `path` in this transaction, None if it left none."""
        found = self._edits.get(str(path))
        return None if found is None else found[1]

    def _back_up(self, path: Path) -> None:
        """Check `path`, make its folder, journal its bytes the first time this transaction
        changes it on disk (an `edit` read them already: they are journaled now)."""
        self._guard(path)
        self.make_dirs(path.parent)
        if path in self._before or path not in self._backed_up:
            self._before.pop(path, None)
            old, old_mode = _bytes_before(path)
            self._log({"op": "write", "path": str(path), "mode": old_mode}, old)
            self._backed_up.add(path)

    def remove(self, path: Path) -> None:
        """Remove one file, remembering its bytes (pending edits of it are dropped)."""
        self._guard(path)
        self._edits.pop(str(path), None)
        if not path.exists():
            return
        mode = path.stat().st_mode & 0o7777
        self._log({"op": "write", "path": str(path), "mode": mode}, path.read_bytes())
        fs.remove_file(path)
        self.writes += 1

    def make_dirs(self, path: Path) -> list[Path]:
        """Create `path` and missing parents; return the folders created."""
        missing = [p for p in (path, *path.parents) if not p.exists()]
        for folder in reversed(missing):
            self._guard(folder)
            self._log({"op": "mkdir", "path": str(folder)})
            fs.make_dir(folder)
            self.created_dirs.append(folder)
        return list(reversed(missing))

    def create_folder(self, path: Path) -> None:
        """Create a new folder whose whole content this transaction will write (nothing to do
        for one `create_folders` made already).

        Rollback removes the folder with everything in it, so files inside need no journal line.
        """
        if path in self._premade:
            self._premade.discard(path)
            return
        self._guard(path)
        self.make_dirs(path.parent)
        self._log({"op": "newtree", "path": str(path)})
        fs.make_dir(path)

    def create_folders(self, paths: list[Path]) -> None:
        """`create_folder` for each of `paths` now, their journal lines made durable by one
        fsync instead of one each (a skill folder per skill and root: 40 fsyncs of the journal
        for the large benchmark package, 2.5 ms apiece on this project's VM; ADR 0052). Every
        line is on disk before any of the folders is made, as with `create_folder`."""
        for path in paths:
            self._guard(path)
            self.make_dirs(path.parent)
        for number, path in enumerate(paths, 1):
            self._log({"op": "newtree", "path": str(path)}, durable=number == len(paths))
        for path in paths:
            fs.make_dir(path)
            self._premade.add(path)

    def write_new(self, path: Path, data: bytes, mode: int | None = None) -> None:
        """Write a file inside a folder made by create_folder, under its own name (no backup,
        no temp file: rollback removes the folder with whatever is in it, ADR 0046; the
        subfolders a file needs are made on the way and go with that folder too)."""
        fs.create_new(path, data, 0o644 if mode is None else mode)
        self._unsynced.append(path)
        self.writes += 1

    def sync_at_commit(self, paths: list[Path]) -> None:
        """Files written elsewhere without fsync (new store objects) that this commit stands on."""
        self._unsynced.extend(paths)

    def remove_dir(self, path: Path) -> bool:
        """Remove an empty folder; return whether it was removed."""
        self._guard(path)
        if not path.is_dir() or any(child not in self._doomed for child in path.iterdir()):
            return False
        if any(path.iterdir()):  # only trash inside: it goes at commit, and the folder after it
            # Undo ignores this line and the commit line's fsync makes it durable (ADR 0051).
            self._log({"op": "rmdir_later", "path": str(path)}, durable=False)
            self._doomed.add(path)
            return True
        self._log({"op": "rmdir", "path": str(path)})
        return fs.remove_dir_if_empty(path)

    def trash_folder(self, path: Path) -> None:
        """Remove a whole folder by renaming it aside; the rename is undone on rollback.

        One journal line instead of a backup per file: the bytes stay on disk, beside the
        original, until commit deletes them (or a crash after the commit line is finished).
        """
        self._guard(path)
        trash = path.with_name(f".{path.name}.uze-trash-{self.folder.name}")
        self._log({"op": "trash", "path": str(path), "trash": str(trash)})
        fs.rename(path, trash, durable=False)  # commit fsyncs each folder once (ADR 0051)
        self._doomed.add(trash)
        self.writes += 1

    def commit(self) -> None:
        """The changes stand: write the edited files, make them and the unsynced files durable,
        mark the journal committed, empty the trash, forget the journal; then hand the edited
        files' bytes to the `after_commit` hooks, and run the `on_commit` calls."""
        edited = [data for _path, data in self._edits.values()]
        try:
            self._journal_before()
            self._write_edits()
        except BaseException:  # a full disk: nothing may stand
            self.rollback()
            raise
        if self._unsynced:
            try:
                durability.barrier(self._unsynced)
            except BaseException:  # a write-back error: the changes cannot stand
                self.rollback()
                raise
            self._unsynced = []
        if self._doomed:
            # The trash renames are durable before the commit line that deletes the trash: one
            # fsync per folder, not one per rename (ADR 0051).
            mark = f".uze-trash-{self.folder.name}"
            for folder in sorted({p.parent for p in self._doomed if p.name.endswith(mark)}):
                fs.fsync_dir(folder)
            fs.append_durable(self._ops, b'{"op": "commit"}\n')
        finish_journal(self.folder, sweep=False)
        if self._count:
            Transaction.committed += 1
        for hook in _AFTER_COMMIT if edited else ():
            with contextlib.suppress(Exception):  # a cache: what stands, stands
                hook(edited)
        for keep in self._kept:
            with contextlib.suppress(Exception):
                keep()

    def _journal_before(self) -> None:
        """Journal the bytes from before of every file `edit` changed, before any is written:
        each backup a hard link to the file (its bytes stay as they are: the commit replaces
        the file by a rename) or, where no link can be made, a copy written without fsync;
        one barrier makes them durable, then their lines are appended with one fsync (not a
        fsynced copy, folder and line per file: ADR 0115). A line is durable only once its
        backup is."""
        if not self._before:
            return
        backups: list[Path] = []
        lines: list[str] = []
        for path, old_mode in self._before.items():
            op: dict[str, Any] = {"op": "write", "path": str(path), "mode": None}
            backup = self.folder / f"b{self._count}"
            if old_mode is not None and _saved(path, backup):
                op["mode"], op["backup"] = old_mode, backup.name
                backups.append(backup)
            self._count += 1
            lines.append(json.dumps(op) + "\n")
        self._before = {}
        if backups:
            durability.barrier(backups)
        fs.append_durable(self._ops, "".join(lines).encode())

    def _write_edits(self) -> None:
        """Write each file `edit` changed, once, without fsync: the barrier that follows makes
        it durable before the journal goes, and until then the journal's backup undoes it."""
        for path, data in self._edits.values():
            fs.atomic_write(path, data, durable=False)
            self._unsynced.append(path)
        self._edits = {}

    def rollback(self) -> None:
        """Undo every journaled change in reverse order, then forget the journal.

        If an undo step fails too (the disk is still full), the journal stays behind and the
        next command that takes the same lock finishes the undo (`recover`); the error that
        caused the rollback is the one the caller reports.
        """
        with contextlib.suppress(OSError, UzeError):
            undo_journal(self.folder)
            fs.remove_dir_if_empty(self.folder.parent)


def _mode_before(path: Path) -> int | None:
    """The mode of the file at `path` (None: nothing there)."""
    try:
        return path.stat().st_mode & 0o7777
    except (FileNotFoundError, NotADirectoryError):
        return None


def _saved(path: Path, backup: Path) -> bool:
    """Make `backup` hold the bytes at `path`: a hard link to it, or a copy where the file
    system refuses one (another device, a file the user may not link); False when nothing
    is there any more."""
    try:
        os.link(path, backup)
        return True
    except FileNotFoundError:
        if not backup.parent.is_dir():
            fs.make_dir(backup.parent, parents=True)
            return _saved(path, backup)
    except OSError:
        pass
    old = _bytes_before(path)[0]
    if old is None:
        return False
    fs.create_new(backup, old, 0o600)
    return True


def _bytes_before(path: Path) -> tuple[bytes | None, int | None]:
    """The bytes at `path` and their mode (None, None: nothing there)."""
    if not path.exists():
        return None, None
    return path.read_bytes(), path.stat().st_mode & 0o7777


def pending(path: Path) -> bytes | None:
    """What the open transaction's edits left for `path` (None: the file on disk is current)."""
    tx = Transaction.current
    return None if tx is None else tx.pending(path)
