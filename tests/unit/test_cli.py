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


def test_ctrl_c_before_any_commit_says_nothing_was_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Transaction, "committed", 0)
    target = tmp_path / "file.txt"

    def run(_call: Any) -> None:
        with Transaction(tmp_path / "journal") as tx:
            tx.write(target, b"half\n")
            raise KeyboardInterrupt

    assert cli.execute(_verb(run), {}) == 130
    assert not target.exists()  # rolled back
    err = capsys.readouterr().err
    assert "uze: interrupted (Ctrl-C): nothing was written" in err
    assert "hint: run the command again" in err


def test_ctrl_c_after_a_commit_says_its_changes_stand_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Transaction, "committed", 0)
    target = tmp_path / "file.txt"

    def run(_call: Any) -> None:
        with Transaction(tmp_path / "journal") as tx:
            tx.write(target, b"whole\n")
        raise KeyboardInterrupt  # while it printed, say

    assert cli.execute(_verb(run), {}) == 130
    assert target.read_bytes() == b"whole\n"
    err = " ".join(capsys.readouterr().err.split())
    assert "uze: interrupted (Ctrl-C) after its changes were written" in err
    assert "none is half-written" in err and "uze status" in err


def test_a_transaction_that_changed_nothing_is_not_counted(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Transaction, "committed", 0)
    with Transaction(tmp_path / "journal"):
        pass
    assert Transaction.committed == 0
