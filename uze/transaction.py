"""Transactions: every change uze makes is journaled first, so it can be undone.

Before each change a line goes to `journal/<id>/ops.jsonl` (with a backup of any bytes it will
replace). A failure rolls every change back in reverse; a crash leaves the journal behind, and
the next command that takes the same lock rolls it back (`recover`). Commit deletes the journal.

Files written inside a folder the transaction created replace nothing, so they skip the
per-file fsync: commit makes them all durable with one `durability.barrier()` before the
journal goes, and until then a power cut leaves the journal, whose rollback removes the folder
(ADR 0014).
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar, Final

from uze import durability, fs
from uze.errors import StateUnreadable, UzeError

Guard = Callable[[Path], None]  # raises for a path the transaction must not touch (ADR 0020)
_OPS: Final = frozenset({
    "write", "mkdir", "newtree", "rmdir", "rmdir_later", "trash", "sweep", "commit",
})
_JOURNAL_HINT: Final = (
    "it is the undo record of an interrupted uze command, and it is damaged: check the paths it "
    "names by hand, then delete that journal folder"
)


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

    def __init__(self, journal_root: Path, guard: Guard | None = None) -> None:
        self.folder = journal_root / uuid.uuid4().hex
        self._guard: Guard = guard or _anywhere
        self._ops = self.folder / "ops.jsonl"
        self._count = 0
        self.writes = 0
        self.created_dirs: list[Path] = []
        self._doomed: set[Path] = set()  # trash and folders that go at commit
        self._unsynced: list[Path] = []  # written without fsync: the barrier at commit covers them
        self._premade: set[Path] = set()  # made by create_folders, not yet by create_folder
        self._backed_up: set[Path] = set()  # written by `write`: the journal holds the original

    def __enter__(self) -> Transaction:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
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

        A file this transaction wrote already is not backed up again (each edit of a shared
        config file rewrites it, ADR 0099): undoing its first write gives back the bytes it
        held before; the journal's line for it also names it for the temp-file sweep."""
        self._guard(path)
        self.make_dirs(path.parent)
        if path not in self._backed_up:
            old = path.read_bytes() if path.exists() else None
            old_mode = path.stat().st_mode & 0o7777 if old is not None else None
            self._log({"op": "write", "path": str(path), "mode": old_mode}, old)
            self._backed_up.add(path)
        fs.atomic_write(path, data, mode)
        self.writes += 1

    def remove(self, path: Path) -> None:
        """Remove one file, remembering its bytes."""
        self._guard(path)
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
        """The changes stand: make the unsynced files durable, mark the journal committed, empty
        the trash, forget the journal."""
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

    def rollback(self) -> None:
        """Undo every journaled change in reverse order, then forget the journal.

        If an undo step fails too (the disk is still full), the journal stays behind and the
        next command that takes the same lock finishes the undo (`recover`); the error that
        caused the rollback is the one the caller reports.
        """
        with contextlib.suppress(OSError, UzeError):
            undo_journal(self.folder)
            fs.remove_dir_if_empty(self.folder.parent)


def _anywhere(_path: Path) -> None:
    """The guard of a transaction given none (tests of the journal itself)."""


def _undo(op: dict[str, Any], folder: Path) -> None:
    path = Path(op["path"])
    _sweep(op)
    if op["op"] == "write":
        backup = op.get("backup")
        if backup is None:
            fs.remove_file(path)
        elif (folder / backup).exists():
            data = (folder / backup).read_bytes()
            if not _holds(path, data):  # a write that never happened has nothing to undo
                fs.atomic_write(path, data, op.get("mode"))
    elif op["op"] in ("mkdir", "newtree"):
        if op["op"] == "newtree":
            fs.remove_tree(path)
        else:
            fs.remove_dir_if_empty(path)
    elif op["op"] == "rmdir":
        fs.make_dir(path, parents=True)
    elif op["op"] == "trash" and Path(op["trash"]).exists() and not path.exists():
        fs.rename(Path(op["trash"]), path)


def _sweep(op: dict[str, Any]) -> None:
    """Remove the temp files a crash in the middle of `op` may have left (item 16, issue 19)."""
    if op["op"] == "write":
        fs.remove_temps_of(Path(op["path"]))
    elif op["op"] == "sweep":
        fs.remove_temp_files(Path(op["path"]), depth=2)  # the store: <kind>/<fan-out>/


def _holds(path: Path, data: bytes) -> bool:
    try:
        return path.read_bytes() == data
    except OSError:
        return False


