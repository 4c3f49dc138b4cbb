"""uze.cli.execute on Ctrl-C (adr/0066): it says whether nothing or every committed change was
written, and exits 130."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from uze import cli
from uze.transaction import Transaction
from uze.verbs import Verb


def _verb(run: Any) -> Verb:
    return Verb("try", "A verb that is interrupted.", (), run, lambda r: {}, lambda r, c: [])


@pytest.mark.parametrize(("committed", "said", "left"), [
    (False, "uze: interrupted (Ctrl-C): nothing was written (what was under way is undone) "
            "hint: run the command again", None),
    (True, "uze: interrupted (Ctrl-C) after its changes were written: every change it made "
           "stands whole, none is half-written hint: run `uze status` to see them", b"whole\n"),
], ids=["inside the transaction", "after its commit"])
def test_ctrl_c_says_whether_nothing_or_every_committed_change_was_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    committed: bool, said: str, left: bytes | None,
) -> None:
    monkeypatch.setattr(Transaction, "committed", 0)
    target = tmp_path / "file.txt"

    def run(_call: Any) -> None:
        with Transaction(tmp_path / "journal") as tx:
            tx.write(target, b"whole\n")
            if not committed:
                raise KeyboardInterrupt
        raise KeyboardInterrupt  # after the commit: while it printed, say

    assert cli.execute(_verb(run), {}) == 130
    assert (target.read_bytes() if target.exists() else None) == left  # rolled back, or whole
    assert " ".join(capsys.readouterr().err.split()) == said


def test_a_transaction_that_changed_nothing_is_not_counted(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Transaction, "committed", 0)
    with Transaction(tmp_path / "journal"):
        pass
    assert Transaction.committed == 0
