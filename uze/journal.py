"""The journal of a transaction on disk: reading it back, undoing it, finishing it.

`journal/<id>/ops.jsonl` holds one JSON line per change a `uze.transaction.Transaction` made
(with a backup of the bytes it replaced), and a `commit` line once the changes stand. A crash
leaves the folder behind; the next command that takes the same lock rolls it back (`recover`)
or, if it was committed, finishes it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from uze import fs
from uze.errors import StateUnreadable, UzeError

Guard = Callable[[Path], None]  # raises for a path the transaction must not touch (ADR 0020)
_OPS: Final = frozenset({
    "write", "mkdir", "newtree", "rmdir", "rmdir_later", "trash", "sweep", "commit",
})
_JOURNAL_HINT: Final = (
    "it is the undo record of an interrupted uze command, and it is damaged: check the paths it "
    "names by hand, then delete that journal folder"
)



def anywhere(_path: Path) -> None:
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


def _read_ops(folder: Path, guard: Guard = anywhere) -> list[dict[str, Any]]:
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


def undo_journal(folder: Path, guard: Guard = anywhere) -> None:
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


def recover(journal_root: Path, guard: Guard = anywhere) -> int:
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