def read_state_file(path: Path, hint: str) -> bytes | None:
    """The bytes of uze's state file `path` (the journal, created.json, projects.json), None if
    it does not exist; StateUnreadable naming it (with `hint`) if it cannot be read."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StateUnreadable(path, exc.strerror or str(exc), hint) from None


def _read_ops(folder: Path, guard: Guard = _anywhere) -> list[dict[str, Any]]:
    """The journal's operations, each checked: a known op, absolute paths the scope's `guard`
    allows, a backup named as uze names them. Raises StateUnreadable for anything else."""
    ops: list[dict[str, Any]] = []
    journal = folder / "ops.jsonl"
    raw = read_state_file(journal, _JOURNAL_HINT)
    if raw is None:
        return ops
    lines = raw.splitlines()
    for number, line in enumerate(lines, 1):
        try:
            op = json.loads(line)
        except ValueError:
            if number == len(lines):  # a torn last line: its change never started
                break
            raise StateUnreadable(journal, f"line {number} is not JSON", _JOURNAL_HINT) from None
        why = _op_problem(op, guard)
        if why is not None:
            raise StateUnreadable(journal, f"line {number}: {why}", _JOURNAL_HINT)
        ops.append(op)
    return ops


def _op_problem(op: object, guard: Guard) -> str | None:
    if not isinstance(op, dict) or op.get("op") not in _OPS:
        return "not an operation uze journals"
    if op["op"] == "commit":
        return None
    backup = op.get("backup")
    if backup is not None and (not isinstance(backup, str) or not backup[1:].isdigit()
                               or backup[:1] != "b"):
        return f"backup {backup!r} is not one uze names"
    for key in ("path", "trash") if op["op"] == "trash" else ("path",):
        value = op.get(key)
        if not isinstance(value, str) or not value.startswith("/") or "\0" in value:
            return f"{key} {value!r} is not an absolute path"
        try:
            guard(Path(value))
        except UzeError as refused:
            return refused.message
    return None


def finish_journal(folder: Path, *, sweep: bool = True) -> None:
    """Complete a committed journal: delete what it put in the trash, then the journal.

    `sweep`: also remove the temp files a crash inside each write may have left (recovery).
    The transaction that commits in this process passes False: each of its writes either
    renamed its temp file or removed it (`fs.atomic_write`), else it rolled back, so there is
    nothing to find; sweeping would list every folder it wrote in and the whole store, which
    grow with the packages installed (issue 32, ADR 0099)."""
    ops = _read_ops(folder)
    for op in ops:
        if op["op"] == "trash":
            fs.remove_tree(Path(op["trash"]))
        elif op["op"] != "commit" and sweep:
            _sweep(op)
    for op in ops:
        if op["op"] == "rmdir_later":
            fs.remove_dir_if_empty(Path(op["path"]))
    fs.remove_tree(folder)
    fs.remove_dir_if_empty(folder.parent)


def undo_journal(folder: Path, guard: Guard = _anywhere) -> None:
    """Roll back one journal folder, or finish it if it was committed (idempotent)."""
    ops = _read_ops(folder, guard)
    if ops and ops[-1]["op"] == "commit":
        finish_journal(folder)
        return
    # A folder put back from the trash by an earlier, interrupted undo of this journal: its
    # `newtree` undo already ran, and running it again would delete the folder put back.
    restored = {op["path"] for op in ops if op["op"] == "trash" and not Path(op["trash"]).exists()
                and Path(op["path"]).exists()}
    failed: Exception | None = None
    for op in reversed(ops):  # every step can run again: one that fails is retried next time
        if op["op"] == "newtree" and op["path"] in restored:
            continue
        try:
            _undo(op, folder)
        except (OSError, UzeError) as exc:
            failed = failed or exc
    if failed is not None:
        raise failed
    fs.remove_tree(folder)


def recover(journal_root: Path, guard: Guard = _anywhere) -> int:
    """Roll back every transaction a crashed command left under `journal_root`; return count.

    The caller holds the lock that guards this root. `guard` refuses a journal naming a path
    the scope does not write (before any of it is undone).
    """
    if not journal_root.is_dir():
        return 0
    folders = sorted(p for p in journal_root.iterdir() if p.is_dir())
    for folder in folders:
        _read_ops(folder, guard)  # all checked before any is undone
    for folder in folders:
        undo_journal(folder, guard)
    fs.remove_dir_if_empty(journal_root)
    return len(folders)

